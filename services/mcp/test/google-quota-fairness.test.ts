import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  FAIRNESS_ONLY_QUOTAS,
  ISSUE_QUOTAS,
  runQuotaScenario,
  type ScenarioQuotas,
  startScenarioStack,
} from './support/quota-scenario.ts';
import type { McpUnderTest } from './support/stack.ts';

// Issue 22's proof under load (its latencies are `pnpm bench`'s): one person's agent floods reads
// with 20 calls at once while another reads once every 2 s, against an emulator that enforces the
// quotas Sheetgate is told.

const SECONDS = 20;

describe.each([
  ['120 reads a minute for the project, 60 per person', ISSUE_QUOTAS],
  ['120 for the project and 120 per person: only fairness protects the reader', FAIRNESS_ONLY_QUOTAS],
] as Array<[string, ScenarioQuotas]>)('%s', (_, quotas) => {
  let stack: McpUnderTest;
  beforeAll(async () => {
    stack = await startScenarioStack(quotas);
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it("one person's flood never costs another person a call, and Google never has to refuse", async () => {
    const { flood, single, googleResponses } = await runQuotaScenario(stack, SECONDS);
    // Every call of the person reading every 2 s succeeds.
    expect(single.length).toBeGreaterThanOrEqual(SECONDS / 2 - 1);
    expect(single.filter((call) => call.kind !== 'ok')).toEqual([]);
    // The flood gets at least its share of the minute and at most its own quota, and is told
    // when to try again past that: never a protocol error or an HTTP failure.
    expect(flood.filter((call) => call.kind === 'other')).toEqual([]);
    const served = flood.filter((call) => call.kind === 'ok').length;
    expect(served).toBeGreaterThanOrEqual(quotas.readsPerMinutePerProject / 2);
    expect(served).toBeLessThanOrEqual(
      Math.min(quotas.readsPerMinutePerUser, quotas.readsPerMinutePerProject - single.length),
    );
    const refusals = flood.filter((call) => call.kind === 'try_again');
    expect(refusals.length).toBeGreaterThan(0);
    for (const refusal of refusals)
      if (refusal.kind === 'try_again') expect(refusal.seconds).toBeLessThanOrEqual(61);
    // Sheetgate kept within Google's quotas: every read that reached Google was answered 200.
    expect(googleResponses).toEqual({ '200': served + single.length });
  }, 120_000);
});
