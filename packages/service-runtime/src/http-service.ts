import type http from 'node:http';
import type { Middleware } from 'koa';
import { withDeadline } from './deadline.ts';
import { closeHttpServer, createServiceServer, listen } from './http-server.ts';
import type { Logger } from './logger.ts';
import { type ServiceMetrics, serveMetrics } from './metrics.ts';
import { startTracing } from './tracing.ts';

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
          await withDeadline(
            check(),
            READINESS_TIMEOUT_MS,
            () => new Error(`timed out after ${READINESS_TIMEOUT_MS} ms`),
          );
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

export interface ShutdownPlan {
  logger: Logger;
  /** Servers stop accepting at once; in-flight requests finish. */
  servers: Array<{ close: () => Promise<void> }>;
  /** Run after the servers have drained: pools, caches, child processes. */
  resources?: Array<() => Promise<void>>;
  /** After this long the process exits anyway. */
  timeoutMs?: number;
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
  /**
   * The service's metrics: every request on `port` is counted and timed, and `GET /metrics` is
   * served on `metricsPort` (same host), an internal port the gateway and the Ingress never route.
   */
  metrics?: { collector: ServiceMetrics; port: number; portSetting: string };
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
    // Before anything makes a call: OTEL_EXPORTER_OTLP_ENDPOINT turns traces on (tracing.ts).
    const tracing = await startTracing(name);
    const plan = await build();
    // Metrics first: once the service port answers, a scrape must find them.
    const metricsServer = plan.metrics
      ? await serveMetrics(plan.metrics.collector, {
          host: plan.host,
          port: plan.metrics.port,
          setting: plan.metrics.portSetting,
        })
      : undefined;
    const server = createServiceServer(
      plan.metrics ? plan.metrics.collector.instrument(plan.handler) : plan.handler,
    );
    await listen(server, plan.port, plan.host, plan.portSetting);
    logger.info(
      { port: plan.port, ...(metricsServer ? { metricsPort: metricsServer.port } : {}) },
      `${name} listening`,
    );
    shutdownOnSignals({
      logger,
      servers: [
        { close: () => closeHttpServer(server) },
        ...(metricsServer ? [metricsServer] : []),
        ...(plan.otherServers ?? []),
      ],
      resources: [...(plan.resources ?? []), ...(tracing ? [() => tracing.shutdown()] : [])],
    });
  } catch (error) {
    logger.fatal({ err: error }, `${name} could not start: ${(error as Error).message}`);
    logger.flush();
    setTimeout(() => process.exit(1), 100).unref();
  }
}
