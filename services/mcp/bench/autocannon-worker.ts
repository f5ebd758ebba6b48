/**
 * One process of the fallback load generator (when wrk is not installed): autocannon with the
 * request and the share of connections in argv[2] (JSON), answering one line of JSON with its
 * figures and the CPU this process used.
 */
import autocannon from 'autocannon';

const options = JSON.parse(process.argv[2] ?? '{}') as {
  url: string;
  method?: string;
  headers: Record<string, string>;
  body?: string;
  connections: number;
  seconds: number;
};
const startedCpu = process.cpuUsage();
const started = performance.now();
const result = await autocannon({
  url: options.url,
  method: (options.method ?? 'POST') as 'POST',
  headers: options.headers,
  ...(options.body === undefined ? {} : { body: options.body }),
  connections: options.connections,
  duration: options.seconds,
});
const cpu = process.cpuUsage(startedCpu);
process.stdout.write(
  `${JSON.stringify({
    requests: result.requests.total,
    seconds: result.duration,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    cpuSeconds: (cpu.user + cpu.system) / 1e6,
    wallSeconds: (performance.now() - started) / 1000,
  })}\n`,
);
