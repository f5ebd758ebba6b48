/**
 * For the services' benchmarks (their bench folders): where each process runs and how busy it
 * was (Linux /proc and taskset), and the embedded PostgreSQL as a process of its own.
 */

import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createTestDatabase, type TestDatabase } from './databases.ts';

/** Pins every thread of `pid` to `cores` (e.g. "1"); false when taskset is unavailable. */
export function pin(pid: number, cores: string): boolean {
  try {
    execFileSync('taskset', ['-a', '-p', '-c', cores, String(pid)], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/**
 * Gives every thread of `pid` the nice value `nice` (negative: ahead of the machine's other work);
 * false when not permitted (only root may lower a nice value).
 */
export function prioritize(pid: number, nice: number): boolean {
  try {
    for (const tid of readdirSync(`/proc/${pid}/task`)) os.setPriority(Number(tid), nice);
    return true;
  } catch {
    return false;
  }
}

/** The cores `pid` may run on, as the kernel reports them. */
export function allowedCores(pid: number): string {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return /Cpus_allowed_list:\s+(\S+)/.exec(status)?.[1] ?? '?';
}

export function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Math.round(Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024);
}

let clockTicks: number | undefined;
/** Kernel clock ticks per second, asked once and only by the benches that read CPU times. */
export function clockTicksPerSecond(): number {
  if (clockTicks === undefined) {
    try {
      clockTicks = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;
    } catch {
      clockTicks = 100;
    }
  }
  return clockTicks;
}

/** CPU seconds (user + system) `pid` has used so far. */
export function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name (which may hold spaces) start at ") ".
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / clockTicksPerSecond();
}

/** CPU seconds (user + system) each thread of `pid` has used so far, by "name tid". */
export function threadCpuSeconds(pid: number): Map<string, number> {
  const threads = new Map<string, number>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      threads.set(`${name} ${tid}`, (Number(fields[11]) + Number(fields[12])) / clockTicksPerSecond());
    } catch {
      // the thread ended
    }
  }
  return threads;
}

/**
 * Seconds the main thread of `pid` has run, and has waited runnable for a CPU (preempted or not
 * yet scheduled), from /proc/<pid>/task/<pid>/schedstat. Waiting shows what a CPU profile records
 * as idle while the thread in fact wanted to run.
 */
export function mainThreadSchedule(pid: number): { running: number; waiting: number } {
  const [running, waiting] = readFileSync(`/proc/${pid}/task/${pid}/schedstat`, 'utf8')
    .trim()
    .split(' ')
    .map(Number);
  return { running: running! / 1e9, waiting: waiting! / 1e9 };
}

/** The cores a taskset list names ("1", "0,2", "0-3"). */
export function coresOf(list: string): number[] {
  return list.split(',').flatMap((part) => {
    const [from, to] = part.split('-').map(Number);
    if (!Number.isInteger(from) || (to !== undefined && !Number.isInteger(to)))
      throw new Error(`not a list of cores: ${list}`);
    return Array.from({ length: (to ?? from!) - from! + 1 }, (_, index) => from! + index);
  });
}

/** Seconds the cores of a taskset list have spent so far, busy and in softirq, from /proc/stat. */
export function coreSeconds(cores: string): { busy: number; softirq: number } {
  const wanted = new Set(coresOf(cores).map((core) => `cpu${core}`));
  const ticks = clockTicksPerSecond();
  let busy = 0;
  let softirqs = 0;
  for (const line of readFileSync('/proc/stat', 'utf8').split('\n')) {
    const fields = line.trim().split(/\s+/);
    if (!wanted.has(fields[0]!)) continue;
    // user nice system idle iowait irq softirq steal …
    const [user, nice, system, , , irq, softirq] = fields.slice(1).map(Number);
    busy += (user! + nice! + system! + irq! + softirq!) / ticks;
    softirqs += softirq! / ticks;
  }
  return { busy, softirq: softirqs };
}

/** Measures how much of one core each process used while `work` ran. */
export async function busyWhile<T>(
  pids: Record<string, number>,
  work: () => Promise<T>,
): Promise<{ result: T; busy: Record<string, number> }> {
  const started = performance.now();
  const before = Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, cpuSeconds(pid)]));
  const result = await work();
  const seconds = (performance.now() - started) / 1000;
  const busy = Object.fromEntries(
    Object.entries(pids).map(([name, pid]) => [name, (cpuSeconds(pid) - before[name]!) / seconds]),
  );
  return { result, busy };
}

/**
 * A database for a benchmark: a fresh one on the server named by DATABASE_URL, else the embedded
 * PostgreSQL in a child process pinned to `cores` — never inside the load generator.
 */
export async function startBenchDatabase(cores: string): Promise<TestDatabase & { pid?: number }> {
  if (process.env.DATABASE_URL) return createTestDatabase();
  const child: ChildProcess = spawn(
    process.execPath,
    [path.join(path.dirname(fileURLToPath(import.meta.url)), 'embedded-postgres-process.ts')],
    { env: { ...process.env }, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const url = await new Promise<string>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the embedded PostgreSQL exited (${code})`)));
    child.stdout?.once('data', (chunk: Buffer) => resolve(chunk.toString().trim()));
  });
  pin(child.pid!, cores);
  return {
    url,
    kind: 'embedded',
    pid: child.pid!,
    close: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}
