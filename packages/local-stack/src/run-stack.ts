/**
 * `pnpm start`: the whole stack on one laptop (docs/design.md §6, §10). Starts what is not
 * configured (embedded PostgreSQL, the Google emulator), the three services as separate processes
 * and the gateway, prints one `ready` line, and stops everything on Ctrl-C.
 */
import { randomBytes } from 'node:crypto';
import { chmod, mkdir } from 'node:fs/promises';
import type http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { closeHttpServer, listen, loadSettingsOrExit } from '@sheetgate/service-runtime';
import { type ChildService, spawnService, waitUntilReady } from './child-service.ts';
import { type EmbeddedPostgres, startEmbeddedPostgres } from './embedded-postgres.ts';
import { createGateway } from './gateway.ts';
import { loadOrCreateLocalSecrets } from './local-secrets.ts';
import { findTakenPorts } from './ports.ts';
import { stackPortSettings, stackSettingsSchema, usesGoogleEmulator } from './stack-settings.ts';

const HOST = '127.0.0.1';
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const entryOf = (relative: string) => path.join(repoRoot, relative);

const settings = loadSettingsOrExit('start', stackSettingsSchema);
const baseUrl = settings.BASE_URL ?? `http://localhost:${settings.PORT}`;
let withEmulator: boolean;
try {
  withEmulator = usesGoogleEmulator(settings);
} catch (error) {
  fail((error as Error).message);
}

const wantedPorts = stackPortSettings
  .filter((setting) => withEmulator || setting !== 'GOOGLE_EMULATOR_PORT')
  .map((setting) => ({ setting, port: settings[setting] }));
const taken = await findTakenPorts(wantedPorts, HOST);
if (taken.length > 0) {
  fail(
    taken
      .map(
        ({ port, setting }) =>
          `port ${port} (${setting}) is already in use: stop what uses it or set ${setting}`,
      )
      .join('\n'),
  );
}

const started = performance.now();
const children: ChildService[] = [];
let embeddedPostgres: EmbeddedPostgres | undefined;
let gateway: http.Server | undefined;
let stopping = false;

async function stopAll(exitCode: number): Promise<never> {
  stopping = true;
  if (gateway) await closeHttpServer(gateway);
  await Promise.all(children.map((child) => child.stop()));
  await embeddedPostgres?.close();
  process.exit(exitCode);
}
process.once('SIGINT', () => void stopAll(0));
process.once('SIGTERM', () => void stopAll(0));

try {
  // The data folder holds the database files and local-secrets.json: this user's alone.
  await mkdir(path.resolve(settings.DATA_DIR), { recursive: true, mode: 0o700 });
  await chmod(path.resolve(settings.DATA_DIR), 0o700);
  let databaseUrl = settings.DATABASE_URL;
  if (!databaseUrl) {
    const dataDir = path.resolve(settings.DATA_DIR, 'postgres');
    embeddedPostgres = await startEmbeddedPostgres({
      dataDir,
      socketDir: path.resolve(settings.DATA_DIR, 'postgres-socket'),
    });
    databaseUrl = embeddedPostgres.url;
    log(`embedded PostgreSQL (PGlite) with data in ${dataDir}`);
  }

  const localSecrets = await loadOrCreateLocalSecrets(path.resolve(settings.DATA_DIR));
  const shared = {
    ...localSecrets,
    ...process.env,
    BASE_URL: baseUrl,
    LOG_LEVEL: settings.LOG_LEVEL,
    // A fresh service credential per run: only the processes started here know it.
    INTERNAL_SERVICE_TOKEN: process.env.INTERNAL_SERVICE_TOKEN ?? randomBytes(32).toString('base64url'),
    AUTH_INTERNAL_URL: `http://${HOST}:${settings.AUTH_PORT}`,
    AUTH_GRPC_ADDRESS: `${HOST}:${settings.AUTH_GRPC_PORT}`,
  };

  let googleEnv: Record<string, string> = {};
  if (withEmulator) {
    const emulatorUrl = `http://localhost:${settings.GOOGLE_EMULATOR_PORT}`;
    googleEnv = {
      GOOGLE_CLIENT_ID: 'sheetgate-local.apps.googleusercontent.com',
      GOOGLE_CLIENT_SECRET: randomBytes(24).toString('base64url'),
      GOOGLE_EMULATOR_URL: emulatorUrl,
    };
    const emulator = spawnService('google', entryOf('packages/google-emulator/src/main.ts'), {
      ...shared,
      ...googleEnv,
      GOOGLE_EMULATOR_PORT: String(settings.GOOGLE_EMULATOR_PORT),
      GOOGLE_EMULATOR_HOST: HOST,
      GOOGLE_EMULATOR_REDIRECT_URIS: `${baseUrl}/api/auth/google/callback`,
    });
    children.push(emulator);
    await waitUntilReady(`http://${HOST}:${settings.GOOGLE_EMULATOR_PORT}/healthz`, emulator);
    log(
      `Google emulator at ${emulatorUrl} (accounts: ${process.env.GOOGLE_EMULATOR_ACCOUNTS ?? 'alice@example.com, bob@example.com'})`,
    );
  }

  const services = [
    {
      name: 'auth',
      port: settings.AUTH_PORT,
      env: {
        AUTH_HOST: HOST,
        AUTH_PORT: String(settings.AUTH_PORT),
        AUTH_GRPC_PORT: String(settings.AUTH_GRPC_PORT),
        AUTH_METRICS_PORT: String(settings.AUTH_METRICS_PORT),
        DATABASE_URL: databaseUrl,
        ...(settings.REDIS_URL ? { REDIS_URL: settings.REDIS_URL } : {}),
        ...(settings.AUTH_SIGNING_KEYS ? { AUTH_SIGNING_KEYS: settings.AUTH_SIGNING_KEYS } : {}),
      },
    },
    {
      name: 'mcp',
      port: settings.MCP_PORT,
      env: {
        MCP_HOST: HOST,
        MCP_PORT: String(settings.MCP_PORT),
        MCP_METRICS_PORT: String(settings.MCP_METRICS_PORT),
      },
    },
    {
      name: 'web',
      port: settings.WEB_PORT,
      env: {
        WEB_HOST: HOST,
        WEB_PORT: String(settings.WEB_PORT),
        WEB_METRICS_PORT: String(settings.WEB_METRICS_PORT),
      },
    },
  ];
  for (const service of services) {
    const child = spawnService(service.name, entryOf(`services/${service.name}/src/main.ts`), {
      ...shared,
      ...googleEnv,
      ...service.env,
    });
    children.push(child);
  }
  for (const [index, service] of services.entries()) {
    const child = children[children.length - services.length + index]!;
    await waitUntilReady(`http://${HOST}:${service.port}/readyz`, child);
  }
  for (const child of children) {
    void child.exited.then((code) => {
      if (stopping) return;
      log(`${child.name} exited unexpectedly (code ${code}); stopping the stack`);
      void stopAll(1);
    });
  }

  gateway = createGateway({
    auth: `http://${HOST}:${settings.AUTH_PORT}`,
    mcp: `http://${HOST}:${settings.MCP_PORT}`,
    web: `http://${HOST}:${settings.WEB_PORT}`,
  });
  await listen(gateway, settings.PORT, HOST, 'PORT');
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  log(`Sheetgate ready at ${baseUrl} (MCP endpoint ${baseUrl}/api/mcp) in ${seconds} s — Ctrl-C stops it`);
} catch (error) {
  log(`could not start: ${(error as Error).message}`);
  await stopAll(1);
}

function log(line: string) {
  process.stdout.write(`[start] ${line}\n`);
}

function fail(message: string): never {
  process.stderr.write(
    `${message
      .split('\n')
      .map((line) => `start: ${line}`)
      .join('\n')}\n`,
  );
  process.exit(1);
}
