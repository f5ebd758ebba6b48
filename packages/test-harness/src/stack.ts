import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createTestDatabase, type TestDatabase } from './databases.ts';
import { freePorts, repoRoot } from './processes.ts';

export interface Stack {
  process: ChildProcess;
  output: string[];
  baseUrl: string;
  emulatorUrl: string;
  ports: Record<string, number>;
  serviceToken: string;
  exited: Promise<number | null>;
  stop(): Promise<number | null>;
}

const PORT_SETTINGS = [
  'PORT',
  'AUTH_PORT',
  'MCP_PORT',
  'WEB_PORT',
  'AUTH_GRPC_PORT',
  'GOOGLE_EMULATOR_PORT',
  'AUTH_METRICS_PORT',
  'MCP_METRICS_PORT',
  'WEB_METRICS_PORT',
];

export async function stackPorts(): Promise<Record<string, number>> {
  const ports = await freePorts(PORT_SETTINGS.length);
  return Object.fromEntries(PORT_SETTINGS.map((name, index) => [name, ports[index]!]));
}

/**
 * `pnpm start`'s entry point as the README runs it, on free ports with its own data folder, so
 * tests can run several stacks side by side. With `DATABASE_URL`/`REDIS_URL` in the test
 * environment the stack gets its own fresh database on that server and the shared Redis, unless
 * `env` says otherwise (an empty value means "unset": the embedded default). Resolves once it
 * prints its ready line.
 */
export async function startStack(
  env: Record<string, string> = {},
  ports?: Record<string, number>,
): Promise<Stack> {
  const chosen = ports ?? (await stackPorts());
  let database: TestDatabase | undefined;
  const servers: Record<string, string> = {};
  if (process.env.DATABASE_URL && env.DATABASE_URL === undefined) {
    database = await createTestDatabase();
    servers.DATABASE_URL = database.url;
  }
  if (process.env.REDIS_URL && env.REDIS_URL === undefined) servers.REDIS_URL = process.env.REDIS_URL;
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'sheetgate-stack-'));
  const serviceToken = randomBytes(32).toString('base64url');
  const child = spawn(process.execPath, [path.join(repoRoot, 'packages/local-stack/src/start.ts')], {
    cwd: repoRoot,
    env: {
      PATH: process.env.PATH,
      DATA_DIR: dataDir,
      INTERNAL_SERVICE_TOKEN: serviceToken,
      // Each stack counts its own requests on a shared Redis; tests register many clients.
      RATE_LIMIT_KEY_PREFIX: `e2e:${randomBytes(6).toString('hex')}`,
      RATE_LIMIT_OVERRIDES: JSON.stringify({ register: { points: 500, durationSeconds: 3600 } }),
      ...Object.fromEntries(Object.entries(chosen).map(([name, port]) => [name, String(port)])),
      ...servers,
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const baseUrl = `http://localhost:${chosen.PORT}`;
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
  return {
    process: child,
    output,
    baseUrl,
    emulatorUrl: `http://localhost:${chosen.GOOGLE_EMULATOR_PORT}`,
    ports: chosen,
    serviceToken,
    exited,
    async stop() {
      if (child.exitCode === null) child.kill('SIGINT');
      const code = await exited;
      await rm(dataDir, { recursive: true, force: true });
      await database?.close();
      return code;
    },
  };
}
