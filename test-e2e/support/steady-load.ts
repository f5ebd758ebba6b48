import { expect } from 'vitest';

/**
 * A steady stream of real requests kept up while a test breaks something, with every outcome
 * recorded — when it started and ended, its status, and for MCP calls whether the tool failed —
 * so the test can say afterwards which requests failed, how, and when.
 */

export interface LoadTarget {
  /** What the request is, e.g. "key read_range" (outcomes are grouped by it). */
  kind: string;
  url: string;
  init: () => RequestInit;
}

export interface Outcome {
  kind: string;
  startedAt: number;
  endedAt: number;
  /** The HTTP status, or 0 when no answer came (connection refused or reset, timeout). */
  status: number;
  retryAfter: string | null;
  /** The tool error's text, or the JSON-RPC error's message, of a 200 MCP answer. */
  toolError?: string;
  /** Why no answer came. */
  failure?: string;
  body: string;
}

export const succeeded = (outcome: Outcome) =>
  outcome.status >= 200 && outcome.status < 300 && outcome.toolError === undefined;

function toolErrorOf(body: string): string | undefined {
  let reply: {
    error?: { message?: string };
    result?: { isError?: boolean; content?: Array<{ text?: string }> };
  };
  try {
    reply = JSON.parse(body);
  } catch {
    return undefined;
  }
  if (reply.error) return `JSON-RPC error: ${reply.error.message ?? JSON.stringify(reply.error)}`;
  if (reply.result?.isError)
    return reply.result.content?.map((part) => part.text ?? '').join(' ') ?? 'isError';
  return undefined;
}

export interface SteadyLoad {
  outcomes: Outcome[];
  /** Resolves once every kind has succeeded at least `times` times since `since`. */
  untilEachSucceeds(since: number, times: number, timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
}

/**
 * `workers` loops, each sending the targets in turn (offset per worker, a short pause between
 * requests so the load stays steady rather than saturating a 2-core machine). Each request has
 * `timeoutMs` to be answered; one that is not counts as a failure with status 0.
 */
export function startSteadyLoad(
  targets: LoadTarget[],
  options: { workers?: number; pauseMs?: number; timeoutMs?: number } = {},
): SteadyLoad {
  const { workers = 4, pauseMs = 25, timeoutMs = 30_000 } = options;
  const outcomes: Outcome[] = [];
  let running = true;

  async function send(target: LoadTarget): Promise<Outcome> {
    const startedAt = Date.now();
    try {
      const response = await fetch(target.url, { ...target.init(), signal: AbortSignal.timeout(timeoutMs) });
      const body = await response.text();
      const toolError = response.status === 200 ? toolErrorOf(body) : undefined;
      return {
        kind: target.kind,
        startedAt,
        endedAt: Date.now(),
        status: response.status,
        retryAfter: response.headers.get('retry-after'),
        ...(toolError !== undefined ? { toolError } : {}),
        body,
      };
    } catch (error) {
      const cause = (error as { cause?: { code?: string } }).cause?.code;
      return {
        kind: target.kind,
        startedAt,
        endedAt: Date.now(),
        status: 0,
        retryAfter: null,
        failure: cause ?? (error as Error).name,
        body: '',
      };
    }
  }

  const loops = Array.from({ length: workers }, async (_, worker) => {
    for (let turn = worker; running; turn++) {
      outcomes.push(await send(targets[turn % targets.length]!));
      await new Promise((resolve) => setTimeout(resolve, pauseMs));
    }
  });

  return {
    outcomes,
    async untilEachSucceeds(since, times, timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs;
      const kinds = [...new Set(targets.map((target) => target.kind))];
      for (;;) {
        const behind = kinds.filter(
          (kind) =>
            outcomes.filter(
              (outcome) => outcome.kind === kind && outcome.startedAt >= since && succeeded(outcome),
            ).length < times,
        );
        if (behind.length === 0) return;
        if (Date.now() > deadline) {
          const last = behind.map((kind) => outcomes.filter((outcome) => outcome.kind === kind).at(-1));
          throw new Error(
            `no recovery for ${behind.join(', ')}: last ${JSON.stringify(last).slice(0, 1500)}`,
          );
        }
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    },
    async stop() {
      running = false;
      await Promise.all(loops);
    },
  };
}

/** Outcomes grouped by kind and result, for a message that says what happened. */
export function summarise(outcomes: Outcome[]): Record<string, Record<string, number>> {
  const summary: Record<string, Record<string, number>> = {};
  for (const outcome of outcomes) {
    const result = succeeded(outcome)
      ? 'ok'
      : outcome.status === 0
        ? `no answer (${outcome.failure})`
        : outcome.toolError !== undefined
          ? `tool error: ${outcome.toolError.slice(0, 60)}`
          : String(outcome.status);
    summary[outcome.kind] ??= {};
    summary[outcome.kind]![result] = (summary[outcome.kind]![result] ?? 0) + 1;
  }
  return summary;
}

export interface OutageRun {
  outcomes: Outcome[];
  /** When the fault began, when it was repaired, and when every kind of request had succeeded again. */
  brokenAt: number;
  repairedAt: number;
  recoveredAt: number;
}

/**
 * Keeps `targets` under a steady load through `outage` (break something, wait or watch the load,
 * repair it), until
 * every kind of request has succeeded twice since the repair ("recovered"), and three more times.
 */
export async function throughOutage(
  targets: LoadTarget[],
  outage: (load: SteadyLoad) => Promise<void>,
): Promise<OutageRun> {
  const load = startSteadyLoad(targets);
  try {
    await load.untilEachSucceeds(0, 2);
    const brokenAt = Date.now();
    await outage(load);
    const repairedAt = Date.now();
    await load.untilEachSucceeds(repairedAt, 2);
    const recoveredAt = Date.now();
    await load.untilEachSucceeds(recoveredAt, 3);
    return { outcomes: load.outcomes, brokenAt, repairedAt, recoveredAt };
  } finally {
    await load.stop();
  }
}

/**
 * Every request got an answer; the ones that failed were under way during the outage and failed
 * only in the `allowed` ways; every request that started after the recovery succeeded. Answers
 * the outcomes by kind, for the test's report.
 */
export function expectOnlyOutageFailures(run: OutageRun, allowed: (outcome: Outcome) => boolean) {
  const report = JSON.stringify(summarise(run.outcomes));
  expect(
    run.outcomes.filter((outcome) => outcome.status === 0),
    report,
  ).toEqual([]);
  for (const failure of run.outcomes.filter((outcome) => !succeeded(outcome))) {
    const during = failure.endedAt >= run.brokenAt && failure.startedAt < run.recoveredAt;
    expect(during && allowed(failure), `${JSON.stringify(failure).slice(0, 600)}\n${report}`).toBe(true);
  }
  const afterwards = run.outcomes.filter((outcome) => outcome.startedAt >= run.recoveredAt);
  expect(afterwards.length).toBeGreaterThan(0);
  expect(
    afterwards.filter((outcome) => !succeeded(outcome)),
    report,
  ).toEqual([]);
  return summarise(run.outcomes);
}
