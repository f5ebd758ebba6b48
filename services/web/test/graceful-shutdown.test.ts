import { randomBytes } from 'node:crypto';
import net from 'node:net';
import {
  accountService,
  type GetSessionResponse,
  type RunningGrpcServer,
  startGrpcServer,
} from '@sheetgate/proto';
import { freePort, type RunningService, startServiceProcess } from '@sheetgate/test-harness';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// SIGTERM on a real web process while a request is in flight (DESIGN: stop accepting, finish
// in-flight requests, close pools): the request's AccountService call is held by the gRPC server
// below until the test has seen the port refuse new connections.

const serviceToken = randomBytes(32).toString('base64url');
const HELD = 'held-session-cookie';

let grpc: RunningGrpcServer;
let web: RunningService;
let release: (() => void) | undefined;
let arrived!: Promise<void>;
let markArrived: () => void;

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
  arrived = new Promise((resolve) => {
    markArrived = resolve;
  });
  const signedOut: GetSessionResponse = { user: undefined, signOutCsrfToken: '' };
  grpc = await startGrpcServer({
    host: '127.0.0.1',
    port: 0,
    serviceToken,
    services: [
      accountService({
        getSession: (call, callback) => {
          if (call.request.sessionCookie !== HELD) return callback(null, signedOut);
          release = () => callback(null, signedOut);
          markArrived();
        },
      }),
    ],
  });
  const port = await freePort();
  web = await startServiceProcess(
    'web',
    {
      WEB_PORT: String(port),
      BASE_URL: `http://127.0.0.1:${port}`,
      INTERNAL_SERVICE_TOKEN: serviceToken,
      AUTH_GRPC_ADDRESS: `127.0.0.1:${grpc.port}`,
    },
    port,
  );
});

afterAll(async () => {
  release?.();
  await web?.stop();
  await grpc?.close();
});

describe('SIGTERM', () => {
  it('finishes the request in flight with 200, refuses new connections meanwhile, and exits 0', async () => {
    const port = Number(new URL(web.url).port);
    const inFlight = fetch(`${web.url}/login`, { headers: { cookie: `sg_session=${HELD}` } });
    await arrived;

    web.process.kill('SIGTERM');
    let refused = false;
    for (let attempt = 0; attempt < 100 && !refused; attempt++) {
      refused = await refusesConnections(port);
      if (!refused) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(refused).toBe(true);
    expect(web.process.exitCode).toBeNull();

    release!();
    const response = await inFlight;
    expect(response.status).toBe(200);
    expect(await response.text()).toContain('Sign in with Google');
    expect(await web.exited).toBe(0);
    const log = web.output.join('\n');
    expect(log).toContain('"reason":"SIGTERM"');
    expect(log).toContain('"msg":"stopped"');
  });
});
