import { type ChildProcess, spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createTestDatabase, freePort, repoRoot, type TestDatabase } from '@sheetgate/test-harness';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// The README's "Running one service alone", run as written: its shell block, with DATABASE_URL
// pointed at a test database and each service on free ports (the block leaves ports to their
// defaults, so they come from the environment).

const SERVICES = ['auth', 'mcp', 'web'] as const;

/** The section's one `sh` block, split into its settings and its three `start` lines. */
function readmeBlock() {
  const readme = readFileSync(path.join(repoRoot, 'README.md'), 'utf8');
  const start = readme.indexOf('## Running one service alone');
  const section = readme.slice(start, readme.indexOf('\n## ', start + 1));
  const blocks = [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!);
  expect(blocks).toHaveLength(1);
  const lines = blocks[0]!.split('\n');
  const isStart = (line: string) => /^pnpm --filter @sheetgate\/(auth|mcp|web) start\b/.test(line);
  return { settings: lines.filter((line) => !isStart(line)).join('\n'), starts: lines.filter(isStart) };
}

const shellQuote = (value: string) => `'${value.replace(/'/g, `'\\''`)}'`;

/** A directory with `pnpm` in it: the pnpm running this test when it is not on PATH. */
function pnpmOnPath(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'sheetgate-pnpm-'));
  const execPath = process.env.npm_execpath;
  if (execPath && /pnpm/.test(execPath)) {
    writeFileSync(path.join(dir, 'pnpm'), `#!/bin/sh\nexec "${process.execPath}" "${execPath}" "$@"\n`);
    chmodSync(path.join(dir, 'pnpm'), 0o755);
  }
  return dir;
}

describe('README: running one service alone', () => {
  let database: TestDatabase;
  let shell: ChildProcess | undefined;
  let binDir: string;
  const output: string[] = [];
  const ports: Record<string, number> = {};

  beforeAll(async () => {
    database = await createTestDatabase();
    binDir = pnpmOnPath();
    for (const name of [
      'AUTH_PORT',
      'AUTH_GRPC_PORT',
      'AUTH_METRICS_PORT',
      'MCP_PORT',
      'MCP_GRPC_PORT',
      'MCP_METRICS_PORT',
      'WEB_PORT',
      'WEB_METRICS_PORT',
    ])
      ports[name] = await freePort();
  });

  afterAll(async () => {
    if (shell?.pid && shell.exitCode === null) {
      const exited = new Promise((resolve) => shell!.once('exit', resolve));
      process.kill(-shell.pid, 'SIGTERM');
      const timer = setTimeout(() => process.kill(-shell!.pid!, 'SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    }
    await database?.close();
    rmSync(binDir, { recursive: true, force: true });
  });

  it('starts auth, mcp and web with the settings it gives, each answering /readyz 200', async () => {
    const { settings, starts } = readmeBlock();
    expect(starts.map((line) => /@sheetgate\/(\w+)/.exec(line)![1])).toEqual([...SERVICES]);
    const onTestDatabase = settings.replace(
      /^export DATABASE_URL=\S+/m,
      `export DATABASE_URL=${shellQuote(database.url)}`,
    );
    expect(onTestDatabase).not.toBe(settings);
    // Each start line in the background of the one shell, as three terminals with the same settings.
    const background = starts.map((line) => `${line.replace(/\s+#.*$/, '')} &`);
    const script = `set -e\n${onTestDatabase}\n${background.join('\n')}\nwait\n`;
    shell = spawn('bash', ['-c', script], {
      cwd: repoRoot,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        PATH: `${binDir}:${process.env.PATH}`,
        HOME: process.env.HOME ?? os.tmpdir(),
        ...Object.fromEntries(Object.entries(ports).map(([name, port]) => [name, String(port)])),
        // Where mcp and web find auth when it is not on its default ports.
        AUTH_GRPC_ADDRESS: `127.0.0.1:${ports.AUTH_GRPC_PORT}`,
        AUTH_INTERNAL_URL: `http://127.0.0.1:${ports.AUTH_PORT}`,
        LOG_LEVEL: 'warn',
      },
    });
    shell.stdout!.on('data', (chunk: Buffer) => output.push(chunk.toString()));
    shell.stderr!.on('data', (chunk: Buffer) => output.push(chunk.toString()));

    for (const service of SERVICES) {
      const url = `http://127.0.0.1:${ports[`${service.toUpperCase()}_PORT`]}/readyz`;
      const deadline = Date.now() + 60_000;
      let status = 0;
      while (Date.now() < deadline && shell.exitCode === null) {
        status = await fetch(url).then(
          (response) => response.status,
          () => 0,
        );
        if (status === 200) break;
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
      expect(status, `${service} /readyz\n${output.join('')}`).toBe(200);
    }
  }, 90_000);
});
