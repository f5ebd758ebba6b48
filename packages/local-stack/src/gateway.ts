import http from 'node:http';
import { resolveRoute, type ServiceName } from '@sheetgate/route-table';
import { createProxyServer } from 'http-proxy-3';

export type ServiceOrigins = Record<ServiceName, string>;

/**
 * The local stand-in for the Ingress: one origin that forwards each request to the service the
 * route table names, adding X-Forwarded-{For,Host,Proto} as an ingress controller does.
 */
export function createGateway(origins: ServiceOrigins): http.Server {
  // Connections to the services are kept alive, as an ingress keeps them: without an agent
  // http-proxy sends `Connection: close` upstream and passes the upstream's `close` back, so every
  // client request would cost two new TCP connections and no client could keep its own alive.
  const agent = new http.Agent({ keepAlive: true });
  const proxy = createProxyServer({ xfwd: true, proxyTimeout: 120_000, agent });
  proxy.on('error', (_error, _req, res) => {
    // An upstream that is down or restarting: answer as an ingress would, in JSON.
    if (res instanceof http.ServerResponse && !res.headersSent) {
      res.writeHead(502, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({ error: 'bad_gateway', error_description: 'the upstream service did not answer' }),
      );
    } else {
      res.destroy();
    }
  });
  const server = http.createServer((req, res) => {
    const path = pathOf(req.url);
    const route = path === undefined ? undefined : resolveRoute(path);
    if (!route) {
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: 'invalid_request', error_description: 'malformed request target' }));
      return;
    }
    if (route.service === null) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: 'not_found', error_description: 'nothing is served at this path' }));
      return;
    }
    proxy.web(req, res, { target: origins[route.service] });
  });
  server.on('close', () => agent.destroy());
  return server;
}

function pathOf(url: string | undefined): string | undefined {
  if (!url?.startsWith('/')) return undefined;
  const end = url.search(/[?#]/);
  return end === -1 ? url : url.slice(0, end);
}
