import http from 'node:http';
import { freePort } from '@sheetgate/test-harness';

export interface CredentialProxy {
  /** `http://localhost:<port>`: the stack's public origin (its BASE_URL) when started behind it. */
  url: string;
  /** Where requests go from now on: the stack's gateway, once it runs. */
  forwardTo(target: { host: string; port: number }): void;
  /** The bearer token added to `/api/mcp` requests that carry no credential of their own. */
  useBearer(token: string): void;
  close(): Promise<void>;
}

const MCP_PATH = '/api/mcp';

/**
 * A front door for a client that cannot send credentials (the MCP conformance suite): a bearer
 * token is added to `/api/mcp` requests that carry neither `Authorization` nor `x-api-key`, and
 * that is all it changes. Method, path, query, body and every other header, `Host` and `Origin`
 * included, go through as sent, and the answer comes back as the stack gave it (status, headers,
 * SSE streamed as it comes).
 *
 * The stack is started with this proxy's URL as its BASE_URL, so the proxy stands where the
 * Ingress stands in production: the origin a client names in `Host`/`Origin` is the stack's own
 * public origin, and the endpoint's origin check (DNS-rebinding protection) sees exactly what the
 * client sent, never a value the proxy made up. Tokens are minted for that origin too (the JWT's
 * audience is `BASE_URL/api/mcp`).
 */
export async function startCredentialProxy(): Promise<CredentialProxy> {
  let target: { host: string; port: number } | undefined;
  let bearer: string | undefined;
  // With a `timeout` Node's agent honours the stack's `Keep-Alive: timeout=5` and drops an idle
  // connection before the stack does; with none, a request sent as the stack closes it fails.
  const agent = new http.Agent({ keepAlive: true, timeout: 600_000 });

  const server = http.createServer((req, res) => {
    if (!target) {
      res.writeHead(503, { 'content-type': 'text/plain' }).end('the stack is not up yet');
      return;
    }
    const headers = [...req.rawHeaders];
    const path = (req.url ?? '/').split('?')[0];
    if (bearer && path === MCP_PATH && !req.headers.authorization && !req.headers['x-api-key']) {
      headers.push('Authorization', `Bearer ${bearer}`);
    }
    const upstream = http.request({
      host: target.host,
      port: target.port,
      method: req.method,
      path: req.url,
      headers, // raw, in order: Host stays the client's
      setHost: false,
      agent,
    });
    upstream.on('response', (answer) => {
      // Connection and Keep-Alive are hop-by-hop: this server says its own (the stack's 75 s,
      // passed on, had clients reuse connections this server had closed after its 5 s).
      const headers: string[] = [];
      for (let index = 0; index < answer.rawHeaders.length; index += 2) {
        const name = answer.rawHeaders[index]!;
        if (/^(connection|keep-alive)$/i.test(name)) continue;
        headers.push(name, answer.rawHeaders[index + 1]!);
      }
      res.writeHead(answer.statusCode ?? 502, answer.statusMessage, headers);
      answer.pipe(res);
    });
    upstream.on('error', (error) => {
      if (res.headersSent) res.destroy();
      else res.writeHead(502, { 'content-type': 'text/plain' }).end(`proxy: ${error.message}`);
    });
    // A client that goes away (an SSE stream it closes) ends the upstream request too.
    res.on('close', () => {
      if (!res.writableFinished) upstream.destroy();
    });
    req.pipe(upstream);
  });

  const port = await listenOnFreePort(server);
  return {
    url: `http://localhost:${port}`,
    forwardTo(next) {
      target = next;
    },
    useBearer(token) {
      bearer = token;
    },
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      agent.destroy();
    },
  };
}

async function listenOnFreePort(server: http.Server): Promise<number> {
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    try {
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, '127.0.0.1', () => {
          server.off('error', reject);
          resolve();
        });
      });
      return port;
    } catch (error) {
      if (attempt >= 3 || (error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error;
    }
  }
}
