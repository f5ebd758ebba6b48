import http from 'node:http';
import type { AddressInfo } from 'node:net';
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { closeHttpServer, listen, PortInUseError } from '../src/http-server.ts';
import {
  createRouteMatcher,
  createServiceMetrics,
  type ServiceMetrics,
  serveMetrics,
} from '../src/metrics.ts';
import { parsePrometheusText, type Sample, scrapeMetrics, total } from './support/prometheus-text.ts';

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

/** A service port (instrumented) and its metrics port, both real listeners on loopback. */
async function serve(metrics: ServiceMetrics, handler: http.RequestListener) {
  const server = http.createServer(metrics.instrument(handler));
  await listen(server, 0, '127.0.0.1', 'TEST_PORT');
  closers.push(() => closeHttpServer(server));
  const scrape = await serveMetrics(metrics, { host: '127.0.0.1', port: 0, setting: 'TEST_METRICS_PORT' });
  closers.push(scrape.close);
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    metricsUrl: `http://127.0.0.1:${scrape.port}`,
  };
}

const requests = (samples: Sample[], labels: Record<string, string>) =>
  total(samples, 'sheetgate_http_requests_total', labels);

describe('createRouteMatcher', () => {
  const routeOf = createRouteMatcher(['/api/mcp', '/api/auth/interaction/*', '/assets/*']);

  it('gives exact routes and prefixes by template, anything else one value', () => {
    expect(routeOf('/api/mcp')).toBe('/api/mcp');
    expect(routeOf('/api/auth/interaction/abc123/login')).toBe('/api/auth/interaction/*');
    expect(routeOf('/assets/app.css')).toBe('/assets/*');
    expect(routeOf('/api/mcp/')).toBe('unmatched');
    expect(routeOf('/api/auth/interaction')).toBe('unmatched');
    expect(routeOf('/api/mcpx')).toBe('unmatched');
    expect(routeOf('')).toBe('unmatched');
  });
});

describe('service metrics over HTTP', () => {
  it('counts and times each request by route template, method and status class', async () => {
    const metrics = createServiceMetrics('test', { routes: ['/items/*', '/slow'] });
    const { url, metricsUrl } = await serve(metrics, (req, res) => {
      if (req.url?.startsWith('/items/')) return void res.writeHead(200).end('item');
      if (req.url === '/slow') return void setTimeout(() => res.writeHead(503).end(), 30);
      res.writeHead(404).end();
    });
    for (const id of ['1', '2', 'secret-looking-id'])
      expect((await fetch(`${url}/items/${id}?q=1`)).status).toBe(200);
    for (let i = 0; i < 2; i++) expect((await fetch(`${url}/slow`, { method: 'POST' })).status).toBe(503);
    expect((await fetch(`${url}/nothing-here`)).status).toBe(404);

    const samples = await scrapeMetrics(metricsUrl);
    expect(
      requests(samples, { route: '/items/*', method: 'GET', status_class: '2xx', service: 'test' }),
    ).toBe(3);
    expect(requests(samples, { route: '/slow', method: 'POST', status_class: '5xx' })).toBe(2);
    expect(requests(samples, { route: 'unmatched', method: 'GET', status_class: '4xx' })).toBe(1);
    const slow = { route: '/slow', method: 'POST' };
    expect(total(samples, 'sheetgate_http_request_duration_seconds_count', slow)).toBe(2);
    // Two answers of at least 30 ms each (a timer may fire a fraction of a millisecond early).
    expect(total(samples, 'sheetgate_http_request_duration_seconds_sum', slow)).toBeGreaterThan(0.055);
    // Buckets are cumulative, each `le` counting every request at most that long: the 30 ms answers
    // are in none up to 10 ms and in every one from 30 s; the three quick ones in the 30 s bucket.
    const bucket = (labels: Record<string, string>, le: string) =>
      total(samples, 'sheetgate_http_request_duration_seconds_bucket', { ...labels, le });
    expect(bucket(slow, '0.01')).toBe(0);
    expect(bucket(slow, '30')).toBe(2);
    expect(bucket(slow, '+Inf')).toBe(2);
    const items = { route: '/items/*', method: 'GET' };
    expect(bucket(items, '30')).toBe(3);
    expect(bucket(items, '+Inf')).toBe(3);
    const bounds = [
      '0.001',
      '0.005',
      '0.01',
      '0.025',
      '0.05',
      '0.1',
      '0.25',
      '0.5',
      '1',
      '2.5',
      '5',
      '10',
      '30',
      '+Inf',
    ];
    for (const labels of [slow, items]) {
      const counts = bounds.map((le) => bucket(labels, le));
      expect(counts).toEqual([...counts].sort((a, b) => a - b));
    }
    // The process series every service gets from prom-client's default metrics.
    expect(samples.map((s) => s.name)).toEqual(
      expect.arrayContaining(['process_cpu_seconds_total', 'nodejs_eventloop_lag_seconds']),
    );
    // No raw path reaches a label.
    expect(samples.some((s) => Object.values(s.labels).some((v) => v.includes('secret-looking-id')))).toBe(
      false,
    );
  });

  it('keeps labels bounded whatever clients send: paths, methods', async () => {
    const metrics = createServiceMetrics('test', { routes: ['/known'] });
    const { url, metricsUrl } = await serve(metrics, (_req, res) => res.writeHead(404).end());
    for (let i = 0; i < 40; i++) await fetch(`${url}/scan/${i}/${'x'.repeat(i)}`);
    await rawRequest(url, 'PROPFIND /known HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    const samples = (await scrapeMetrics(metricsUrl)).filter(
      (s) => s.name === 'sheetgate_http_requests_total',
    );
    expect(samples.map((s) => [s.labels.route, s.labels.method, s.value])).toEqual(
      expect.arrayContaining([
        ['unmatched', 'GET', 40],
        ['/known', 'other', 1],
      ]),
    );
    expect(samples).toHaveLength(2);
  });

  it('counts a response the client abandoned as aborted', async () => {
    const metrics = createServiceMetrics('test', { routes: ['/hang'] });
    let responded!: () => void;
    const done = new Promise<void>((resolve) => {
      responded = resolve;
    });
    let arrived!: () => void;
    const handling = new Promise<void>((resolve) => {
      arrived = resolve;
    });
    const { url, metricsUrl } = await serve(metrics, (_req, res) => {
      res.once('close', () => responded());
      arrived();
    });
    const controller = new AbortController();
    const pending = fetch(`${url}/hang`, { signal: controller.signal }).catch(() => 'aborted');
    // Abandoned once the server is answering it, not before it arrived.
    await handling;
    controller.abort();
    expect(await pending).toBe('aborted');
    await done;
    const samples = await scrapeMetrics(metricsUrl);
    expect(requests(samples, { route: '/hang', status_class: 'aborted' })).toBe(1);
  });
});

describe('the metrics listener', () => {
  it('answers GET and HEAD /metrics only', async () => {
    const metrics = createServiceMetrics('test', { routes: [] });
    const { metricsUrl } = await serve(metrics, (_req, res) => res.end());
    const head = await fetch(`${metricsUrl}/metrics`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    const post = await fetch(`${metricsUrl}/metrics`, { method: 'POST', body: 'x' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
    for (const path of ['/', '/healthz', '/metrics/', '/metrics.json', '/api/mcp']) {
      expect((await fetch(`${metricsUrl}${path}`)).status, path).toBe(404);
    }
    expect((await fetch(`${metricsUrl}/metrics?name[]=x`)).status).toBe(200);
  });

  it('names its setting when the port is taken', async () => {
    const metrics = createServiceMetrics('test', { routes: [] });
    const first = await serveMetrics(metrics, { host: '127.0.0.1', port: 0, setting: 'A_METRICS_PORT' });
    closers.push(first.close);
    const error = await serveMetrics(metrics, {
      host: '127.0.0.1',
      port: first.port,
      setting: 'MCP_METRICS_PORT',
    }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(PortInUseError);
    expect((error as Error).message).toContain('set MCP_METRICS_PORT');
  });

  it('gives each service its own registry', async () => {
    const a = createServiceMetrics('a', { routes: ['/x'] });
    const b = createServiceMetrics('b', { routes: ['/x'] });
    a.counter({ name: 'sheetgate_test_only_a_total', help: 'a' }).inc();
    const textB = parsePrometheusText(await b.registry.metrics());
    expect(textB.some((s) => s.name === 'sheetgate_test_only_a_total')).toBe(false);
    expect(new Set(textB.map((s) => s.labels.service))).toEqual(new Set(['b']));
  });
});

describe('parsePrometheusText', () => {
  it('refuses a line that is not a sample', () => {
    expect(() => parsePrometheusText('<html>')).toThrow(/not a Prometheus sample/);
    expect(parsePrometheusText('# HELP x y\nx{a="1\\"2"} 3\n')).toEqual([
      { name: 'x', labels: { a: '1"2' }, value: 3 },
    ]);
  });
});

function rawRequest(url: string, text: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname, () => socket.end(text));
    let answer = '';
    socket.on('data', (chunk) => {
      answer += chunk.toString();
    });
    socket.on('end', () => resolve(answer));
    socket.on('error', reject);
  });
}
