/**
 * `pnpm start`: the whole stack on one laptop (docs/design.md §6, §10). Starts what is not
 * configured (embedded PostgreSQL, the Google emulator), the three services as separate processes
 * and the gateway, prints one `ready` line, and stops everything on Ctrl-C (exiting 0 and saying
 * so). Everything starts at once: the embedded PostgreSQL listens before it is open, so auth loads
 * its modules and connects while PGlite opens (its first queries wait for the opening), beside the
 * emulator, mcp and web. `pnpm start --timings` prints when each part was ready.
 */
import { randomBytes } from 'node:crypto';
import { chmod, mkdir } from 'node:fs/promises';
import type http from 'node:http';
import path from 'node:path';
// The settings and server helpers alone (not the package's index, whose logging, metrics and Koa
// modules would cost CPU before the services could be started).
import { closeHttpServer, listen } from '@sheetgate/service-runtime/http-server';
import { loadSettingsOrExit } from '@sheetgate/service-runtime/settings';
import { authMigrationFiles } from './auth-migrations.ts';
import { type ChildService, spawnService, waitUntilReady } from './child-service.ts';
import { defaultTemplateDir } from './database-template.ts';
import { type EmbeddedPostgres, listenEmbeddedPostgres } from './embedded-postgres.ts';
import { loadOrCreateLocalSecrets } from './local-secrets.ts';
import { findTakenPorts } from './ports.ts';
import { bundledEntry, type StackService, serviceSource, stackServices } from './service-bundles.ts';
import { stackPortSettings, stackSettingsSchema, usesGoogleEmulator } from './stack-settings.ts';

const HOST = '127.0.0.1';

const settings = loadSettingsOrExit('start', stackSettingsSchema);
const showTimings = process.argv.includes('--timings');
const timings: Array<[what: string, seconds: number]> = [];
/** Notes when a part was ready, in seconds since this process began (Node's own start included). */
const mark = (what: string): void => {
  timings.push([what, process.uptime()]);
};
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
const sharedPorts = new Set(
  wantedPorts
    .filter(({ port }, index) => wantedPorts.findIndex((other) => other.port === port) !== index)
    .map(({ port }) => port),
);
if (sharedPorts.size > 0) {
  fail(
    [...sharedPorts]
      .map((port) => {
        const names = wantedPorts.filter((wanted) => wanted.port === port).map((wanted) => wanted.setting);
        return `${names.join(', ')} share port ${port}: each part needs a port of its own`;
      })
      .join('\n'),
  );
}
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

const children: ChildService[] = [];
let embeddedPostgres: EmbeddedPostgres | undefined;
let gateway: http.Server | undefined;
let stopping = false;

async function stopAll(exitCode: number): Promise<never> {
  stopping = true;
  if (gateway) await closeHttpServer(gateway);
  await Promise.all(children.map((child) => child.stop()));
  await embeddedPostgres?.close();
  if (exitCode === 0) log('stopped');
  process.exit(exitCode);
}
// Ctrl-C reaches every process of the terminal's group, and pnpm passes it on once more: the first
// signal stops the stack, a repeat while it stops changes nothing (by default it would end this
// process with the signal, leaving pnpm to report a failed command).
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (!stopping) void stopAll(0);
  });
}

try {
  // The data folder holds the database files and local-secrets.json: this user's alone.
  await mkdir(path.resolve(settings.DATA_DIR), { recursive: true, mode: 0o700 });
  await chmod(path.resolve(settings.DATA_DIR), 0o700);
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
    // Which Google scopes auth asks for (standard | picked-files), for auth, mcp and web alike.
    GOOGLE_SCOPE_MODE: settings.GOOGLE_SCOPE_MODE,
  };
  // Each service runs from its bundle (service-bundles.ts), made again here if its sources changed.
  const bundling = Promise.all(
    stackServices
      .filter((name) => withEmulator || name !== 'google')
      .map(async (name) => {
        const bundled = await bundledEntry(serviceSource(name), log);
        if (bundled.made) log(`bundled ${name} (${bundled.made})`);
        return [name, bundled.entry] as const;
      }),
  ).then((pairs) => new Map(pairs));
  const ready: Array<Promise<void>> = [];
  const start = (name: StackService, entry: string, env: Record<string, string>, readyUrl: string) => {
    const child = spawnService(name, entry, { ...shared, ...env });
    children.push(child);
    ready.push(waitUntilReady(readyUrl, child).then(() => mark(`${name} ready`)));
  };

  let googleEnv: Record<string, string> = {};
  if (withEmulator) {
    const emulatorUrl = `http://localhost:${settings.GOOGLE_EMULATOR_PORT}`;
    googleEnv = {
      GOOGLE_CLIENT_ID: 'sheetgate-local.apps.googleusercontent.com',
      GOOGLE_CLIENT_SECRET: randomBytes(24).toString('base64url'),
      GOOGLE_EMULATOR_URL: emulatorUrl,
      // The dashboard's Google Picker (GOOGLE_SCOPE_MODE=picked-files) is the emulator's stand-in,
      // which takes any API key and app id.
      GOOGLE_PICKER_SCRIPT_URL: `${emulatorUrl}/js/api.js`,
      GOOGLE_PICKER_API_KEY: process.env.GOOGLE_PICKER_API_KEY ?? 'emulator-picker-api-key',
      GOOGLE_PICKER_APP_ID: process.env.GOOGLE_PICKER_APP_ID ?? '100000000001',
    };
  }
  let databaseUrl = settings.DATABASE_URL;
  if (!databaseUrl) {
    const dataDir = path.resolve(settings.DATA_DIR, 'postgres');
    // Listening at once; auth connects while PGlite opens, its queries waiting for the opening.
    embeddedPostgres = await listenEmbeddedPostgres({
      dataDir,
      socketDir: path.resolve(settings.DATA_DIR, 'postgres-socket'),
      templateDir: await defaultTemplateDir(),
      templateMigrations: await authMigrationFiles(),
      onNote: log,
    });
    databaseUrl = embeddedPostgres.url;
    ready.push(
      embeddedPostgres.opened.then(() => {
        mark('embedded PostgreSQL open');
        log(`embedded PostgreSQL (PGlite) with data in ${dataDir}`);
      }),
    );
  }
  const entries = await bundling;
  const entryOf = (name: StackService) => entries.get(name) ?? serviceSource(name);
  start(
    'auth',
    entryOf('auth'),
    {
      ...googleEnv,
      AUTH_HOST: HOST,
      AUTH_PORT: String(settings.AUTH_PORT),
      AUTH_GRPC_PORT: String(settings.AUTH_GRPC_PORT),
      AUTH_METRICS_PORT: String(settings.AUTH_METRICS_PORT),
      DATABASE_URL: databaseUrl,
      ...(settings.REDIS_URL ? { REDIS_URL: settings.REDIS_URL } : {}),
      ...(settings.AUTH_SIGNING_KEYS ? { AUTH_SIGNING_KEYS: settings.AUTH_SIGNING_KEYS } : {}),
    },
    `http://${HOST}:${settings.AUTH_PORT}/readyz`,
  );
  if (withEmulator) {
    const emulatorUrl = `http://localhost:${settings.GOOGLE_EMULATOR_PORT}`;
    start(
      'google',
      entryOf('google'),
      {
        ...googleEnv,
        GOOGLE_EMULATOR_PORT: String(settings.GOOGLE_EMULATOR_PORT),
        GOOGLE_EMULATOR_HOST: HOST,
        GOOGLE_EMULATOR_REDIRECT_URIS: `${baseUrl}/api/auth/google/callback`,
      },
      `http://${HOST}:${settings.GOOGLE_EMULATOR_PORT}/healthz`,
    );
    log(
      `Google emulator at ${emulatorUrl} (accounts: ${process.env.GOOGLE_EMULATOR_ACCOUNTS ?? 'alice@example.com, bob@example.com'})`,
    );
  }
  // mcp and web need nothing but auth, whose absence they wait out.
  start(
    'mcp',
    entryOf('mcp'),
    {
      ...googleEnv,
      MCP_HOST: HOST,
      MCP_PORT: String(settings.MCP_PORT),
      MCP_GRPC_PORT: String(settings.MCP_GRPC_PORT),
      MCP_METRICS_PORT: String(settings.MCP_METRICS_PORT),
    },
    `http://${HOST}:${settings.MCP_PORT}/readyz`,
  );
  start(
    'web',
    entryOf('web'),
    {
      ...googleEnv,
      WEB_HOST: HOST,
      WEB_PORT: String(settings.WEB_PORT),
      WEB_METRICS_PORT: String(settings.WEB_METRICS_PORT),
      // The dashboard's Undo is mcp's (ChangeUndoService).
      MCP_GRPC_ADDRESS: `${HOST}:${settings.MCP_GRPC_PORT}`,
    },
    `http://${HOST}:${settings.WEB_PORT}/readyz`,
  );

  // Until here: Node's own start, the launcher's modules, the port checks and the spawns.
  mark('services started');
  // Loaded while the services start (http-proxy-3 and the route table), not before them.
  const gatewayModule = import('./gateway.ts');
  for (const child of children) {
    void child.exited.then((code) => {
      if (stopping) return;
      log(`${child.name} exited unexpectedly (code ${code}); stopping the stack`);
      void stopAll(1);
    });
  }
  await Promise.all(ready);

  const { createGateway } = await gatewayModule;
  gateway = createGateway({
    auth: `http://${HOST}:${settings.AUTH_PORT}`,
    mcp: `http://${HOST}:${settings.MCP_PORT}`,
    web: `http://${HOST}:${settings.WEB_PORT}`,
  });
  await listen(gateway, settings.PORT, HOST, 'PORT');
  mark('gateway listening');
  if (showTimings) {
    for (const [what, seconds] of timings.sort((a, b) => a[1] - b[1]))
      log(`${seconds.toFixed(2).padStart(6)} s  ${what}`);
  }
  log(
    `Sheetgate ready at ${baseUrl} (MCP endpoint ${baseUrl}/api/mcp) in ${process.uptime().toFixed(1)} s — Ctrl-C stops it`,
  );
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
