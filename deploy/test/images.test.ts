/**
 * What goes into the container images, checked without a container engine: each Dockerfile's
 * shape (pnpm deploy --prod, non-root, HEALTHCHECK on the service's own /healthz, the entry
 * command), and then the build stage's own steps — `pnpm deploy` and
 * docker/unpack-workspace-packages.sh — into a temporary folder, from which the image's entry
 * command must start the service and answer /healthz.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import dockerignore from '@balena/dockerignore';
import type { ServiceName } from '@sheetgate/route-table';
import {
  createTestDatabase,
  freePort,
  generateLocalSecrets,
  type TestDatabase,
} from '@sheetgate/test-harness';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authSettingsSchema } from '../../services/auth/src/settings.ts';
import { mcpSettingsSchema } from '../../services/mcp/src/settings.ts';
import { webSettingsSchema } from '../../services/web/src/settings.ts';

const execFileAsync = promisify(execFile);
const deployDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const repoRoot = path.resolve(deployDir, '..');
const serviceNames: ServiceName[] = ['auth', 'mcp', 'web'];
const ports = {
  auth: {
    setting: 'AUTH_PORT',
    host: 'AUTH_HOST',
    fallback: authSettingsSchema.shape.AUTH_PORT.parse(undefined),
    grpc: authSettingsSchema.shape.AUTH_GRPC_PORT.parse(undefined),
    metrics: authSettingsSchema.shape.AUTH_METRICS_PORT.parse(undefined),
  },
  mcp: {
    setting: 'MCP_PORT',
    host: 'MCP_HOST',
    fallback: mcpSettingsSchema.shape.MCP_PORT.parse(undefined),
    grpc: mcpSettingsSchema.shape.MCP_GRPC_PORT.parse(undefined),
    metrics: mcpSettingsSchema.shape.MCP_METRICS_PORT.parse(undefined),
  },
  web: {
    setting: 'WEB_PORT',
    host: 'WEB_HOST',
    fallback: webSettingsSchema.shape.WEB_PORT.parse(undefined),
    grpc: undefined,
    metrics: webSettingsSchema.shape.WEB_METRICS_PORT.parse(undefined),
  },
} as const;

const dockerfile = (service: ServiceName) =>
  readFileSync(path.join(deployDir, 'docker', `${service}.Dockerfile`), 'utf8');

describe.each(serviceNames)('%s.Dockerfile', (service) => {
  const text = dockerfile(service);
  const stages = text.split(/^FROM /m).slice(1);

  it('builds with pnpm deploy --prod in one stage and runs on node:24-slim in another', () => {
    expect(text).toMatch(/^ARG NODE_IMAGE=node:24-slim$/m);
    expect(stages).toHaveLength(2);
    expect(stages[0]).toMatch(/^\$\{NODE_IMAGE\} AS build/);
    expect(stages[0]).toContain(
      `pnpm --filter @sheetgate/${service} deploy --legacy --prod --prefer-offline /out`,
    );
    expect(stages[0]).toContain('sh deploy/docker/unpack-workspace-packages.sh /out');
    expect(stages[1]).toMatch(/^\$\{NODE_IMAGE\}\n/);
    expect(stages[1]).toContain('COPY --from=build /out /app');
    expect(stages[1]).not.toMatch(/pnpm|corepack/);
  });

  it('runs as a numeric non-root user, listening on all interfaces on its own ports', () => {
    const users = [...stages[1]!.matchAll(/^USER (\S+)$/gm)].map((m) => m[1]);
    expect(users).toEqual(['1000:1000']);
    expect(stages[1]).toContain(`${ports[service].host}=0.0.0.0`);
    expect(stages[1]).toContain(`${ports[service].setting}=${ports[service].fallback}`);
    // The service port, its internal gRPC port if it has one, then the metrics port: what the
    // manifests name too.
    const { fallback, grpc, metrics } = ports[service];
    const exposed = [...stages[1]!.matchAll(/^EXPOSE (.+)$/gm)].map((m) => m[1]);
    expect(exposed).toEqual([[fallback, grpc, metrics].filter((port) => port !== undefined).join(' ')]);
  });

  it("checks health at the service's own /healthz with node's fetch, and starts with node src/main.ts", () => {
    const healthcheck = /^HEALTHCHECK .*\\\n\s+CMD (\[.*\])$/m.exec(stages[1]!);
    expect(healthcheck).not.toBeNull();
    const command = JSON.parse(healthcheck![1]!) as string[];
    expect(command.slice(0, 2)).toEqual(['node', '-e']);
    expect(command[2]).toContain(
      `fetch('http://127.0.0.1:'+(process.env.${ports[service].setting}||${ports[service].fallback})+'/healthz')`,
    );
    expect(stages[1]).toMatch(/^CMD \["node", "src\/main\.ts"\]$/m);
  });

  it('has a Dockerfile-specific .dockerignore that keeps dev-only code and local state out', () => {
    const ignore = readFileSync(path.join(deployDir, 'docker', `${service}.Dockerfile.dockerignore`), 'utf8');
    expect(ignore).toBe(readFileSync(path.join(deployDir, 'docker', 'auth.Dockerfile.dockerignore'), 'utf8'));
    const lines = ignore.split('\n');
    for (const pattern of ['**/node_modules', '**/.data', '.git', '**/test', 'packages/google-emulator/**']) {
      expect(lines).toContain(pattern);
    }
    expect(lines).toContain('!deploy/docker/unpack-workspace-packages.sh');
  });
});

/** The patterns of a .dockerignore file, without its comments and blank lines. */
const patternsOf = (file: string) =>
  readFileSync(file, 'utf8')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));

/**
 * The files a builder would send as the context of `docker build .` at the repository root under
 * `ignoreFile`, by Docker's own matching rules (@balena/dockerignore). Directories excluded with
 * no exception pattern inside them are not walked (node_modules).
 */
function buildContext(root: string, ignoreFile: string): string[] {
  const patterns = patternsOf(ignoreFile);
  // A CommonJS module whose types declare a default export: under Node ESM that is `.default`.
  const rules = dockerignore.default({ ignorecase: false }).add(patterns);
  const exceptions = patterns.filter((p) => p.startsWith('!')).map((p) => p.slice(1));
  const files: string[] = [];
  const walk = (relative: string) => {
    for (const entry of readdirSync(path.join(root, relative), { withFileTypes: true })) {
      const child = relative ? `${relative}/${entry.name}` : entry.name;
      if (entry.isDirectory()) {
        const reopened = exceptions.some((exception) => exception.startsWith(`${child}/`));
        if (!rules.ignores(child) || reopened) walk(child);
      } else if (!rules.ignores(child)) {
        files.push(child);
      }
    }
  };
  walk('');
  return files.sort();
}

describe('build context', () => {
  const rootIgnore = path.join(repoRoot, '.dockerignore');

  it('has a root .dockerignore (classic builders read only that) with the per-Dockerfile patterns', () => {
    for (const service of serviceNames) {
      expect(patternsOf(rootIgnore), service).toEqual(
        patternsOf(path.join(deployDir, 'docker', `${service}.Dockerfile.dockerignore`)),
      );
    }
  });

  it('keeps local state, secrets and dev-only code out of a context, and what the build needs in', () => {
    const tree = mkdtempSync(path.join(os.tmpdir(), 'sheetgate-context-'));
    const kept = [
      'package.json',
      'pnpm-lock.yaml',
      'pnpm-workspace.yaml',
      'tsconfig.base.json',
      'services/auth/package.json',
      'services/auth/src/main.ts',
      'services/auth/migrations/1_init.sql',
      'packages/service-runtime/src/index.ts',
      'packages/google-emulator/package.json',
      'packages/enterprise-idp-emulator/package.json',
      'packages/test-harness/package.json',
      'proto/gen/sheetgate/v1/token_broker.ts',
      'test-e2e/package.json',
      'deploy/package.json',
      'deploy/docker/unpack-workspace-packages.sh',
    ];
    const left = [
      'node_modules/.pnpm/lock.yaml',
      'services/auth/node_modules/pg/index.js',
      '.data/local-secrets.json',
      '.data/postgres/base/1',
      'services/auth/.data/x',
      '.env',
      'services/mcp/.env.local',
      '.git/config',
      '.tools/node/bin/node',
      '.ci/run',
      'tmp/sheetgate-deploy-x/auth/package.json',
      'coverage/index.html',
      'test-results/report.json',
      'npm-debug.log',
      'services/auth/test/auth.test.ts',
      'services/mcp/src/tools/a1.test.ts',
      'services/mcp/bench/run.ts',
      'docs/architecture.md',
      'test-e2e/metrics.test.ts',
      'packages/google-emulator/src/main.ts',
      'packages/enterprise-idp-emulator/src/main.ts',
      'packages/local-stack/src/start.js',
      'packages/test-harness/src/index.ts',
      'deploy/compose.env',
      'deploy/k8s/base/auth.yaml',
      'deploy/docker/auth.Dockerfile',
    ];
    try {
      for (const file of [...kept, ...left]) {
        mkdirSync(path.dirname(path.join(tree, file)), { recursive: true });
        writeFileSync(path.join(tree, file), 'x');
      }
      expect(buildContext(tree, rootIgnore)).toEqual([...kept].sort());
    } finally {
      rmSync(tree, { recursive: true, force: true });
    }
  });

  it('sends this repository without node_modules, .data, .git or tests, with every service', () => {
    const context = buildContext(repoRoot, rootIgnore);
    expect(context.filter((file) => /(^|\/)(node_modules|\.data|\.git|\.tools|tmp)\//.test(file))).toEqual(
      [],
    );
    expect(context.filter((file) => /\.test\.ts$|(^|\/)test\//.test(file))).toEqual([]);
    expect(context).toEqual(
      expect.arrayContaining([
        'package.json',
        'pnpm-lock.yaml',
        'deploy/docker/unpack-workspace-packages.sh',
        ...serviceNames.map((service) => `services/${service}/src/main.ts`),
      ]),
    );
  });
});

/** `pnpm` as this test run was started (pnpm vitest / pnpm test), else from PATH. */
function pnpmCommand(): [string, string[]] {
  const execPath = process.env.npm_execpath;
  return execPath && /pnpm/.test(execPath) ? [process.execPath, [execPath]] : ['pnpm', []];
}

/**
 * Runs a command to completion without blocking this process: the embedded PostgreSQL of
 * createTestDatabase() may be served from it.
 */
async function run(command: string, args: string[], options: { cwd: string; env?: NodeJS.ProcessEnv }) {
  try {
    const { stdout } = await execFileAsync(command, args, { ...options, encoding: 'utf8', timeout: 60_000 });
    return stdout;
  } catch (error) {
    const { stdout, stderr, code } = error as { stdout?: string; stderr?: string; code?: unknown };
    throw new Error(`${command} ${args.join(' ')} failed (${String(code)}):\n${stdout}\n${stderr}`);
  }
}

/** The build stage's steps, into `out`: pnpm deploy, then workspace packages out of node_modules. */
async function deployService(service: ServiceName, out: string): Promise<void> {
  const [pnpm, prefix] = pnpmCommand();
  await run(
    pnpm,
    [...prefix, '--filter', `@sheetgate/${service}`, 'deploy', '--legacy', '--prod', '--prefer-offline', out],
    {
      cwd: repoRoot,
    },
  );
  await run('sh', [path.join(deployDir, 'docker/unpack-workspace-packages.sh'), out], { cwd: repoRoot });
  rmSync(path.join(out, 'test'), { recursive: true, force: true });
  rmSync(path.join(out, 'bench'), { recursive: true, force: true });
}

interface Started {
  child: ChildProcess;
  output: string[];
}

/** The image's CMD (node src/main.ts) in `dir`, with only `env` (and PATH) set, as in a container. */
function startEntryCommand(dir: string, env: Record<string, string>): Started {
  const output: string[] = [];
  const child = spawn(process.execPath, ['src/main.ts'], {
    cwd: dir,
    env: { PATH: process.env.PATH ?? '', NODE_ENV: 'production', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (chunk: Buffer) => output.push(chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => output.push(chunk.toString()));
  return { child, output };
}

async function healthz(started: Started, port: number, timeoutMs = 30_000): Promise<unknown> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (started.child.exitCode !== null) {
      throw new Error(`exited with ${started.child.exitCode}:\n${started.output.join('')}`);
    }
    try {
      const response = await fetch(`http://127.0.0.1:${port}/healthz`);
      if (response.ok) return response.json();
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`no /healthz answer within ${timeoutMs} ms:\n${started.output.join('')}`);
}

/** prom-client made it into the production folder: /metrics answers with the service's series. */
async function expectMetrics(port: number, service: ServiceName): Promise<void> {
  const response = await fetch(`http://127.0.0.1:${port}/metrics`);
  expect(response.status).toBe(200);
  const text = await response.text();
  expect(text).toContain('# TYPE sheetgate_http_requests_total counter');
  expect(text).toMatch(
    new RegExp(`^sheetgate_http_requests_total\\{[^}]*route="/healthz"[^}]*service="${service}"`, 'm'),
  );
}

async function stop(started: Started | undefined): Promise<void> {
  if (!started || started.child.exitCode !== null) return;
  const exited = new Promise((resolve) => started.child.once('exit', resolve));
  started.child.kill('SIGTERM');
  await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 10_000))]);
  if (started.child.exitCode === null) started.child.kill('SIGKILL');
}

describe('images started from a pnpm deploy folder (no container engine needed)', () => {
  const workDir = mkdtempSync(path.join(os.tmpdir(), 'sheetgate-deploy-'));
  const folders = Object.fromEntries(serviceNames.map((s) => [s, path.join(workDir, s)])) as Record<
    ServiceName,
    string
  >;
  const running: Started[] = [];
  let database: TestDatabase | undefined;

  beforeAll(async () => {
    for (const service of serviceNames) await deployService(service, folders[service]);
  }, 120_000);

  afterAll(async () => {
    await Promise.all(running.map(stop));
    await database?.close();
    rmSync(workDir, { recursive: true, force: true });
    // pnpm deploy (10.x) also writes the deployed package's bin shims under <repo>/tmp/<same
    // folder name>; nothing else uses them.
    rmSync(path.join(repoRoot, 'tmp', path.basename(workDir)), { recursive: true, force: true });
  });

  it.each(serviceNames)(
    '%s: no dev-only package and no workspace TypeScript under node_modules',
    (service) => {
      const store = readdirSync(path.join(folders[service], 'node_modules/.pnpm'));
      expect(store.filter((entry) => /google-emulator|test-harness|local-stack|vitest/.test(entry))).toEqual(
        [],
      );
      const workspace = readdirSync(path.join(folders[service], 'workspace')).sort();
      expect(workspace).toEqual(['proto', 'service-runtime']);
      expect(existsSync(path.join(folders[service], 'node_modules/@sheetgate/google-emulator'))).toBe(false);
    },
  );

  it.each(['mcp', 'web'] as const)(
    '%s: node src/main.ts answers /healthz and /metrics with INTERNAL_SERVICE_TOKEN only',
    async (service) => {
      const port = await freePort();
      const metricsPort = await freePort();
      const started = startEntryCommand(folders[service], {
        INTERNAL_SERVICE_TOKEN: randomBytes(32).toString('base64url'),
        [ports[service].setting]: String(port),
        [`${service.toUpperCase()}_METRICS_PORT`]: String(metricsPort),
      });
      running.push(started);
      expect(await healthz(started, port)).toEqual({ status: 'ok' });
      await expectMetrics(metricsPort, service);
      await stop(started);
      expect(started.child.exitCode, started.output.join('')).toBe(0);
    },
  );

  it('auth: the migration command, then node src/main.ts, answer on a fresh database', async () => {
    database = await createTestDatabase();
    const secrets = {
      ...generateLocalSecrets(),
      DATABASE_URL: database.url,
      INTERNAL_SERVICE_TOKEN: randomBytes(32).toString('base64url'),
      GOOGLE_CLIENT_ID: 'deploy-test.apps.googleusercontent.com',
      GOOGLE_CLIENT_SECRET: randomBytes(16).toString('hex'),
    };
    // The Job's command (deploy/k8s/base/migrate-job.yaml, compose's migrate service).
    await run(process.execPath, ['src/db/migrate-cli.ts'], {
      cwd: folders.auth,
      env: {
        PATH: process.env.PATH ?? '',
        NODE_ENV: 'production',
        DATABASE_URL: database.url,
        LOG_LEVEL: 'warn',
      },
    });
    const port = await freePort();
    const metricsPort = await freePort();
    const started = startEntryCommand(folders.auth, {
      ...secrets,
      AUTH_PORT: String(port),
      AUTH_GRPC_PORT: String(await freePort()),
      AUTH_METRICS_PORT: String(metricsPort),
    });
    running.push(started);
    expect(await healthz(started, port, 60_000)).toEqual({ status: 'ok' });
    await expectMetrics(metricsPort, 'auth');
    const keys = await run(process.execPath, ['src/signing-keys/rotate-cli.ts', 'list'], {
      cwd: folders.auth,
      env: {
        PATH: process.env.PATH ?? '',
        DATABASE_URL: database.url,
        AUTH_ENCRYPTION_KEYS: secrets.AUTH_ENCRYPTION_KEYS,
        LOG_LEVEL: 'warn',
      },
    });
    expect(keys).toMatch(/\tES256\t/);
    // The encryption-key rotation command (deploy/README.md) runs from the image's files too.
    const resealed = await run(process.execPath, ['src/crypto/reseal-cli.ts'], {
      cwd: folders.auth,
      env: {
        PATH: process.env.PATH ?? '',
        DATABASE_URL: database.url,
        AUTH_ENCRYPTION_KEYS: secrets.AUTH_ENCRYPTION_KEYS,
        LOG_LEVEL: 'warn',
      },
    });
    expect(resealed).toContain('signing keys: 0 re-encrypted, 0 unreadable');
    await stop(started);
  }, 120_000);
});
