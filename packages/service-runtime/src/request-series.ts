import type { Metric, Registry } from 'prom-client';

/** One route template and method: its requests by status class, and their durations. */
export interface RequestSeries {
  readonly route: string;
  readonly method: string;
  /** By the status's first digit; answers never finished (the client left first) apart. */
  readonly byStatusClass: number[];
  aborted: number;
  /** Per bucket of `bounds`, then one for beyond the last (not cumulative). */
  readonly buckets: number[];
  sum: number;
  count: number;
}

const help = {
  requests:
    'HTTP requests answered, by route template, method and status class (aborted: the client left first).',
  duration: 'Time from a request arriving to its response finishing, by route template and method.',
};

/**
 * The HTTP series every service has — `sheetgate_http_requests_total` and
 * `sheetgate_http_request_duration_seconds` — counted in plain numbers per (route, method) as
 * requests end, and turned into Prometheus samples only when scraped. prom-client's labelled
 * `inc` and `observe` build and look up a label string each, per request: on the MCP service's
 * `tools/list` this way costs half as much (an A/B under services/mcp/bench's load,
 * docs/benchmarks.md).
 */
export function createRequestSeries(registry: Registry, bounds: readonly number[]) {
  const byRoute = new Map<string, Map<string, RequestSeries>>();
  const all: RequestSeries[] = [];

  function seriesOf(route: string, method: string): RequestSeries {
    let byMethod = byRoute.get(route);
    if (!byMethod) {
      byMethod = new Map();
      byRoute.set(route, byMethod);
    }
    let series = byMethod.get(method);
    if (!series) {
      series = {
        route,
        method,
        byStatusClass: new Array<number>(10).fill(0),
        aborted: 0,
        buckets: new Array<number>(bounds.length + 1).fill(0),
        sum: 0,
        count: 0,
      };
      byMethod.set(method, series);
      all.push(series);
    }
    return series;
  }

  const requests = collector(
    'sheetgate_http_requests_total',
    help.requests,
    'counter',
    () =>
      all.flatMap((series) => {
        const labels = { route: series.route, method: series.method };
        const counted = series.byStatusClass.flatMap((value, digit) =>
          value ? [{ labels: { ...labels, status_class: `${digit}xx` }, value }] : [],
        );
        if (series.aborted)
          counted.push({ labels: { ...labels, status_class: 'aborted' }, value: series.aborted });
        return counted;
      }),
    () => {
      for (const series of all) {
        series.byStatusClass.fill(0);
        series.aborted = 0;
      }
    },
  );
  const name = 'sheetgate_http_request_duration_seconds';
  const duration = collector(
    name,
    help.duration,
    'histogram',
    () =>
      all.flatMap((series) => {
        const labels = { route: series.route, method: series.method };
        let cumulative = 0;
        const buckets = bounds.map((le, index) => {
          cumulative += series.buckets[index]!;
          return { metricName: `${name}_bucket`, labels: { ...labels, le }, value: cumulative };
        });
        return [
          ...buckets,
          { metricName: `${name}_bucket`, labels: { ...labels, le: '+Inf' }, value: series.count },
          { metricName: `${name}_sum`, labels, value: series.sum },
          { metricName: `${name}_count`, labels, value: series.count },
        ];
      }),
    () => {
      for (const series of all) {
        series.buckets.fill(0);
        series.sum = 0;
        series.count = 0;
      }
    },
  );
  // The registry asks a metric only for its name and its samples (`get`); prom-client's own
  // types name its four classes, hence the cast.
  registry.registerMetric(requests as unknown as Metric);
  registry.registerMetric(duration as unknown as Metric);

  return {
    seriesOf,

    /** One request ended: `status` 0 when the answer never finished. */
    record(series: RequestSeries, status: number, seconds: number) {
      if (status) series.byStatusClass[Math.min(9, Math.floor(status / 100))]!++;
      else series.aborted++;
      let bucket = 0;
      while (bucket < bounds.length && seconds > bounds[bucket]!) bucket++;
      series.buckets[bucket]!++;
      series.sum += seconds;
      series.count++;
    },
  };
}

function collector(
  name: string,
  helpText: string,
  type: 'counter' | 'histogram',
  values: () => Array<{ labels: Record<string, string | number>; value: number; metricName?: string }>,
  reset: () => void,
) {
  const metric = {
    // The registry renames counters for OpenMetrics: read back, not captured.
    name,
    help: helpText,
    type,
    aggregator: 'sum',
    get: async () => ({ name: metric.name, help: helpText, type, aggregator: 'sum', values: values() }),
    reset,
  };
  return metric;
}
