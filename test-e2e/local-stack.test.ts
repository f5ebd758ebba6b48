import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createTestDatabase, freePort, readJson, repoRoot, type TestDatabase } from '@sheetgate/test-harness';
import { afterAll, describe, expect, it } from 'vitest';

interface Stack {
  process: ChildProcess;
  output: string[];
  baseUrl: string;
  ports: Record<string, number>;
  exited: Promise<number | null>;
}

const stacks: Stack[] = [];
const cleanups: Array<() => Promise<void>> = [];

async function stackPorts() {
  const names = ['PORT', 'AUTH_PORT', 'MCP_PORT', 'WEB_PORT', 'AUTH_GRPC_PORT', 'GOOGLE_EMULATOR_PORT'];
  const ports: Record<string, number> = {};
  for (const name of names) ports[name] = await freePort();
  return ports;
}

/** Runs `pnpm start`'s entry point exactly as the README does, with its own ports and data dir. */
async function startStack(env: Record<string, string>, ports: Record<string, number>): Promise<Stack> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'sheetgate-stack-'));
  cleanups.push(() => rm(dataDir, { recursive: true, force: true }));
  const child = spawn(process.execPath, [path.join(repoRoot, 'packages/local-stack/src/start.ts')], {
    cwd: repoRoot,
    env: {
      PATH: process.env.PATH,
      DATA_DIR: dataDir,
      ...Object.fromEntries(Object.entries(ports).map(([name, port]) => [name, String(port)])),
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const baseUrl = `http://localhost:${ports.PORT}`;
  const stack = { process: child, output, baseUrl, ports, exited };
  stacks.push(stack);
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`no ready line after 90 s:\n${output.join('')}`)),
      90_000,
    );
    const onData = (chunk: Buffer) => {
      output.push(chunk.toString());
      if (/ready at http:\/\/localhost:\d+/.test(output.join(''))) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`stack exited (${code}) before ready:\n${output.join('')}`));
    });
  });
  return stack;
}

async function stopStack(stack: Stack) {
  if (stack.process.exitCode === null) stack.process.kill('SIGINT');
  return stack.exited;
}

afterAll(async () => {
  await Promise.all(stacks.map(stopStack));
  for (const cleanup of cleanups) await cleanup();
});

function portIsListening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

describe('pnpm start with embedded defaults (no DATABASE_URL, REDIS_URL or Google credentials)', () => {
  let stack: Stack;

  it('prints the ready line with the base URL', async () => {
    stack = await startStack({}, await stackPorts());
    expect(stack.output.join('')).toContain(`Sheetgate ready at ${stack.baseUrl}`);
    expect(stack.output.join('')).toContain('embedded PostgreSQL (PGlite)');
  });

  it('routes each public path to its service through the gateway', async () => {
    const discovery = await fetch(`${stack.baseUrl}/.well-known/openid-configuration`);
    expect([200, 501]).toContain(discovery.status);
    expect(discovery.headers.get('content-type')).toContain('application/json');

    const metadata = await fetch(`${stack.baseUrl}/.well-known/oauth-protected-resource/api/mcp`);
    expect(metadata.status).toBe(200);
    expect((await readJson(metadata)).resource).toBe(`${stack.baseUrl}/api/mcp`);

    const mcp = await fetch(`${stack.baseUrl}/api/mcp`, { method: 'POST', body: '{}' });
    expect(mcp.headers.get('content-type')).toContain('application/json');
    expect((await fetch(`${stack.baseUrl}/api/mcp`)).status).toBe(405);

    const login = await fetch(`${stack.baseUrl}/login`);
    expect([200, 501]).toContain(login.status);

    const unknown = await fetch(`${stack.baseUrl}/.well-known/nothing`);
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get('content-type')).toContain('application/json');
  });

  it('serves the Google emulator on GOOGLE_EMULATOR_PORT', async () => {
    const discovery = await fetch(
      `http://localhost:${stack.ports.GOOGLE_EMULATOR_PORT}/.well-known/openid-configuration`,
    );
    expect(discovery.status).toBe(200);
    expect((await readJson(discovery)).authorization_endpoint).toContain(
      `:${stack.ports.GOOGLE_EMULATOR_PORT}/`,
    );
  });

  it('stops every process on Ctrl-C', async () => {
    expect(await stopStack(stack)).toBe(0);
    for (const name of ['PORT', 'AUTH_PORT', 'MCP_PORT', 'WEB_PORT', 'GOOGLE_EMULATOR_PORT']) {
      expect(await portIsListening(stack.ports[name]!), `${name} still listening`).toBe(false);
    }
  });
});

describe('pnpm start with a real PostgreSQL', () => {
  let database: TestDatabase;
  afterAll(async () => {
    await database?.close();
  });

  it('uses DATABASE_URL instead of the embedded database', async () => {
    database = await createTestDatabase();
    const stack = await startStack({ DATABASE_URL: database.url }, await stackPorts());
    expect(stack.output.join('')).not.toContain('embedded PostgreSQL');
    expect((await fetch(`http://127.0.0.1:${stack.ports.AUTH_PORT}/readyz`)).status).toBe(200);
    expect(await stopStack(stack)).toBe(0);
  });
});

describe('pnpm start when a port is taken', () => {
  it('says which port and which setting, and starts nothing', async () => {
    const ports = await stackPorts();
    const blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(ports.MCP_PORT, '127.0.0.1', resolve));
    try {
      const child = spawn(process.execPath, [path.join(repoRoot, 'packages/local-stack/src/start.ts')], {
        cwd: repoRoot,
        env: {
          PATH: process.env.PATH,
          ...Object.fromEntries(Object.entries(ports).map(([name, port]) => [name, String(port)])),
        },
      });
      let stderr = '';
      child.stderr.on('data', (chunk) => {
        stderr += chunk;
      });
      const code = await new Promise((resolve) => child.once('exit', resolve));
      expect(code).toBe(1);
      expect(stderr.trim()).toBe(
        `start: port ${ports.MCP_PORT} (MCP_PORT) is already in use: stop what uses it or set MCP_PORT`,
      );
      expect(await portIsListening(ports.PORT!)).toBe(false);
    } finally {
      blocker.close();
    }
  });
});
