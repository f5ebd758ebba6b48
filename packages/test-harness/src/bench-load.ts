/**
 * Load for the services' benchmarks: Debian's `wrk` pinned to a core of its own, with what it
 * cost. A benchmark whose load generator is the bottleneck measures the generator (a Node one
 * saturates below bare Koa's rate for a large answer), so every run says how much of its core the
 * generator used, from the kernel's own accounting.
 */

import { spawn } from 'node:child_process';
import { accessSync, constants, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { clockTicksPerSecond } from './bench-placement.ts';

/** One HTTP request, sent over and over. */
export interface LoadRequest {
  url: string;
  method?: string;
  headers: Record<string, string>;
  body?: string;
}

export interface LoadResult {
  requests: number;
  seconds: number;
  rps: number;
  p50Ms: number;
  p99Ms: number;
  /** Answers outside 2xx/3xx. */
  non2xx: number;
  /** Connect, read, write errors and timeouts. */
  socketErrors: number;
  /** CPU the generator used, as a fraction of one core (1 = a whole core). */
  generatorCpu: number;
}

/** Where wrk is (BENCH_WRK, else the PATH, else /usr/bin/wrk), or undefined. */
export function findWrk(): string | undefined {
  const candidates = [
    process.env.BENCH_WRK,
    ...(process.env.PATH ?? '').split(path.delimiter).map((dir) => dir && path.join(dir, 'wrk')),
    '/usr/bin/wrk',
  ];
  for (const candidate of candidates) {
    if (!candidate) continue;
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not there
    }
  }
  return undefined;
}

/** A Lua long-bracket literal holding `text` as it is (no escape is interpreted inside one). */
export function luaLongString(text: string): string {
  let level = 0;
  while (text.includes(`]${'='.repeat(level)}]`) || text.endsWith(`]${'='.repeat(level)}`)) level++;
  const equals = '='.repeat(level);
  // A newline right after the opening bracket is skipped by Lua: one more keeps a leading one.
  return `[${equals}[${text.startsWith('\n') || text.startsWith('\r') ? '\n' : ''}${text}]${equals}]`;
}

/**
 * The wrk script: the request (set once, so wrk builds it once rather than calling Lua per
 * request) and, at the end, one line of JSON with the figures.
 */
export function wrkScript(request: LoadRequest): string {
  const lines = [`wrk.method = ${luaLongString(request.method ?? 'POST')}`];
  if (request.body !== undefined) lines.push(`wrk.body = ${luaLongString(request.body)}`);
  for (const [name, value] of Object.entries(request.headers)) {
    if (/[\r\n]/.test(name) || /[\r\n]/.test(value)) throw new Error(`header ${name} holds a line break`);
    lines.push(`wrk.headers[ ${luaLongString(name)} ] = ${luaLongString(value)}`);
  }
  lines.push(
    'function done(summary, latency, requests)',
    '  local e = summary.errors',
    '  io.write(string.format("BENCH_RESULT {\\"requests\\":%d,\\"micros\\":%d,\\"p50\\":%d,\\"p99\\":%d,\\"status\\":%d,\\"socket\\":%d}\\n",',
    '    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99), e.status,',
    '    e.connect + e.read + e.write + e.timeout))',
    'end',
  );
  return `${lines.join('\n')}\n`;
}

let tasksetWorks: boolean | undefined;
function tasksetAvailable(): boolean {
  if (tasksetWorks === undefined) {
    try {
      accessSync('/usr/bin/taskset', constants.X_OK);
      tasksetWorks = true;
    } catch {
      tasksetWorks = false;
    }
  }
  return tasksetWorks;
}

/**
 * Runs wrk (`threads` threads, `connections` connections, `seconds`) on `cores`. Its CPU is read
 * from the shell that waited for it (`cutime`/`cstime` of /proc/<shell>/stat count the children
 * it reaped), so nothing is sampled from a process that is about to end.
 */
export async function runWrk(
  wrk: string,
  request: LoadRequest,
  options: { connections: number; seconds: number; threads?: number; cores?: string; nice?: number },
): Promise<LoadResult> {
  const dir = mkdtempSync(path.join(tmpdir(), 'sheetgate-wrk-'));
  const script = path.join(dir, 'request.lua');
  writeFileSync(script, wrkScript(request), { mode: 0o600 });
  const args = [
    `-t${options.threads ?? 1}`,
    `-c${options.connections}`,
    `-d${options.seconds}s`,
    '--timeout',
    '10s',
    '-s',
    script,
    request.url,
  ];
  const command = options.cores && tasksetAvailable() ? ['taskset', '-c', options.cores, wrk] : [wrk];
  // `nice` runs the command even when it may not change the priority (it says so on stderr).
  if (options.nice) command.unshift('nice', '-n', String(options.nice));
  try {
    const { stdout, stderr, stat, code, wallSeconds } = await new Promise<{
      stdout: string;
      stderr: string;
      stat: string;
      code: number | null;
      wallSeconds: number;
    }>((resolve, reject) => {
      const started = performance.now();
      const child = spawn(
        'sh',
        ['-c', '"$@"; status=$?; cat /proc/$$/stat >&3; exit $status', 'sh', ...command, ...args],
        { stdio: ['ignore', 'pipe', 'pipe', 'pipe'] },
      );
      const chunks: Record<'stdout' | 'stderr' | 'stat', string> = { stdout: '', stderr: '', stat: '' };
      child.stdout!.on('data', (chunk: Buffer) => {
        chunks.stdout += chunk;
      });
      child.stderr!.on('data', (chunk: Buffer) => {
        chunks.stderr += chunk;
      });
      (child.stdio[3] as NodeJS.ReadableStream).on('data', (chunk: Buffer) => {
        chunks.stat += chunk;
      });
      child.once('error', reject);
      child.once('close', (code) =>
        resolve({ ...chunks, code, wallSeconds: (performance.now() - started) / 1000 }),
      );
    });
    const line = /^BENCH_RESULT (.+)$/m.exec(stdout)?.[1];
    if (code !== 0 || !line) throw new Error(`wrk failed (exit ${code}): ${stderr.trim() || stdout.trim()}`);
    const figures = JSON.parse(line) as {
      requests: number;
      micros: number;
      p50: number;
      p99: number;
      status: number;
      socket: number;
    };
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // cutime and cstime: fields 16 and 17 of /proc/<pid>/stat, 14 and 15 after the name.
    const childCpuSeconds = (Number(fields[13]) + Number(fields[14])) / clockTicksPerSecond();
    const seconds = figures.micros / 1e6;
    return {
      requests: figures.requests,
      seconds,
      rps: figures.requests / seconds,
      p50Ms: figures.p50 / 1000,
      p99Ms: figures.p99 / 1000,
      non2xx: figures.status,
      socketErrors: figures.socket,
      generatorCpu: childCpuSeconds / wallSeconds,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
