import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  closeHttpServer,
  createServiceServer,
  KEEP_ALIVE_TIMEOUT_MS,
  listen,
  PortInUseError,
} from '../src/http-server.ts';
import { healthRoutes } from '../src/http-service.ts';

// biome-ignore lint/suspicious/noExplicitAny: tests assert the shape with expect
const readJsonBody = (response: Response): Promise<any> => response.json();

const servers: http.Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => closeHttpServer(server)));
});

async function serve(handler: http.RequestListener): Promise<{ server: http.Server; url: string }> {
  const server = http.createServer(handler);
  servers.push(server);
  await listen(server, 0, '127.0.0.1', 'TEST_PORT');
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

describe('health endpoints', () => {
  it('answers /healthz always and /readyz by its checks', async () => {
    let databaseUp = true;
    const app = new Koa();
    app.use(
      healthRoutes([
        { name: 'postgres', check: async () => {} },
        {
          name: 'cache',
          check: async () => {
            if (!databaseUp) throw new Error('down');
          },
        },
      ]),
    );
    const { url } = await serve(app.callback());
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    const ready = await fetch(`${url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await readJsonBody(ready)).toEqual({ status: 'ready', checks: { postgres: 'ok', cache: 'ok' } });
    databaseUp = false;
    const notReady = await fetch(`${url}/readyz`);
    expect(notReady.status).toBe(503);
    expect((await readJsonBody(notReady)).checks).toEqual({ postgres: 'ok', cache: 'failing' });
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
  });
});

describe('kept-alive connections', () => {
  it('are kept idle longer than a proxy in front keeps its own (60 s), and say so', async () => {
    const server = createServiceServer((_req, res) => res.end('ok'));
    servers.push(server);
    await listen(server, 0, '127.0.0.1', 'TEST_PORT');
    const response = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
    await response.text();
    // A proxy (or Node's agent) reads this and drops an idle connection before the service does.
    expect(response.headers.get('keep-alive')).toBe('timeout=65');
    expect(KEEP_ALIVE_TIMEOUT_MS).toBeGreaterThan(60_000);
    expect(server.headersTimeout).toBeGreaterThan(KEEP_ALIVE_TIMEOUT_MS);
  });
});

describe('graceful shutdown', () => {
  it('finishes in-flight requests and refuses new connections', async () => {
    // The handler answers only once the test lets it, after the close has begun.
    let arrived!: () => void;
    const handling = new Promise<void>((resolve) => {
      arrived = resolve;
    });
    let release!: () => void;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    const { server, url } = await serve((_req, res) => {
      arrived();
      void released.then(() => res.end('finished'));
    });
    const inFlight = fetch(url).then(async (response) => [response.status, await response.text()]);
    await handling;
    const closed = closeHttpServer(server);
    await expect(fetch(url)).rejects.toThrow();
    release();
    expect(await inFlight).toEqual([200, 'finished']);
    await closed;
    expect(server.listening).toBe(false);
  });

  it('closes while a client keeps sending on a kept-alive connection, answering each request whole', async () => {
    const { server, url } = await serve((_req, res) => {
      setTimeout(() => res.end('answered'), 10);
    });
    let sending = true;
    const statuses: Array<number | string> = [];
    const client = (async () => {
      while (sending) {
        try {
          const response = await fetch(url);
          statuses.push(`${response.status} ${await response.text()}`);
        } catch {
          statuses.push('refused');
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
      }
    })();
    // The client is sending request after request on its kept-alive connection.
    await vi.waitFor(
      () => expect(statuses.filter((status) => status === '200 answered').length).toBeGreaterThan(2),
      {
        timeout: 5_000,
        interval: 5,
      },
    );
    // Before the fix the kept-alive connection carried requests for as long as they came.
    const closed = await Promise.race([
      closeHttpServer(server).then(() => 'closed'),
      new Promise((resolve) => setTimeout(() => resolve('still open after 10 s'), 10_000)),
    ]);
    sending = false;
    await client;
    expect(closed).toBe('closed');
    expect(statuses.filter((status) => status !== 'refused' && status !== '200 answered')).toEqual([]);
    expect(statuses).toContain('200 answered');
  }, 20_000);
});

describe('listen', () => {
  it('names the setting when the port is taken', async () => {
    const { server } = await serve((_req, res) => res.end());
    const port = (server.address() as AddressInfo).port;
    const second = http.createServer();
    const error = await listen(second, port, '127.0.0.1', 'AUTH_PORT').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(PortInUseError);
    expect((error as Error).message).toBe(
      `port ${port} is already in use (set AUTH_PORT to another port, or stop what is using it)`,
    );
  });
});
