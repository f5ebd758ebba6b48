import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';

/** What the latency benches share: one request at a time over a keep-alive agent, and the seed. */

export const out = (line = '') => process.stdout.write(`${line}\n`);

let bodies: string | undefined;
/**
 * `body` in a file of its own, for a baseline server (BENCH_BODY_FILE): all 71 tools' tools/list
 * is over Linux's 128 KiB limit on one environment variable, so it cannot travel in one.
 */
export function benchBodyFile(body: string): string {
  if (!bodies) {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'sheetgate-bench-'));
    bodies = dir;
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  }
  const file = path.join(bodies, `body-${Date.now()}-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(file, body);
  return file;
}
export const ms = (value: number) => `${value.toFixed(2)} ms`;
export const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;

/** One request on `agent`; rejects unless it is a 200 that is not a tool error. */
export function request(
  agent: http.Agent,
  url: string,
  options: { method: string; headers: Record<string, string>; body?: string },
): Promise<void> {
  return new Promise((resolve, reject) => {
    const outgoing = http.request(
      url,
      { agent, method: options.method, headers: options.headers },
      (response) => {
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          body += chunk;
        });
        response.on('end', () =>
          response.statusCode === 200 && !body.includes('"isError":true')
            ? resolve()
            : reject(new Error(`${url} answered ${response.statusCode}: ${body.slice(0, 200)}`)),
        );
      },
    );
    outgoing.on('error', reject);
    outgoing.end(options.body);
  });
}

/** A spreadsheet of alice@example.com in the emulator, one tab of `rows` rows of three columns. */
export async function seedBenchSpreadsheet(emulatorUrl: string, name: string, rows: number): Promise<string> {
  const response = await fetch(`${emulatorUrl}/__emulator/seed`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      email: 'alice@example.com',
      files: [{ name, values: Array.from({ length: rows }, (_, row) => [`r${row}`, row, row * 2]) }],
    }),
  });
  return ((await response.json()) as { files: Array<{ id: string }> }).files[0]!.id;
}

/** Sequential request latencies (ms) over one keep-alive connection: no queueing, only the path. */
export async function latencies(
  samples: number,
  send: (agent: http.Agent) => Promise<void>,
): Promise<number[]> {
  return (await interleavedLatencies(samples, [send]))[0]!;
}

/**
 * `latencies` of several requests taken in turn — one of each, then the next of each — so that a
 * collection or a warm-up landing on one of them weighs on them alike; each list sorted.
 */
export async function interleavedLatencies(
  samples: number,
  sends: Array<(agent: http.Agent) => Promise<void>>,
): Promise<number[][]> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  for (let i = 0; i < 20; i++) for (const send of sends) await send(agent);
  const times = sends.map((): number[] => []);
  for (let i = 0; i < samples; i++) {
    for (const [index, send] of sends.entries()) {
      const started = performance.now();
      await send(agent);
      times[index]!.push(performance.now() - started);
    }
  }
  agent.destroy();
  return times.map((each) => each.sort((a, b) => a - b));
}
