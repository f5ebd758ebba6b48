/**
 * One bench round against one server, and what a set of rounds says: the load generator's
 * figures, the server's CPU and the rest of the server's core over the same time, and whether
 * the round measured the server at all. A round whose generator used ≥ 90% of its core while the
 * server used < 90% of its own measured the generator: no ratio is drawn from it.
 */
import {
  coreSeconds,
  coresOf,
  cpuSeconds,
  type LoadRequest,
  type LoadResult,
  mainThreadSchedule,
} from '@sheetgate/test-harness';
import type { LoadGenerator } from './load.ts';

export const SATURATED = 0.9;
/** A core this busy has no time to give a process that wants more. */
const FULL = 0.97;

export interface Target {
  name: string;
  pid: number;
  request: LoadRequest;
  /** Other processes on the request's path whose CPU the round reports (auth for API keys). */
  alongside?: Record<string, number>;
  /** Why the server does not answer this request with a 200 result (then it is not loaded). */
  notServed?: string;
}

export interface Round extends LoadResult {
  /** Fractions of one core. */
  serverCpu: number;
  /** The server's cores: kernel network work (softirq), and every other process on them. */
  serverCore: { softirq: number; others: number };
  /** How long the server's main thread waited, runnable, for its core (a fraction of the round). */
  serverWaited: number;
  /** How busy the generator's cores were, with anything (a fraction of all of them). */
  generatorCoreBusy: number;
  /** Server CPU microseconds per answered request. */
  cpuMicrosPerRequest: number;
  /** The CPU of the target's `alongside` processes, fractions of one core. */
  alongsideCpu: Record<string, number>;
}

export async function measure(
  generator: LoadGenerator,
  target: Target,
  seconds: number,
  cores: { server: string; generator: string },
): Promise<Round> {
  const started = performance.now();
  const cpuBefore = cpuSeconds(target.pid);
  const serverCoreBefore = coreSeconds(cores.server);
  const generatorCoreBefore = coreSeconds(cores.generator);
  const scheduleBefore = mainThreadSchedule(target.pid);
  const alongside = Object.entries(target.alongside ?? {});
  const alongsideBefore = alongside.map(([, pid]) => cpuSeconds(pid));
  const result = await generator.run(target.request, seconds);
  const wall = (performance.now() - started) / 1000;
  const serverSeconds = cpuSeconds(target.pid) - cpuBefore;
  const serverCore = coreSeconds(cores.server);
  const softirq = serverCore.softirq - serverCoreBefore.softirq;
  return {
    ...result,
    serverCpu: serverSeconds / wall,
    serverWaited: (mainThreadSchedule(target.pid).waiting - scheduleBefore.waiting) / wall,
    serverCore: {
      softirq: softirq / wall,
      others: Math.max(0, serverCore.busy - serverCoreBefore.busy - softirq - serverSeconds) / wall,
    },
    generatorCoreBusy:
      (coreSeconds(cores.generator).busy - generatorCoreBefore.busy) / wall / coresOf(cores.generator).length,
    cpuMicrosPerRequest: (serverSeconds / Math.max(1, result.requests)) * 1e6,
    alongsideCpu: Object.fromEntries(
      alongside.map(([name, pid], index) => [name, (cpuSeconds(pid) - alongsideBefore[index]!) / wall]),
    ),
  };
}

export const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/**
 * The generator limited the round: the server had CPU to spare while the generator used most of
 * its core, or could not get it (its core full with other work).
 */
export const generatorBound = (round: Round) =>
  round.serverCpu < SATURATED && (round.generatorCpu >= SATURATED || round.generatorCoreBusy >= FULL);

export interface Side {
  target: Target;
  rounds: Round[];
}

const percent = (fraction: number) => `${Math.round(fraction * 100)}%`;

/** One line for a side: its median round's figures, and what limited it if not the server. */
export function describeSide(side: Side): string[] {
  const { target, rounds } = side;
  if (target.notServed) return [`  ${target.name.padEnd(40)} not served (${target.notServed})`];
  const rps = median(rounds.map((round) => round.rps));
  const chosen = rounds.find((round) => round.rps === rps)!;
  const errors = rounds.reduce((sum, round) => sum + round.non2xx + round.socketErrors, 0);
  const rest = `; its core: softirq ${percent(chosen.serverCore.softirq)}, other processes ${percent(chosen.serverCore.others)}${Object.entries(
    chosen.alongsideCpu,
  )
    .map(([name, cpu]) => `; ${name} ${percent(cpu)}`)
    .join('')}`;
  const lines = [
    `  ${target.name.padEnd(40)} ${Math.round(rps).toString().padStart(7)} req/s  p50 ${chosen.p50Ms.toFixed(2)} ms  p99 ${chosen.p99Ms.toFixed(2)} ms  errors ${errors}`,
    `  ${''.padEnd(40)} cpu: server ${percent(chosen.serverCpu)} (${Math.round(median(rounds.map((round) => round.cpuMicrosPerRequest)))} µs/request, its main thread waited for the core ${percent(chosen.serverWaited)})${rest}; generator ${percent(chosen.generatorCpu)} (its core ${percent(chosen.generatorCoreBusy)} busy)`,
    `  ${''.padEnd(40)} rounds ${rounds.map((round) => Math.round(round.rps)).join(', ')} req/s`,
  ];
  const bound = rounds.filter(generatorBound).length;
  if (bound) lines.push(`    ! generator-bound in ${bound} of ${rounds.length} rounds`);
  else if (chosen.serverCpu < SATURATED)
    lines.push(
      `    ! the server was not saturated (${percent(chosen.serverCpu)}): something else limited this run`,
    );
  if (errors) lines.push(`    ! ${errors} answers were not 2xx or failed`);
  return lines;
}

/**
 * subject ÷ baseline, medians of each side, with the per-round ratios; or why there is none: a
 * side not served, or a generator-bound round on either side.
 */
export function ratio(subject: Side, baseline: Side): { text: string; value?: number } {
  for (const side of [subject, baseline])
    if (side.target.notServed) return { text: `not served (${side.target.notServed})` };
  if ([...subject.rounds, ...baseline.rounds].some(generatorBound))
    return { text: 'generator-bound, no ratio' };
  const value =
    median(subject.rounds.map((round) => round.rps)) / median(baseline.rounds.map((round) => round.rps));
  const perRound = subject.rounds
    .map((round, index) => (round.rps / baseline.rounds[index]!.rps).toFixed(2))
    .join(', ');
  return { text: `${value.toFixed(2)}x (rounds ${perRound})`, value };
}

/** Server CPU per request, subject ÷ baseline (medians): what a request costs the server itself. */
export function cpuRatio(subject: Side, baseline: Side): string {
  for (const side of [subject, baseline])
    if (side.target.notServed) return `not served (${side.target.notServed})`;
  const cost = (side: Side) => median(side.rounds.map((round) => round.cpuMicrosPerRequest));
  return `${(cost(subject) / cost(baseline)).toFixed(2)}x (${Math.round(cost(subject))} vs ${Math.round(cost(baseline))} µs/request)`;
}
