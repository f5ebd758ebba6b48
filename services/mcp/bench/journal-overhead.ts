/**
 * `pnpm --filter @sheetgate/mcp bench:journal`: what the change journal (docs/design.md §11.8)
 * adds to a write. The same `tools/call write_range` (default overwriteFormulas, so the guard's
 * FORMULA read is made either way) is sent in turn to two MCP services of one stack — the bench
 * stack's own with CHANGE_JOURNAL=on and a second with CHANGE_JOURNAL=off — with the emulator
 * answering each Google request after GOOGLE_LATENCY_MS. Goal: p50 on − p50 off ≤ 1 ms.
 * BENCH_SECONDS bounds the measured time (20 s by default).
 */
import http from 'node:http';
import { startBenchStack } from './bench-stack.ts';
import { ms, out, percentile, request, seedBenchSpreadsheet } from './one-request.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 20);
const GOOGLE_LATENCY_MS = Number(process.env.BENCH_GOOGLE_LATENCY_MS ?? 20);
const GOAL_MS = 1;

const bench = await startBenchStack({ mcpEnv: { CHANGE_JOURNAL: 'on' } });
try {
  const { stack, jwt } = bench;
  const off = await stack.startMcp({ CHANGE_JOURNAL: 'off' });
  const spreadsheetId = await seedBenchSpreadsheet(stack.emulatorUrl, 'Bench', 20);
  const headers = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': '2025-11-25',
    ...jwt,
  };
  let n = 0;
  // Ten cells of a 20-row tab, different values each call (a real write every time).
  const body = () =>
    JSON.stringify({
      jsonrpc: '2.0',
      id: ++n,
      method: 'tools/call',
      params: {
        name: 'write_range',
        arguments: {
          spreadsheetId,
          range: 'Sheet1!A1:B5',
          values: Array.from({ length: 5 }, (_, row) => [`w${n}-${row}`, n + row]),
        },
      },
    });
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const sides = [
    { name: 'write_range, journal on', url: stack.mcpUrl, times: [] as number[] },
    { name: 'write_range, journal off', url: off.mcpUrl, times: [] as number[] },
  ];
  await stack.fault({
    match: 'sheets.spreadsheets.values.update',
    latencyMs: GOOGLE_LATENCY_MS,
    count: 10_000,
  });
  await stack.fault({
    match: 'sheets.spreadsheets.values.batchGet',
    latencyMs: GOOGLE_LATENCY_MS,
    count: 10_000,
  });
  for (let i = 0; i < 20; i++)
    for (const side of sides) await request(agent, side.url, { method: 'POST', headers, body: body() });
  const until = performance.now() + SECONDS * 1000;
  while (performance.now() < until) {
    for (const side of sides) {
      const started = performance.now();
      await request(agent, side.url, { method: 'POST', headers, body: body() });
      side.times.push(performance.now() - started);
    }
  }
  await stack.clearFaults();
  agent.destroy();
  out(
    `write_range of 10 cells, ${sides[0]!.times.length} calls of each in turn, emulator latencyMs ${GOOGLE_LATENCY_MS} per Google request:`,
  );
  const p50 = sides.map((side) =>
    percentile(
      side.times.sort((a, b) => a - b),
      50,
    ),
  );
  for (const [index, side] of sides.entries())
    out(`  ${side.name.padEnd(28)} p50 ${ms(p50[index]!)}  p99 ${ms(percentile(side.times, 99))}`);
  const added = p50[0]! - p50[1]!;
  out(
    `  journal adds p50 ${added >= 0 ? '+' : ''}${ms(added)} (goal ≤ ${GOAL_MS} ms: ${added <= GOAL_MS ? 'met' : 'NOT met'})`,
  );
} finally {
  await bench.stop();
}
