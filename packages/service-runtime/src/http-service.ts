import http from 'node:http';
import type { Middleware } from 'koa';
import type { Logger } from './logger.ts';

export interface ReadinessCheck {
  name: string;
  /** Resolves when the dependency answers; rejects (or times out) when it does not. */
  check: () => Promise<void>;
}

const READINESS_TIMEOUT_MS = 2_000;

/**
 * `GET /healthz`: the process is alive. `GET /readyz`: every dependency answers, so a load
 * balancer may send traffic. Both on each service's own port, never routed by the gateway.
 */
export function healthRoutes(checks: ReadinessCheck[]): Middleware {
  return async (ctx, next) => {
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') return next();
    if (ctx.path === '/healthz') {
      ctx.body = { status: 'ok' };
      return;
    }
    if (ctx.path !== '/readyz') return next();
    const results = await Promise.all(
      checks.map(async ({ name, check }) => {
        try {
          await withTimeout(check(), READINESS_TIMEOUT_MS);
          return [name, 'ok'] as const;
        } catch {
          return [name, 'failing'] as const;
        }
      }),
    );
    const ready = results.every(([, state]) => state === 'ok');
    ctx.status = ready ? 200 : 503;
    ctx.body = { status: ready ? 'ready' : 'not_ready', checks: Object.fromEntries(results) };
  };
}

/** Logs one line per request: method, path (never the query, which may carry codes), status, time. */
export function requestLog(logger: Logger): Middleware {
  return async (ctx, next) => {
    const started = performance.now();
    // Read before the request is handled: a handler may rewrite the URL it forwards.
    const path = ctx.path;
    try {
      await next();
    } finally {
      if (path !== '/healthz' && path !== '/readyz') {
        logger.info(
          {
            method: ctx.method,
            path,
            status: ctx.status,
            ms: Math.round(performance.now() - started),
          },
          'request',
        );
      }
    }
  };
}

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

export interface ShutdownPlan {
  logger: Logger;
  /** Servers stop accepting at once; in-flight requests finish. */
  servers: Array<{ close: () => Promise<void> }>;
  /** Run after the servers have drained: pools, caches, child processes. */
  resources?: Array<() => Promise<void>>;
  /** After this long the process exits anyway. */
  timeoutMs?: number;
}

/** Closes an HTTP server gracefully: no new connections, idle keep-alives closed, in-flight finished. */
export function closeHttpServer(server: http.Server): Promise<void> {
  return new Promise((resolve) => {
    if (!server.listening) return resolve();
    server.close(() => resolve());
    server.closeIdleConnections();
  });
}

/** Shuts down on SIGTERM or SIGINT: drain servers, close resources, exit. Returns the trigger. */
export function shutdownOnSignals(plan: ShutdownPlan): (reason: string) => Promise<void> {
  let shuttingDown: Promise<void> | undefined;
  const shutdown = (reason: string) => {
    shuttingDown ??= (async () => {
      plan.logger.info({ reason }, 'shutting down');
      const timer = setTimeout(() => {
        plan.logger.error('graceful shutdown timed out; exiting');
        process.exit(1);
      }, plan.timeoutMs ?? 10_000);
      timer.unref();
      await Promise.allSettled(plan.servers.map((server) => server.close()));
      for (const close of plan.resources ?? []) {
        await close().catch((error: unknown) => plan.logger.warn({ err: error }, 'error while closing'));
      }
      plan.logger.info('stopped');
      plan.logger.flush();
    })();
    return shuttingDown;
  };
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => {
      void shutdown(signal).then(() => process.exit(0));
    });
  }
  return shutdown;
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms);
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}

export interface ServicePlan {
  /** The HTTP app (a Koa `app.callback()`). */
  handler: http.RequestListener;
  host: string;
  port: number;
  /** The setting that names `port`, quoted when the port is taken. */
  portSetting: string;
  /** Other servers to drain on shutdown (e.g. gRPC). */
  otherServers?: Array<{ close: () => Promise<void> }>;
  /** Closed after the servers have drained: pools, caches. */
  resources?: Array<() => Promise<void>>;
}

/**
 * The shape of every service's `main.ts`: build the plan (connect, migrate, assemble the app),
 * listen, shut down gracefully on SIGTERM/SIGINT; on a start-up failure log it and exit 1.
 */
export async function runService(
  name: string,
  logger: Logger,
  build: () => Promise<ServicePlan>,
): Promise<void> {
  try {
    const plan = await build();
    const server = http.createServer(plan.handler);
    await listen(server, plan.port, plan.host, plan.portSetting);
    logger.info({ port: plan.port }, `${name} listening`);
    shutdownOnSignals({
      logger,
      servers: [{ close: () => closeHttpServer(server) }, ...(plan.otherServers ?? [])],
      resources: plan.resources ?? [],
    });
  } catch (error) {
    logger.fatal({ err: error }, `${name} could not start: ${(error as Error).message}`);
    logger.flush();
    setTimeout(() => process.exit(1), 100).unref();
  }
}
