import http from 'node:http';

export class PortInUseError extends Error {
  readonly port: number;
  readonly setting: string;
  constructor(port: number, setting: string) {
    super(`port ${port} is already in use (set ${setting} to another port, or stop what is using it)`);
    this.name = 'PortInUseError';
    this.port = port;
    this.setting = setting;
  }
}

/**
 * How long a kept-alive connection to a service may sit idle: longer than a proxy in front keeps
 * one idle (ingress-nginx's `upstream-keepalive-timeout` and cloud load balancers default to
 * 60 s). A service that closes sooner (Node's default is 5 s) races the proxy's next request on
 * that connection, and the proxy answers that request 502.
 */
export const KEEP_ALIVE_TIMEOUT_MS = 65_000;

/** A service's HTTP server, its kept-alive connections outliving the proxy's (above). */
export function createServiceServer(handler: http.RequestListener): http.Server {
  return keepIdleConnections(http.createServer(handler), KEEP_ALIVE_TIMEOUT_MS);
}

/**
 * Keeps `server`'s idle kept-alive connections `idleMs` (and announces it in `Keep-Alive`), its
 * headers timeout above that, as Node's documentation asks, so that a connection idle that long
 * is not taken for a client slow to send its headers.
 */
export function keepIdleConnections(server: http.Server, idleMs: number): http.Server {
  server.keepAliveTimeout = idleMs;
  server.headersTimeout = idleMs + 1_000;
  return server;
}

/** Listens on `port`, turning EADDRINUSE into an error that names the setting to change. */
export function listen(server: http.Server, port: number, host: string, setting: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException) => {
      server.off('listening', onListening);
      reject(error.code === 'EADDRINUSE' ? new PortInUseError(port, setting) : error);
    };
    const onListening = () => {
      server.off('error', onError);
      resolve();
    };
    server.once('error', onError);
    server.once('listening', onListening);
    server.listen(port, host);
  });
}

/** How often a closing server closes the connections that have fallen idle. */
const IDLE_SWEEP_MS = 50;

/**
 * Closes an HTTP server gracefully: no new connections, in-flight requests finished. `close()`
 * alone waits for every kept-alive connection to end, and a client (or ingress) that keeps sending
 * on one would keep it open until the shutdown timeout kills the process mid-request; so every
 * answer from now on says `Connection: close`, and connections are closed as they fall idle.
 */
export function closeHttpServer(server: http.Server): Promise<void> {
  return new Promise((resolve) => {
    if (!server.listening) return resolve();
    const sweep = setInterval(() => server.closeIdleConnections(), IDLE_SWEEP_MS);
    server.close(() => {
      clearInterval(sweep);
      resolve();
    });
    server.on('request', (_request: http.IncomingMessage, response: http.ServerResponse) => {
      if (!response.headersSent) response.setHeader('connection', 'close');
    });
    server.closeIdleConnections();
  });
}
