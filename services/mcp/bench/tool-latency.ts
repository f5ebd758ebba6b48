/**
 * `pnpm --filter @sheetgate/mcp bench:latency`: what the MCP service adds to one `tools/call
 * read_range` over Google's own latency, one call at a time (no queueing: only the path), with
 * the emulator answering values.get after GOOGLE_LATENCY_MS. Taken in turn, one of each then the
 * next: values.get straight at the emulator over raw HTTP, the same through googleapis in this
 * process (what the Google client library alone costs), and read_range through the MCP service
 * in each era. LATENCY_PROFILE=1 runs the MCP service under V8's CPU profiler and prints, over the
 * measured calls only, its busy time per call, by part of the code and its heaviest functions by
 * self time (the .cpuprofile is kept in a printed folder).
 */
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { mainThreadSchedule, threadCpuSeconds } from '@sheetgate/test-harness';
import { google } from 'googleapis';
import { startBenchStack } from './bench-stack.ts';
import { ERA_VERSIONS, readRange } from './eras.ts';
import { ms, out, percentile, request, seedBenchSpreadsheet } from './one-request.ts';
import { type Profile, sumProfile } from './profile-summary.ts';

const SAMPLES = Number(process.env.BENCH_LATENCY_SAMPLES ?? 500);
const GOOGLE_LATENCY_MS = Number(process.env.BENCH_GOOGLE_LATENCY_MS ?? 20);
const PROFILE = process.env.LATENCY_PROFILE === '1';
const WARM_UP = 30;
const RANGE = 'Sheet1!A1:C20';
/** The side every MCP figure is also compared with: a bare Node forwarder on the service's core. */
const FLOOR = 'bare Node proxy (the extra hop alone)';

/** The measured calls' window on the monotonic clock (the profile's), start-up and warm-up left out. */
const measured = { fromMicros: 0, toMicros: 0 };
const micros = () => Number(process.hrtime.bigint() / 1000n);
const profileDir = PROFILE ? mkdtempSync(path.join(tmpdir(), 'sheetgate-latency-')) : undefined;
const bench = await startBenchStack({
  mcpEnv: {
    ...(process.env.BENCH_MCP_LOG_LEVEL ? { LOG_LEVEL: process.env.BENCH_MCP_LOG_LEVEL } : {}),
    ...(profileDir ? { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${profileDir}` } : {}),
  },
});
try {
  const { stack, jwt, userId } = bench;
  const spreadsheetId = await seedBenchSpreadsheet(stack.emulatorUrl, 'Bench', 20);
  const googleToken = await stack.googleAccessToken(userId);
  if (!googleToken) throw new Error('the emulator gave the bench person no Google access token');
  const sheets = google.sheets({ version: 'v4', rootUrl: `${stack.emulatorUrl}/` });
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const valuesUrl = `${stack.emulatorUrl}/v4/spreadsheets/${spreadsheetId}/values/${encodeURIComponent(RANGE)}`;
  const proxy = await bench.startBaseline('bare-proxy.ts', {
    BENCH_VALUES_URL: valuesUrl,
    BENCH_GOOGLE_TOKEN: googleToken,
  });
  const sides: Array<{ name: string; call: () => Promise<unknown> }> = [
    {
      name: 'emulator values.get, raw HTTP',
      call: () =>
        request(agent, valuesUrl, { method: 'GET', headers: { authorization: `Bearer ${googleToken}` } }),
    },
    {
      name: 'emulator values.get, googleapis',
      call: () =>
        sheets.spreadsheets.values.get(
          { spreadsheetId, range: RANGE },
          { headers: { authorization: `Bearer ${googleToken}` } },
        ),
    },
    {
      name: FLOOR,
      call: () =>
        request(agent, proxy.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: '{}',
        }),
    },
    ...(['legacy', 'modern'] as const).map((era) => {
      const call = readRange(era, spreadsheetId, 'Sheet1');
      return {
        name: `read_range via MCP, ${era} (${ERA_VERSIONS[era]})`,
        call: () =>
          request(agent, stack.mcpUrl, {
            method: 'POST',
            headers: { ...call.headers, ...jwt },
            body: call.body,
          }),
      };
    }),
  ];
  await stack.fault({
    match: 'sheets.spreadsheets.values.get',
    latencyMs: GOOGLE_LATENCY_MS,
    count: (SAMPLES + WARM_UP) * sides.length,
  });
  for (let i = 0; i < WARM_UP; i++) for (const side of sides) await side.call();
  const times = sides.map((): number[] => []);
  const scheduleBefore = mainThreadSchedule(bench.mcpPid);
  const threadsBefore = threadCpuSeconds(bench.mcpPid);
  measured.fromMicros = micros();
  for (let i = 0; i < SAMPLES; i++) {
    for (const [index, side] of sides.entries()) {
      const started = performance.now();
      await side.call();
      times[index]!.push(performance.now() - started);
    }
  }
  measured.toMicros = micros();
  const scheduleAfter = mainThreadSchedule(bench.mcpPid);
  const threadsAfter = threadCpuSeconds(bench.mcpPid);
  await stack.clearFaults();
  agent.destroy();
  out(`read_range of ${RANGE}, ${SAMPLES} calls of each in turn, emulator latencyMs ${GOOGLE_LATENCY_MS}:`);
  for (const list of times) list.sort((a, b) => a - b);
  const base = times[0]!;
  const floor = times[sides.findIndex((side) => side.name === FLOOR)]!;
  const over = (sorted: number[], than: number[]) =>
    `p50 +${ms(percentile(sorted, 50) - percentile(than, 50))}  p99 +${ms(percentile(sorted, 99) - percentile(than, 99))}`;
  for (const [index, side] of sides.entries()) {
    const sorted = times[index]!;
    const overRaw = index ? `   over raw: ${over(sorted, base)}` : '';
    const overFloor = side.name.startsWith('read_range')
      ? `   over the bare proxy: ${over(sorted, floor)}`
      : '';
    out(
      `  ${side.name.padEnd(42)} p50 ${ms(percentile(sorted, 50))}  p99 ${ms(percentile(sorted, 99))}${overRaw}${overFloor}`,
    );
  }
  // CPU the service used for the measured calls (its two sides; the others leave it idle), read
  // from the kernel: unlike wall-clock figures, little moved by other work on the machine.
  const mcpCalls = SAMPLES * 2;
  let allThreads = 0;
  for (const [thread, seconds] of threadsAfter) allThreads += seconds - (threadsBefore.get(thread) ?? 0);
  const perMcpCall = (seconds: number) => `${((seconds * 1e6) / mcpCalls).toFixed(0)} µs`;
  out(
    `MCP service CPU per read_range call: main thread ${perMcpCall(scheduleAfter.running - scheduleBefore.running)} (and ${perMcpCall(scheduleAfter.waiting - scheduleBefore.waiting)} waiting runnable for its core), all threads ${perMcpCall(allThreads)}`,
  );
} finally {
  await bench.stop();
}

if (profileDir) {
  const file = readdirSync(profileDir).find((name) => name.endsWith('.cpuprofile'));
  if (file) {
    const profile = JSON.parse(readFileSync(path.join(profileDir, file), 'utf8')) as Profile;
    const sums = sumProfile(profile, measured);
    // The MCP service answers the two eras' sides of the measured calls; between them it is idle.
    const calls = SAMPLES * 2;
    const perCall = (micros: number) => `${(micros / calls).toFixed(1).padStart(7)} µs`;
    const idle = sums.byPart.get('idle (waiting in the event loop)') ?? 0;
    out(
      `\nMCP service main thread over the ${calls} measured read_range calls (start-up and warm-up left out):`,
    );
    out(`  ${perCall(sums.total - idle)}  busy (self time of everything but idle) per call`);
    out('  by part of the code, per call:');
    const byTime = (sums: Map<string, number>, n: number) =>
      [...sums]
        .filter(([name]) => !/idle/.test(name))
        .sort((a, b) => b[1] - a[1])
        .slice(0, n);
    for (const [part, micros] of byTime(sums.byPart, 20)) out(`    ${perCall(micros)}  ${part}`);
    out('  heaviest functions by self time, per call:');
    for (const [name, micros] of byTime(sums.byFunction, 40)) out(`    ${perCall(micros)}  ${name}`);
    out(`(profile kept in ${profileDir})`);
  }
}
