import { randomBytes } from 'node:crypto';
import {
  createTestDatabase,
  generateLocalSecrets,
  type RunningService,
  readJson,
  startServiceProcess,
  type TestDatabase,
  withFreePorts,
} from '@sheetgate/test-harness';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// What each /readyz depends on, with auth stopped and started again (real processes):
// web needs auth's AccountService for every page, so it leaves the load balancer while auth is
// down; mcp answers JWTs and API keys with 503 + Retry-After meanwhile (it can vouch neither for
// revocations nor for keys), so its readiness depends on nothing and an auth outage does not empty it.

let database: TestDatabase;
let auth: RunningService | undefined;
let mcp: RunningService;
let web: RunningService;
const authEnv: Record<string, string> = {};
let authPort: number;

async function readiness(service: RunningService) {
  const response = await fetch(`${service.url}/readyz`);
  return { status: response.status, body: await readJson(response) };
}

/** Polls /readyz until it answers `status` (bounded): readiness follows auth within a probe or two. */
async function untilReadiness(service: RunningService, status: number) {
  let last = await readiness(service);
  for (let attempt = 0; attempt < 60 && last.status !== status; attempt++) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    last = await readiness(service);
  }
  return last;
}

beforeAll(async () => {
  database = await createTestDatabase();
  const serviceToken = randomBytes(32).toString('base64url');
  const secrets = generateLocalSecrets();
  auth = await withFreePorts(2, ([port, grpcPort]) => {
    authPort = port!;
    Object.assign(authEnv, {
      ...secrets,
      AUTH_PORT: String(port),
      AUTH_GRPC_PORT: String(grpcPort),
      DATABASE_URL: database.url,
      INTERNAL_SERVICE_TOKEN: serviceToken,
      GOOGLE_CLIENT_ID: 'readiness.apps.googleusercontent.com',
      GOOGLE_CLIENT_SECRET: randomBytes(16).toString('hex'),
    });
    return startServiceProcess('auth', authEnv, port!);
  });
  const shared = {
    INTERNAL_SERVICE_TOKEN: serviceToken,
    AUTH_GRPC_ADDRESS: `127.0.0.1:${authEnv.AUTH_GRPC_PORT}`,
  };
  mcp = await withFreePorts(1, ([mcpPort]) =>
    startServiceProcess(
      'mcp',
      { ...shared, MCP_PORT: String(mcpPort), AUTH_INTERNAL_URL: `http://127.0.0.1:${authPort}` },
      mcpPort!,
    ),
  );
  web = await withFreePorts(1, ([webPort]) =>
    startServiceProcess('web', { ...shared, WEB_PORT: String(webPort) }, webPort!),
  );
}, 90_000);

afterAll(async () => {
  await Promise.all([auth?.stop(), mcp?.stop(), web?.stop()]);
  await database?.close();
});

describe('readiness with auth stopped and started again', () => {
  it('all three ready while auth answers', async () => {
    expect(await readiness(web)).toEqual({ status: 200, body: { status: 'ready', checks: { auth: 'ok' } } });
    expect(await readiness(mcp)).toEqual({ status: 200, body: { status: 'ready', checks: {} } });
  });

  it('web is not ready without auth; mcp stays ready', async () => {
    await auth!.stop();
    auth = undefined;
    expect(await untilReadiness(web, 503)).toEqual({
      status: 503,
      body: { status: 'not_ready', checks: { auth: 'failing' } },
    });
    // Alive all the same: liveness must not restart a pod for a dependency's outage.
    expect((await fetch(`${web.url}/healthz`)).status).toBe(200);
    expect((await readiness(mcp)).status).toBe(200);
  });

  it('web is ready again once auth is back', async () => {
    auth = await startServiceProcess('auth', authEnv, authPort);
    expect((await untilReadiness(web, 200)).body).toEqual({ status: 'ready', checks: { auth: 'ok' } });
  });

  it('a web whose service credential auth refuses is not ready', async () => {
    const wrong = await withFreePorts(1, ([port]) =>
      startServiceProcess(
        'web',
        {
          WEB_PORT: String(port),
          INTERNAL_SERVICE_TOKEN: randomBytes(32).toString('base64url'),
          AUTH_GRPC_ADDRESS: `127.0.0.1:${authEnv.AUTH_GRPC_PORT}`,
        },
        port!,
        { waitFor: '/healthz' },
      ),
    );
    try {
      expect(await readiness(wrong)).toEqual({
        status: 503,
        body: { status: 'not_ready', checks: { auth: 'failing' } },
      });
    } finally {
      await wrong.stop();
    }
  });
});
