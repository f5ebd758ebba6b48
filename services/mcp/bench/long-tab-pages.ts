/**
 * read_range of 20 rows of a 60,000-row tab against 20 rows of a 60-row tab (goal within 3×, at
 * any offset), calls interleaved one at a time with no emulator latency, and the service's RSS
 * paging through the long tab. Part of `pnpm bench` (run.ts); alone: `pnpm bench:long-tab`
 * (BENCH_LATENCY_SAMPLES as run.ts takes it; a fifth of it per side, at least 20).
 */
import http from 'node:http';
import { rssMb } from '@sheetgate/test-harness';
import { type BenchStack, startBenchStack } from './bench-stack.ts';
import { readRange } from './eras.ts';
import { interleavedLatencies, ms, out, percentile, request, seedBenchSpreadsheet } from './one-request.ts';

export const LONG_TAB_ROWS = 60_000;

export async function measureLongTabPages(bench: BenchStack, latencySamples: number): Promise<void> {
  const { stack, mcpPid, jwt } = bench;
  // A page of a long tab against a page of a short one: only the page's rows are asked of Google.
  const [longId, shortId] = [
    await seedBenchSpreadsheet(stack.emulatorUrl, 'Long', LONG_TAB_ROWS),
    await seedBenchSpreadsheet(stack.emulatorUrl, 'Short', 60),
  ];
  const pageCall = (id: string, offset: number, limit = 20) => {
    const call = readRange('legacy', id, 'Sheet1', { offset, limit });
    const headers = { ...call.headers, ...jwt };
    return (agent: http.Agent) => request(agent, stack.mcpUrl, { method: 'POST', headers, body: call.body });
  };
  const pageSamples = Math.max(20, Math.round(latencySamples / 5));
  const [shortPage = [], longFirst = [], longDeep = []] = await interleavedLatencies(pageSamples, [
    pageCall(shortId, 0),
    pageCall(longId, 0),
    pageCall(longId, LONG_TAB_ROWS - 1_000),
  ]);
  out(`read_range, 20 rows, ${pageSamples} calls of each in turn, one at a time (no emulator latency):`);
  out(`  a 60-row tab, rows 1–20                 p50 ${ms(percentile(shortPage, 50))}`);
  const longPages: Array<[string, number[]]> = [
    [`a ${LONG_TAB_ROWS}-row tab, rows 1–20`, longFirst],
    [`a ${LONG_TAB_ROWS}-row tab, ${LONG_TAB_ROWS - 999}–${LONG_TAB_ROWS - 980}`, longDeep],
  ];
  for (const [label, times] of longPages) {
    const vsShort = percentile(times, 50) / percentile(shortPage, 50);
    out(
      `  ${label.padEnd(38)}  p50 ${ms(percentile(times, 50))}  (${vsShort.toFixed(2)}× the short tab; goal within 3×)`,
    );
  }
  const rssBeforePaging = rssMb(mcpPid);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  for (let offset = 0; offset < LONG_TAB_ROWS; offset += 2_000) await pageCall(longId, offset, 2_000)(agent);
  agent.destroy();
  out(
    `  MCP service RSS paging through the long tab 2,000 rows at a time: ${rssBeforePaging} MB before, ${rssMb(mcpPid)} MB after`,
  );
  out();
}

if (import.meta.main) {
  const bench = await startBenchStack();
  try {
    await measureLongTabPages(bench, Number(process.env.BENCH_LATENCY_SAMPLES ?? 500));
  } finally {
    await bench.stop();
  }
}
