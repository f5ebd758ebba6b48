import { randomBytes } from 'node:crypto';
import net from 'node:net';
import {
  createTestDatabase,
  createTestRedis,
  type FreezableRelay,
  generateLocalSecrets,
  type RunningService,
  startFreezableRelay,
  startServiceProcess,
  type TestDatabase,
  type TestRedis,
  withFreePorts,
} from '@sheetgate/test-harness';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// SIGTERM on a real web process while a request is in flight (docs/architecture.md, "Services at
// run time": stop accepting, finish in-flight requests, close pools). Web talks to a real auth
// process, its gRPC connection going through a freezable relay: frozen, the relay holds the
// request's AccountService call (auth never sees it) until the test has seen web's port refuse new
// connections; thawed, auth answers.
// Web gives each GetSession 2 s (its client's default deadline), so the thaw has to come sooner.

/** A session cookie auth never issued: GetSession answers "signed out", and the login page shows. */
const HELD = `held-${randomBytes(12).toString('hex')}`;

let database: TestDatabase;
let redis: TestRedis;
let auth: RunningService;
let relay: FreezableRelay;
let web: RunningService;

function refusesConnections(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code === 'ECONNREFUSED'));
  });
}

beforeAll(async () => {
  [database, redis] = await Promise.all([createTestDatabase(), createTestRedis()]);
  const serviceToken = randomBytes(32).toString('base64url');
  const secrets = generateLocalSecrets();
  let authGrpcPort = 0;
  auth = await withFreePorts(2, ([authPort, grpcPort]) => {
    authGrpcPort = grpcPort!;
    return startServiceProcess(
      'auth',
      {
        ...secrets,
        AUTH_PORT: String(authPort),
        AUTH_GRPC_PORT: String(grpcPort),
        DATABASE_URL: database.url,
        ...(redis.url ? { REDIS_URL: redis.url } : {}),
        INTERNAL_SERVICE_TOKEN: serviceToken,
        GOOGLE_CLIENT_ID: 'graceful-shutdown.apps.googleusercontent.com',
        GOOGLE_CLIENT_SECRET: randomBytes(16).toString('hex'),
      },
      authPort!,
    );
  });
  relay = await startFreezableRelay({ host: '127.0.0.1', port: authGrpcPort });
  // Web's /readyz calls GetSession, so once it is ready its connection to auth (through the relay)
  // is open and idle: what web sends to auth after the freeze is the request's call.
  web = await withFreePorts(1, ([port]) =>
    startServiceProcess(
      'web',
      {
        WEB_PORT: String(port),
        BASE_URL: `http://127.0.0.1:${port}`,
        INTERNAL_SERVICE_TOKEN: serviceToken,
        AUTH_GRPC_ADDRESS: relay.address,
      },
      port!,
    ),
  );
}, 90_000);

afterAll(async () => {
  relay?.thaw();
  await web?.stop();
  await auth?.stop();
  await relay?.close();
  await Promise.all([database?.close(), redis?.close()]);
});

describe('SIGTERM', () => {
  it('finishes the request in flight with 200, refuses new connections meanwhile, and exits 0', async () => {
    const port = Number(new URL(web.url).port);
    relay.freeze();
    const inFlight = fetch(`${web.url}/login`, { headers: { cookie: `sg_session=${HELD}` } });
    let settled = false;
    void inFlight.then(
      () => (settled = true),
      () => (settled = true),
    );
    // The request's GetSession (its message carries the cookie) has reached the relay and is held.
    await relay.holding(HELD);

    web.process.kill('SIGTERM');
    let refused = false;
    for (let attempt = 0; attempt < 100 && !refused; attempt++) {
      refused = await refusesConnections(port);
      if (!refused) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(refused).toBe(true);
    expect(web.process.exitCode).toBeNull();
    expect(settled).toBe(false);

    relay.thaw();
    const response = await inFlight;
    expect(response.status).toBe(200);
    expect(await response.text()).toContain('Sign in with Google');
    expect(await web.exited).toBe(0);
    const log = web.output.join('\n');
    expect(log).toContain('"reason":"SIGTERM"');
    expect(log).toContain('"msg":"stopped"');
  });
});
