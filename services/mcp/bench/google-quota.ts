/**
 * Issue 22's proof under load, for a minute: the scenario of services/mcp/test/support/
 * quota-scenario.ts (the emulator enforcing 120 Sheets reads a minute for the project and 60 per
 * person, Sheetgate told the same; one person floods read_range with 20 calls at once while
 * another reads once every 2 s) with the latencies the test leaves out (goal: the reader's p95
 * under 2 s).
 */
import {
  type CallOutcome,
  ISSUE_QUOTAS,
  runQuotaScenario,
  startScenarioStack,
} from '../test/support/quota-scenario.ts';

const percentile = (sorted: number[], p: number) =>
  sorted.length === 0
    ? Number.NaN
    : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;

function describeCalls(calls: CallOutcome[]): string {
  const count = (kind: CallOutcome['kind']) => calls.filter((call) => call.kind === kind).length;
  const times = calls.map((call) => call.ms).sort((a, b) => a - b);
  return `${calls.length} calls: ${count('ok')} answered, ${count('try_again')} told when to try again, ${count('other')} other; latency p50 ${percentile(times, 50).toFixed(0)} ms, p95 ${percentile(times, 95).toFixed(0)} ms, max ${(times.at(-1) ?? Number.NaN).toFixed(0)} ms`;
}

export async function measureQuotaFairness(seconds: number): Promise<string[]> {
  const stack = await startScenarioStack(ISSUE_QUOTAS);
  try {
    const { flood, single, googleResponses } = await runQuotaScenario(stack, seconds);
    const others = [...flood, ...single].filter((call) => call.kind === 'other');
    return [
      `quotas: ${ISSUE_QUOTAS.readsPerMinutePerProject} Sheets reads a minute for the project, ${ISSUE_QUOTAS.readsPerMinutePerUser} per person (emulator and Sheetgate), ${seconds} s`,
      `  the reader (one call every 2 s): ${describeCalls(single)}   (goal: all answered, p95 < 2 s)`,
      `  the flood (20 calls at once):    ${describeCalls(flood)}`,
      `  Google answered Sheets reads: ${JSON.stringify(googleResponses)}   (goal: no 429)`,
      ...(others.length > 0
        ? [
            `  other outcomes: ${others
              .slice(0, 3)
              .map((call) => (call.kind === 'other' ? call.what : ''))
              .join(' | ')}`,
          ]
        : []),
    ];
  } finally {
    await stack.stop();
  }
}
