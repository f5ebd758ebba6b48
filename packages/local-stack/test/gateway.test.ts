import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolveRoute, routeTable, type ServiceName } from '@sheetgate/route-table';
import { closeHttpServer, listen } from '@sheetgate/service-runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// mcp's own settings, read as deploy/test reads them: the gateway mirrors its body ceiling.
import { mcpSettingsSchema, requestBodyCeiling } from '../../../services/mcp/src/settings.ts';
import { createGateway, GATEWAY_BODY_LIMIT } from '../src/gateway.ts';

// biome-ignore lint/suspicious/noExplicitAny: tests assert the shape with expect
const readJsonBody = (response: Response): Promise<any> => response.json();

// Three real upstream servers that say who they are and what they were sent.
const upstreams = new Map<ServiceName, http.Server>();
let gateway: http.Server;
let gatewayUrl: string;

async function startUpstream(name: ServiceName): Promise<string> {
  const server = http.createServer((req, res) => {
    res.setHeader('content-type', 'application/json');
    res.end(
      JSON.stringify({
        service: name,
        url: req.url,
        method: req.method,
        forwardedHost: req.headers['x-forwarded-host'],
        forwardedProto: req.headers['x-forwarded-proto'],
        forwardedFor: req.headers['x-forwarded-for'],
      }),
    );
  });
  await listen(server, 0, '127.0.0.1', 'TEST');
  upstreams.set(name, server);
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

beforeAll(async () => {
  const origins = {
    auth: await startUpstream('auth'),
    mcp: await startUpstream('mcp'),
    web: await startUpstream('web'),
  };
  gateway = createGateway(origins);
  await listen(gateway, 0, '127.0.0.1', 'PORT');
  gatewayUrl = `http://127.0.0.1:${(gateway.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await closeHttpServer(gateway);
  await Promise.all([...upstreams.values()].map((server) => closeHttpServer(server)));
});

/**
 * Runs `use` against a gateway of its own in front of one service that answers with `handler` and
 * keeps idle connections 2 s (announcing `Keep-Alive: timeout=2`), both closed afterwards.
 */
async function withGatewayOver(
  handler: http.RequestListener,
  use: (service: http.Server, mcpUrl: string) => Promise<void>,
): Promise<void> {
  const service = http.createServer(handler);
  service.keepAliveTimeout = 2_000;
  await listen(service, 0, '127.0.0.1', 'TEST');
  const origin = `http://127.0.0.1:${(service.address() as AddressInfo).port}`;
  const ownGateway = createGateway({ auth: origin, mcp: origin, web: origin });
  await listen(ownGateway, 0, '127.0.0.1', 'PORT');
  try {
    await use(service, `http://127.0.0.1:${(ownGateway.address() as AddressInfo).port}/api/mcp`);
  } finally {
    await closeHttpServer(ownGateway);
    await closeHttpServer(service);
  }
}

// Every route's own path, a path below it, and near misses, checked against the table itself.
const probePaths = routeTable.flatMap((route) => [
  route.path,
  `${route.path === '/' ? '' : route.path}/below/it`,
  `${route.path}x`,
]);

describe('local gateway follows the route table (docs/design.md §2)', () => {
  it.each(probePaths)('sends %s to the service the table names', async (path) => {
    const response = await fetch(`${gatewayUrl}${path}?q=1`, { method: 'POST', body: '{}' });
    const seen = await readJsonBody(response);
    if (resolveRoute(path)?.service === null) {
      expect(response.status).toBe(404);
      expect(seen).toEqual({ error: 'not_found', error_description: 'nothing is served at this path' });
      return;
    }
    expect(seen.service).toBe(resolveRoute(path)?.service);
    expect(seen.url).toBe(`${path}?q=1`);
    expect(seen.method).toBe('POST');
  });

  it('adds X-Forwarded headers as an ingress does', async () => {
    // fetch() may not set Host, so this request is made with node:http.
    const seen = await new Promise<Record<string, string>>((resolve, reject) => {
      http
        .get(`${gatewayUrl}/api/mcp`, { headers: { host: 'sheets.example.test' } }, (response) => {
          let body = '';
          response.on('data', (chunk) => {
            body += chunk;
          });
          response.on('end', () => resolve(JSON.parse(body)));
        })
        .on('error', reject);
    });
    expect(seen).toMatchObject({
      forwardedHost: 'sheets.example.test',
      forwardedProto: 'http',
      forwardedFor: '127.0.0.1',
    });
  });

  it('keeps connections alive on both sides, as an ingress does', async () => {
    // One client connection for several requests: the gateway must not answer `Connection: close`.
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const clientSockets = new Set<unknown>();
    const upstreamSockets = new Set<unknown>();
    const mcp = upstreams.get('mcp')!;
    const onConnection = (socket: unknown) => upstreamSockets.add(socket);
    mcp.on('connection', onConnection);
    try {
      for (let index = 0; index < 3; index++) {
        const [connection, keepAlive] = await new Promise<Array<string | undefined>>((resolve, reject) => {
          http
            .get(`${gatewayUrl}/api/mcp`, { agent }, (response) => {
              clientSockets.add(response.socket);
              response.resume();
              // Kept idle as long as the Ingress keeps it (nginx's 75 s), announced to the client.
              response.on('end', () =>
                resolve([response.headers.connection, String(response.headers['keep-alive'])]),
              );
            })
            .on('error', reject);
        });
        expect(connection).toBe('keep-alive');
        expect(keepAlive).toBe('timeout=75');
      }
    } finally {
      mcp.off('connection', onConnection);
      agent.destroy();
    }
    expect(clientSockets.size).toBe(1);
    // At most one new connection to the service (an earlier test's may be reused), not one each.
    expect(upstreamSockets.size).toBeLessThanOrEqual(1);
  });

  it('drops an idle connection to a service before the service does, so no request meets its close', async () => {
    // A service announcing `Keep-Alive: timeout=2` (and, as Node does, closing a second later):
    // the gateway must end the idle connection itself. If the service ends it, a request the
    // gateway sends in that moment fails with a reset (a 502 for a POST).
    await withGatewayOver(
      (_req, res) => res.end('{}'),
      async (service, url) => {
        const connectionEnded = new Promise<'by the gateway' | 'by the service'>((resolve) => {
          service.once('connection', (socket) => {
            let finFromGateway = false;
            socket.on('end', () => {
              finFromGateway = true;
            });
            socket.on('close', () => resolve(finFromGateway ? 'by the gateway' : 'by the service'));
          });
        });
        const response = await fetch(url, { method: 'POST', body: '{}' });
        expect(response.status).toBe(200);
        await response.arrayBuffer();
        expect(await connectionEnded).toBe('by the gateway');
      },
    );
  });

  it('waits for a slow answer longer than a kept-alive connection may idle', async () => {
    // The agent's idle timeout must not cut a request in flight: the service answers after the
    // 1 s an idle connection to it may last.
    await withGatewayOver(
      (_req, res) => setTimeout(() => res.end('{"slow":true}'), 1_500),
      async (_service, url) => {
        // The first request leaves a kept-alive connection with the 1 s idle timeout; the second reuses it.
        for (let round = 0; round < 2; round++) {
          const response = await fetch(url, { method: 'POST', body: '{}' });
          expect(response.status).toBe(200);
          expect(await readJsonBody(response)).toEqual({ slow: true });
        }
      },
    );
  });

  it("passes bodies up to mcp's request body ceiling and refuses one byte more with 413, as the Ingress does", async () => {
    const maxRequestBytes = mcpSettingsSchema.shape.MCP_MAX_REQUEST_BYTES.parse(undefined);
    expect(GATEWAY_BODY_LIMIT).toBe(requestBodyCeiling(maxRequestBytes));
    await withGatewayOver(
      (req, res) => {
        let length = 0;
        req.on('data', (chunk: Buffer) => {
          length += chunk.length;
        });
        req.on('end', () => res.end(JSON.stringify({ length })));
      },
      async (_service, url) => {
        const at = await fetch(url, { method: 'POST', body: Buffer.alloc(GATEWAY_BODY_LIMIT, 'a') });
        expect(await readJsonBody(at)).toEqual({ length: GATEWAY_BODY_LIMIT });
        const over = await fetch(url, { method: 'POST', body: Buffer.alloc(GATEWAY_BODY_LIMIT + 1, 'a') });
        expect(over.status).toBe(413);
        expect(await readJsonBody(over)).toEqual({
          error: 'payload_too_large',
          error_description: 'the request body is over 8 MiB',
        });
      },
    );
  });

  it('answers 502 in JSON when the upstream is down', async () => {
    const mcp = upstreams.get('mcp')!;
    await closeHttpServer(mcp);
    const response = await fetch(`${gatewayUrl}/api/mcp`, { method: 'POST' });
    expect(response.status).toBe(502);
    expect(await readJsonBody(response)).toEqual({
      error: 'bad_gateway',
      error_description: 'the upstream service did not answer',
    });
  });
});
