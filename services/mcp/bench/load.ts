/**
 * The bench's load generator: Debian's wrk on OTHER_CORE when it is installed; else autocannon
 * spread over several processes there (a single Node process saturates below what bare Koa
 * serves, docs/design.md §14), with a line saying how to install wrk.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  coresOf,
  findWrk,
  type LoadRequest,
  type LoadResult,
  pin,
  prioritize,
  runWrk,
} from '@sheetgate/test-harness';

export interface LoadGenerator {
  /** What generates the load, for the report. */
  description: string;
  run(request: LoadRequest, seconds: number): Promise<LoadResult>;
}

const here = path.dirname(fileURLToPath(import.meta.url));

const coresIn = (list: string) => coresOf(list).length;

/** BENCH_LOAD=autocannon uses the fallback even where wrk is installed (to compare the two). */
export function createLoadGenerator(options: {
  cores: string;
  connections: number;
  nice: number;
}): LoadGenerator {
  const wrk = process.env.BENCH_LOAD === 'autocannon' ? undefined : findWrk();
  if (wrk) {
    return {
      description: `wrk (${wrk}), 1 thread, ${options.connections} connections, cores ${options.cores}, nice ${options.nice}`,
      run: (request, seconds) =>
        runWrk(wrk, request, {
          connections: options.connections,
          seconds,
          cores: options.cores,
          nice: options.nice,
        }),
    };
  }
  const workers = Math.max(2, coresIn(options.cores));
  const why =
    process.env.BENCH_LOAD === 'autocannon'
      ? 'BENCH_LOAD=autocannon'
      : 'wrk is not installed (install it: apt-get install -y wrk); a Node generator may saturate first';
  return {
    description: `autocannon in ${workers} processes, ${options.connections} connections in all, cores ${options.cores} — ${why}`,
    run: (request, seconds) => autocannonWorkers(request, seconds, workers, options),
  };
}

interface WorkerFigures {
  requests: number;
  seconds: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
  cpuSeconds: number;
  wallSeconds: number;
}

async function autocannonWorkers(
  request: LoadRequest,
  seconds: number,
  workers: number,
  options: { cores: string; connections: number; nice: number },
): Promise<LoadResult> {
  const figures = await Promise.all(
    Array.from({ length: workers }, (_, index) => {
      const connections =
        Math.floor(options.connections / workers) + (index < options.connections % workers ? 1 : 0);
      return new Promise<WorkerFigures>((resolve, reject) => {
        const child = spawn(
          process.execPath,
          [path.join(here, 'autocannon-worker.ts'), JSON.stringify({ ...request, connections, seconds })],
          { stdio: ['ignore', 'pipe', 'inherit'] },
        );
        pin(child.pid!, options.cores);
        if (options.nice) prioritize(child.pid!, options.nice);
        let output = '';
        child.stdout!.on('data', (chunk: Buffer) => {
          output += chunk;
        });
        child.once('error', reject);
        child.once('close', (code) => {
          try {
            resolve(JSON.parse(output) as WorkerFigures);
          } catch {
            reject(new Error(`an autocannon worker failed (exit ${code})`));
          }
        });
      });
    }),
  );
  const requests = figures.reduce((sum, worker) => sum + worker.requests, 0);
  const longest = Math.max(...figures.map((worker) => worker.seconds));
  const wall = Math.max(...figures.map((worker) => worker.wallSeconds));
  const p50s = figures.map((worker) => worker.p50).sort((a, b) => a - b);
  return {
    requests,
    seconds: longest,
    rps: requests / longest,
    p50Ms: p50s[Math.floor(p50s.length / 2)]!,
    p99Ms: Math.max(...figures.map((worker) => worker.p99)),
    non2xx: figures.reduce((sum, worker) => sum + worker.non2xx, 0),
    socketErrors: figures.reduce((sum, worker) => sum + worker.errors, 0),
    generatorCpu: figures.reduce((sum, worker) => sum + worker.cpuSeconds, 0) / wall / coresIn(options.cores),
  };
}
