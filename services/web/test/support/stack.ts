import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { freePort, repoRoot } from '@sheetgate/test-harness';

export interface Stack {
  baseUrl: string;
  emulatorUrl: string;
  ports: Record<string, number>;
  serviceToken: string;
  output: string[];
  stop(): Promise<void>;
}

const PORT_SETTINGS = ['PORT', 'AUTH_PORT', 'MCP_PORT', 'WEB_PORT', 'AUTH_GRPC_PORT', 'GOOGLE_EMULATOR_PORT'];

/**
 * The whole stack as `pnpm start` runs it (auth, mcp, web, gateway, Google emulator, embedded
 * PostgreSQL), on free ports with its own data folder. Resolves on its ready line.
 */
export async function startStack(): Promise<Stack> {
  const ports: Record<string, number> = {};
  for (const name of PORT_SETTINGS) ports[name] = await freePort();
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'sheetgate-web-'));
  const serviceToken = randomBytes(32).toString('base64url');
  const child: ChildProcess = spawn(
    process.execPath,
    [path.join(repoRoot, 'packages/local-stack/src/start.ts')],
    {
      cwd: repoRoot,
      env: {
        PATH: process.env.PATH,
        DATA_DIR: dataDir,
        INTERNAL_SERVICE_TOKEN: serviceToken,
        LOG_LEVEL: 'warn',
        RATE_LIMIT_OVERRIDES: JSON.stringify({ register: { points: 500, durationSeconds: 3600 } }),
        ...Object.fromEntries(Object.entries(ports).map(([name, port]) => [name, String(port)])),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const output: string[] = [];
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
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
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`the stack exited before ready:\n${output.join('')}`));
    });
  });
  return {
    baseUrl: `http://localhost:${ports.PORT}`,
    emulatorUrl: `http://localhost:${ports.GOOGLE_EMULATOR_PORT}`,
    ports,
    serviceToken,
    output,
    async stop() {
      if (child.exitCode === null) child.kill('SIGINT');
      await exited;
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
