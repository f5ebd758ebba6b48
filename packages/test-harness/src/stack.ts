import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { stackPortSettings } from '@sheetgate/local-stack';
import { createTestDatabase, type TestDatabase } from './databases.ts';
import { takenPortsIn } from './port-retry.ts';
import { freePorts } from './ports.ts';
import { repoRoot } from './processes.ts';

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

export async function stackPorts(): Promise<Record<string, number>> {
  const ports = await freePorts(stackPortSettings.length);
  return Object.fromEntries(stackPortSettings.map((name, index) => [name, ports[index]!]));
}

/**
 * `pnpm start`'s entry point as the README runs it, on free ports with its own data folder, so
 * tests can run several stacks side by side. With `DATABASE_URL`/`REDIS_URL` in the test
 * environment the stack gets its own fresh database on that server and the shared Redis, unless
 * `env` says otherwise (an empty value means "unset": the embedded default). Resolves once it
 * prints its ready line.
 */
/**
 * GOOGLE_QUOTAS for a test stack: the emulator enforces no quota unless a test sets one, and tests
 * send one person's requests faster than Google's default 60 a minute. Tests of the quota
 * scheduling set their own.
 */
export const TEST_GOOGLE_QUOTAS = JSON.stringify({
  sheetsReadsPerMinutePerProject: 1_000_000,
  sheetsReadsPerMinutePerUser: 1_000_000,
  sheetsWritesPerMinutePerProject: 1_000_000,
  sheetsWritesPerMinutePerUser: 1_000_000,
  driveRequestsPerMinutePerProject: 1_000_000,
  driveRequestsPerMinutePerUser: 1_000_000,
});

export async function startStack(
  env: Record<string, string> = {},
  ports?: Record<string, number>,
): Promise<Stack> {
  let database: TestDatabase | undefined;
  const servers: Record<string, string> = {};
  if (process.env.DATABASE_URL && env.DATABASE_URL === undefined) {
    database = await createTestDatabase();
    servers.DATABASE_URL = database.url;
  }
  if (process.env.REDIS_URL && env.REDIS_URL === undefined) servers.REDIS_URL = process.env.REDIS_URL;
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'sheetgate-stack-'));
  const serviceToken = randomBytes(32).toString('base64url');
  const settings = {
    PATH: process.env.PATH,
    DATA_DIR: dataDir,
    INTERNAL_SERVICE_TOKEN: serviceToken,
    // Each stack counts its own requests on a shared Redis; tests register many clients.
    RATE_LIMIT_KEY_PREFIX: `e2e:${randomBytes(6).toString('hex')}`,
    RATE_LIMIT_OVERRIDES: JSON.stringify({ register: { points: 500, durationSeconds: 3600 } }),
    GOOGLE_QUOTAS: TEST_GOOGLE_QUOTAS,
    ...servers,
    ...env,
  };
  const cleanUp = async () => {
    await rm(dataDir, { recursive: true, force: true });
    await database?.close();
  };
  let launched: LaunchedStack | undefined;
  let chosen = ports ?? (await stackPorts());
  // Chosen ports are free when picked; should something else take one before the stack binds it,
  // choose again rather than fail the test file (only when the caller did not fix the ports).
  for (let attempt = 1; !launched; attempt++) {
    try {
      launched = await launchStack(chosen, settings);
    } catch (error) {
      if (ports || attempt >= 3 || takenPortsIn((error as Error).message).length === 0) {
        await cleanUp();
        throw error;
      }
      chosen = await stackPorts();
    }
  }
  const { child, output, exited } = launched;
  return {
    process: child,
    output,
    baseUrl: `http://localhost:${chosen.PORT}`,
    emulatorUrl: `http://localhost:${chosen.GOOGLE_EMULATOR_PORT}`,
    ports: chosen,
    serviceToken,
    exited,
    async stop() {
      if (child.exitCode === null) child.kill('SIGINT');
      const code = await exited;
      await cleanUp();
      return code;
    },
  };
}

interface LaunchedStack {
  child: ChildProcess;
  output: string[];
  exited: Promise<number | null>;
}

/** Spawns the stack on `ports`; resolves once it prints its ready line, else stops it and throws. */
async function launchStack(
  ports: Record<string, number>,
  settings: Record<string, string | undefined>,
): Promise<LaunchedStack> {
  // `--liftoff-only` as the root package.json's `start` script runs the launcher.
  const child = spawn(
    process.execPath,
    ['--liftoff-only', path.join(repoRoot, 'packages/local-stack/src/start.js')],
    {
      cwd: repoRoot,
      env: {
        ...Object.fromEntries(Object.entries(ports).map(([name, port]) => [name, String(port)])),
        ...settings,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const output: string[] = [];
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  try {
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
  } catch (error) {
    if (child.exitCode === null) child.kill('SIGINT'); // lets it stop the services it started
    await exited;
    throw error;
  }
  return { child, output, exited };
}
