import http from 'node:http';
import {
  Counter,
  type CounterConfiguration,
  collectDefaultMetrics,
  Gauge,
  type GaugeConfiguration,
  Histogram,
  type HistogramConfiguration,
  Registry,
} from 'prom-client';
import { closeHttpServer, listen } from './http-server.ts';
import { createRequestSeries } from './request-series.ts';

export type { Counter, Gauge, Histogram } from 'prom-client';

/** Seconds; from a cached JWKS hit (sub-millisecond) to a slow Google call. */
export const LATENCY_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

// Methods a client may send are open-ended; anything unusual is counted as one value.
const KNOWN_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);
const UNMATCHED_ROUTE = 'unmatched';

/**
 * Turns a request path into one of a fixed list of route templates, so the `route` label never
 * takes a raw path (ids, tokens in paths, scanners' garbage). A template is an exact path, or ends
 * in `/*` to stand for every path below that prefix; the first that matches wins; anything else is
 * `unmatched`.
 */
export function createRouteMatcher(templates: readonly string[]): (path: string) => string {
  const exact = new Map<string, string>();
  const prefixes: Array<[prefix: string, template: string]> = [];
  for (const template of templates) {
    if (template.endsWith('/*')) prefixes.push([template.slice(0, -1), template]);
    else if (!exact.has(template)) exact.set(template, template);
  }
  return (path) => {
    const found = exact.get(path);
    if (found) return found;
    for (const [prefix, template] of prefixes) if (path.startsWith(prefix)) return template;
    return UNMATCHED_ROUTE;
  };
}

export interface ServiceMetricsOptions {
  /** The route templates of this service's HTTP port (see `createRouteMatcher`). */
  routes: readonly string[];
}

/**
 * One service's Prometheus registry: Node's process metrics, the HTTP series every service has,
 * and factories for the service's own series. Every series carries `service` (auth, mcp, web).
 */
export function createServiceMetrics(service: string, options: ServiceMetricsOptions) {
  const registry = new Registry();
  registry.setDefaultLabels({ service });
  collectDefaultMetrics({ register: registry });

  const requestSeries = createRequestSeries(registry, LATENCY_BUCKETS);
  const routeOf = createRouteMatcher([...options.routes, '/healthz', '/readyz']);

  return {
    registry,

    counter<Label extends string>(config: Omit<CounterConfiguration<Label>, 'registers'>): Counter<Label> {
      return new Counter({ ...config, registers: [registry] });
    },

    histogram<Label extends string>(
      config: Omit<HistogramConfiguration<Label>, 'registers'>,
    ): Histogram<Label> {
      return new Histogram({ buckets: LATENCY_BUCKETS, ...config, registers: [registry] });
    },

    gauge<Label extends string>(config: Omit<GaugeConfiguration<Label>, 'registers'>): Gauge<Label> {
      return new Gauge({ ...config, registers: [registry] });
    },

    /**
     * Wraps an HTTP handler to count and time every request. It works on the raw response, not a
     * Koa context, because some handlers answer on `res` directly (oidc-provider does), and reads
     * the path before the handler runs, because a handler may rewrite `req.url`.
     */
    instrument(handler: http.RequestListener): http.RequestListener {
      return (req, res) => {
        const started = performance.now();
        const url = req.url ?? '/';
        const query = url.indexOf('?');
        const series = requestSeries.seriesOf(
          routeOf(query === -1 ? url : url.slice(0, query)),
          KNOWN_METHODS.has(req.method ?? '') ? req.method! : 'other',
        );
        // 'close' comes once, after the answer finished or the client left: `on`, not `once`,
        // spares a wrapper per request.
        res.on('close', () =>
          requestSeries.record(
            series,
            res.writableFinished ? res.statusCode : 0,
            (performance.now() - started) / 1000,
          ),
        );
        handler(req, res);
      };
    },
  };
}

export type ServiceMetrics = ReturnType<typeof createServiceMetrics>;

/**
 * The internal metrics listener: `GET /metrics` in Prometheus's text format, nothing else. It is
 * a port of its own so that neither the gateway nor the Ingress can ever route to it, and
 * NetworkPolicies can open it to the scraper alone.
 */
export async function serveMetrics(
  metrics: ServiceMetrics,
  where: { host: string; port: number; setting: string },
): Promise<{ port: number; close: () => Promise<void> }> {
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain' }).end('use GET\n');
      return;
    }
    metrics.registry.metrics().then(
      (text) => res.writeHead(200, { 'content-type': metrics.registry.contentType }).end(text),
      () => res.writeHead(500, { 'content-type': 'text/plain' }).end('metrics unavailable\n'),
    );
  });
  // A scraper that connects and never sends a request must not hold a socket open for ever.
  server.requestTimeout = 10_000;
  server.headersTimeout = 5_000;
  await listen(server, where.port, where.host, where.setting);
  const address = server.address();
  return {
    port: typeof address === 'object' && address ? address.port : where.port,
    close: () => closeHttpServer(server),
  };
}
