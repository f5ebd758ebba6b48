import { readdirSync, readFileSync } from 'node:fs';

/**
 * Seconds every thread of `pid` has run so far, from each thread's schedstat (nanoseconds): fine
 * enough to charge a few milliseconds of calls to a process, where /proc/<pid>/stat counts clock
 * ticks of 10 ms.
 */
export function runSeconds(pid: number): number {
  let nanos = 0;
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      nanos += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
    } catch {
      // the thread ended
    }
  }
  return nanos / 1e9;
}
