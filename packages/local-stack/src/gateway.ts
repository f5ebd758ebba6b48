import http from 'node:http';
import { resolveRoute, type ServiceName } from '@sheetgate/route-table';
import { keepIdleConnections } from '@sheetgate/service-runtime/http-server';
import { createProxyServer } from 'http-proxy-3';

export type ServiceOrigins = Record<ServiceName, string>;

/**
 * The largest request body passed on: mcp's request body ceiling (twice MCP_MAX_REQUEST_BYTES,
 * services/mcp/src/settings.ts), as the Ingress's `proxy-body-size: 8m` and compose's
 * `client_max_body_size 8m` are, so that mcp itself answers a call past its 4 MiB limit — a tool
 * error saying how many rows fit — and the gateway refuses only what mcp would not read.
 * test/gateway.test.ts holds it to mcp's setting.
 */
export const GATEWAY_BODY_LIMIT = 8 * 1024 * 1024;
/**
 * How much of a body nobody will read is still received and discarded, so that the answer reaches
 * the client and the connection stays usable; past this the connection is cut.
 */
const DRAIN_LIMIT = 16 * 1024 * 1024;
/** How long a service may take to answer, and a connection to it may stay silent mid-request. */
const PROXY_TIMEOUT = 120_000;
/**
 * How long a client's kept-alive connection may sit idle: nginx's default (`keepalive_timeout
 * 75s`), as the Ingress keeps it. Node's 5 s made a client that reuses a connection after a few
 * seconds' pause (a test waiting on a browser) race the gateway's close ("other side closed").
 */
const CLIENT_KEEP_ALIVE_TIMEOUT = 75_000;

/**
 * The local stand-in for the Ingress: one origin that forwards each request to the service the
 * route table names, adding X-Forwarded-{For,Host,Proto} as an ingress controller does.
 */
export function createGateway(origins: ServiceOrigins): http.Server {
  // Connections to the services are kept alive, as an ingress keeps them: without an agent
  // http-proxy sends `Connection: close` upstream and passes the upstream's `close` back, so every
  // client request would cost two new TCP connections and no client could keep its own alive.
  // The `timeout` matters: only with one does Node's agent honour a service's `Keep-Alive:
  // timeout=5` and drop an idle connection a second before the service does (with none it keeps
  // it until the service closes it, and a request sent in that moment fails: a 502 for a POST).
  const agent = new http.Agent({ keepAlive: true, timeout: PROXY_TIMEOUT });
  const proxy = createProxyServer({ xfwd: true, proxyTimeout: PROXY_TIMEOUT, agent });
  const upstreamRequests = new WeakMap<http.IncomingMessage, http.ClientRequest>();
  /** Requests whose service answered early: the answer waits for the end of the body. */
  const heldAnswers = new WeakSet<http.IncomingMessage>();
  /** Requests the gateway refused as too large: its 413 waits for the end of the body. */
  const refusedBodies = new WeakSet<http.IncomingMessage>();
  proxy.on('proxyReq', (upstream, req) => upstreamRequests.set(req, upstream));
  proxy.on('proxyRes', (answer, req, res) => {
    // Keep-Alive is hop-by-hop: the service's hint is about its connection with the gateway. The
    // client is told the gateway's own (passed on, a service's 65 s had clients reuse connections
    // the gateway had closed after its 5 s). Set on the answer once http-proxy has copied the
    // service's headers to it (it pipes right after): `answer.headers` must keep the service's
    // hint, which the gateway's agent reads to drop its idle connection in time.
    res.once('pipe', () => {
      if (res.headersSent) return;
      const closing = [res.getHeader('connection'), req.headers.connection].some(
        (value) => String(value).toLowerCase() === 'close',
      );
      if (closing) res.removeHeader('keep-alive');
      else res.setHeader('keep-alive', `timeout=${CLIENT_KEEP_ALIVE_TIMEOUT / 1000}`);
    });
    if (refusedBodies.has(req)) {
      // The gateway's own 413 is the answer: the service's is read and dropped, never piped.
      answer.resume();
      answer.pipe = (<T extends NodeJS.WritableStream>(destination: T) => destination) as typeof answer.pipe;
      return;
    }
    // The service answered before it had the whole body (an early 401, a 413). Closing the
    // connection while the client still sends would reset it (the client sees EPIPE or
    // ECONNRESET, not the answer; a kept-alive one loses its next request). So the rest of the
    // body is read and dropped, the answer held until then (http-proxy pipes it right after this
    // event), and sent with `Connection: close`.
    if (req.complete) return;
    heldAnswers.add(req);
    answer.headers.connection = 'close';
    // The service wants no more of the body, and its connection, mid-request, cannot be reused.
    req.unpipe();
    const upstream = upstreamRequests.get(req);
    res.once('finish', () => upstream?.destroy());
    discardRestOfBody(req);
    const pipe = answer.pipe.bind(answer);
    answer.pipe = (<T extends NodeJS.WritableStream>(destination: T) => {
      let sent = false;
      const send = () => {
        if (sent) return;
        sent = true;
        pipe(destination);
      };
      req.once('end', send);
      req.once('close', send);
      return destination;
    }) as typeof answer.pipe;
  });
  proxy.on('error', (_error, req, res) => {
    if (!(res instanceof http.ServerResponse)) {
      res.destroy();
      return;
    }
    if (!res.headersSent) {
      // An upstream that is down or restarting: answer as an ingress would, in JSON.
      answerJson(req, res, 502, {
        error: 'bad_gateway',
        error_description: 'the upstream service did not answer',
      });
      return;
    }
    // The upstream answered before it read the whole body, then its connection ended (it closed,
    // or refused the rest). Once its answer is through, only the rest of the body is left: read it
    // and drop it, so the client's connection stays usable for its next request.
    if (res.writableEnded) discardRestOfBody(req);
    else res.once('finish', () => discardRestOfBody(req));
  });
  const server = http.createServer((req, res) => {
    const path = pathOf(req.url);
    const route = path === undefined ? undefined : resolveRoute(path);
    if (!route) {
      answerJson(req, res, 400, { error: 'invalid_request', error_description: 'malformed request target' });
      return;
    }
    if (route.service === null) {
      answerJson(req, res, 404, { error: 'not_found', error_description: 'nothing is served at this path' });
      return;
    }
    const declared = Number(req.headers['content-length'] ?? 0);
    if (declared > GATEWAY_BODY_LIMIT) {
      // Answered once the client has sent the body (read and dropped), on a connection then
      // closed. Answered at once, Node's server stopped reading the rest: the client's upload,
      // and its next request on that connection, stalled until the idle timeout ended it. Past
      // DRAIN_LIMIT it is answered at once, and the connection cut once it is out.
      if (declared > DRAIN_LIMIT) refuseTooLarge(req, res);
      else {
        discardRestOfBody(req);
        req.once('end', () => refuseTooLarge(req, res));
      }
      return;
    }
    // A chunked body declares no length: counted as it passes, and cut off past the limit.
    let received = 0;
    req.on('data', (chunk: Buffer) => {
      received += chunk.length;
      if (received <= GATEWAY_BODY_LIMIT || received - chunk.length > GATEWAY_BODY_LIMIT) return;
      req.unpipe();
      const upstream = upstreamRequests.get(req);
      discardRestOfBody(req);
      if (!res.headersSent && !heldAnswers.has(req)) {
        // Answered once the client has sent the rest (up to DRAIN_LIMIT): answering while it still
        // sends, then closing, would reset the connection before the client reads the 413.
        refusedBodies.add(req);
        req.once('end', () => refuseTooLarge(req, res));
      }
      // The service's request would wait for the rest of its body: end it once ours is answered.
      if (res.writableFinished) upstream?.destroy();
      else res.once('finish', () => upstream?.destroy());
    });
    proxy.web(req, res, { target: origins[route.service] });
  });
  keepIdleConnections(server, CLIENT_KEEP_ALIVE_TIMEOUT);
  server.on('close', () => agent.destroy());
  return server;
}

const TOO_LARGE = {
  error: 'payload_too_large',
  error_description: `the request body is over ${GATEWAY_BODY_LIMIT / (1024 * 1024)} MiB`,
};

/** The gateway's 413, on a connection then closed (the rest of such a body is not wanted). */
const refuseTooLarge = (req: http.IncomingMessage, res: http.ServerResponse) =>
  answerJson(req, res, 413, TOO_LARGE, { connection: 'close' });

/** Answers here (not from a service), reading and dropping whatever body is left. */
function answerJson(
  req: http.IncomingMessage,
  res: http.ServerResponse,
  status: number,
  body: object,
  headers: Record<string, string> = {},
) {
  if (res.headersSent) return;
  // A service's answer that arrived meanwhile may have set its headers here: none of them apply.
  for (const name of res.getHeaderNames()) res.removeHeader(name);
  // The reason phrase too: a service's answer may have set its own (`413 Unauthorized`).
  res.writeHead(status, http.STATUS_CODES[status], { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
  discardRestOfBody(req);
}

/**
 * Reads and drops what is left of a request body. Answering while the client still sends and
 * then closing would reset the connection (the client loses the answer, or its next request);
 * past DRAIN_LIMIT the connection is cut instead.
 */
function discardRestOfBody(req: http.IncomingMessage) {
  if (req.complete) return;
  let discarded = 0;
  req.on('data', (chunk: Buffer) => {
    discarded += chunk.length;
    if (discarded > DRAIN_LIMIT) req.socket.destroy();
  });
  req.resume();
}

function pathOf(url: string | undefined): string | undefined {
  if (!url?.startsWith('/')) return undefined;
  const end = url.search(/[?#]/);
  return end === -1 ? url : url.slice(0, end);
}
