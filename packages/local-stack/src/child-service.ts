import { type ChildProcess, spawn } from 'node:child_process';
import http from 'node:http';
import { createInterface } from 'node:readline';
import { compileCacheDir } from './compile-cache.js';

const MAX_KEPT_LINES = 5_000;

export interface ChildService {
  name: string;
  process: ChildProcess;
  /** The last lines the process printed (stdout and stderr), oldest first. */
  output: string[];
  /** Resolves with the exit code once the process has exited. */
  exited: Promise<number | null>;
  stop(): Promise<void>;
}

/**
 * Runs one service as its own Node process (as in production, one process per service), with
 * its output prefixed by its name so the combined log stays readable.
 */
export function spawnService(
  name: string,
  entry: string,
  env: NodeJS.ProcessEnv,
  options: { echo?: boolean } = {},
): ChildService {
  const child = spawn(process.execPath, [entry], {
    // Compiled modules are kept between starts (compile-cache.ts): a service starts in a third of the time.
    env: { NODE_COMPILE_CACHE: compileCacheDir(), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  for (const stream of [child.stdout, child.stderr]) {
    createInterface({ input: stream }).on('line', (line) => {
      output.push(line);
      if (output.length > MAX_KEPT_LINES) output.shift();
      if (options.echo ?? true) process.stdout.write(`[${name}] ${line}\n`);
    });
  }
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    name,
    process: child,
    output,
    exited,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** Polls `url` until it answers 200, the child exits, or `timeoutMs` passes. */
export async function waitUntilReady(url: string, child: ChildService, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let exited = false;
  void child.exited.then(() => {
    exited = true;
  });
  while (Date.now() < deadline) {
    if (exited) throw new Error(`${child.name} exited before it was ready`);
    if (await answers200(url)) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`${child.name} was not ready at ${url} after ${timeoutMs} ms`);
}

/**
 * One probe with node:http rather than fetch: loading fetch's client (undici) would cost the
 * launcher CPU while the services start. No answer (not listening yet) is false.
 */
function answers200(url: string): Promise<boolean> {
  return new Promise((resolve) => {
    const request = http.get(url, { agent: false, timeout: 2_000 }, (response) => {
      response.resume();
      resolve(response.statusCode === 200);
    });
    request.on('timeout', () => request.destroy());
    request.on('error', () => resolve(false));
  });
}
