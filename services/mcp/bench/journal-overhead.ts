/**
 * `pnpm --filter @sheetgate/mcp bench:journal`: what the change journal (docs/design.md §11.8)
 * adds to a write, per family of what it keeps (bench/journal-families.ts: values, notes, cell
 * formats, rules, objects, tabs, dimensions, Drive). Two MCP services of one stack — the bench
 * stack's own with CHANGE_JOURNAL=on and a second with CHANGE_JOURNAL=off, both on SERVER_CORE —
 * share auth, its PostgreSQL and one Google emulator. Each family's call is sent in rounds of
 * BLOCK calls, journal on then off, on, off …, the spreadsheet put back between rounds; one call at
 * a time, so the figures are the path's, not a queue's.
 *
 * Per family and side: latency p50/p95, the Google requests per call by API method (the emulator's
 * counts), and the CPU each process spent per call (every thread's schedstat): the MCP service of
 * the side, the emulator, auth, and this process (the generator). The emulator answers from memory
 * in well under Google's time, so the wall-clock difference is the journal's own work (capture,
 * describing, serialising, sending to auth) plus one emulator round trip per extra read; against
 * Google the extra read costs Google's latency instead (BENCH_GOOGLE_LATENCY_MS delays every
 * Sheets and Drive request by that much to show it). Goal: p50 on − p50 off ≤ 1 ms of Sheetgate's
 * own time. BENCH_SECONDS bounds the measured time of all families together (64 s by default);
 * BENCH_JOURNAL_TOOLS=format_range,add_chart runs those families alone.
 *
 * JOURNAL_PROFILE=1 runs both MCP services under V8's CPU profiler and prints, per family, where
 * the journal-on service's time per call went beside the journal-off one's (self time by part of
 * the code, over the measured rounds only), and the journal's files' inclusive time per call.
 */
import { mkdirSync, mkdtempSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pin, prioritize } from '@sheetgate/test-harness';
import { NICE, SERVER_CORE, startBenchStack } from './bench-stack.ts';
import { type EmulatorApi, FAMILIES, type Family } from './journal-families.ts';
import { reportJournalProfiles } from './journal-profile.ts';
import { ms, out, percentile } from './one-request.ts';
import { runSeconds } from './run-time.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 64);
const BLOCK = Number(process.env.BENCH_JOURNAL_BLOCK ?? 10);
const GOOGLE_LATENCY_MS = Number(process.env.BENCH_GOOGLE_LATENCY_MS ?? 0);
const WARM_UP_ROUNDS = 2;
/** The journal sends its entries to auth 5 ms after the call; a round waits for them to land. */
const SETTLE_MS = 30;
const GOAL_MS = 1;
const ONLY = process.env.BENCH_JOURNAL_TOOLS?.split(',').map((tool) => tool.trim());
const families = ONLY ? FAMILIES.filter((family) => ONLY.includes(family.tool)) : FAMILIES;
const profileDir =
  process.env.JOURNAL_PROFILE === '1' ? mkdtempSync(path.join(tmpdir(), 'sheetgate-journal-')) : undefined;
const profiled = (side: 'on' | 'off'): Record<string, string> => {
  if (!profileDir) return {};
  mkdirSync(path.join(profileDir, side));
  return { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${path.join(profileDir, side)}` };
};
const nowMicros = () => Number(process.hrtime.bigint() / 1000n);

interface Side {
  name: 'on' | 'off';
  url: string;
  pid: number;
  times: number[];
  cpu: { mcp: number; emulator: number; auth: number; generator: number };
  google: Map<string, number>;
  /** The measured rounds, on the profile's clock. */
  windows: Array<{ fromMicros: number; toMicros: number }>;
}

const results: Array<{ family: Family; sides: Side[] }> = [];
const bench = await startBenchStack({ mcpEnv: { CHANGE_JOURNAL: 'on', ...profiled('on') } });
try {
  const { stack, jwt } = bench;
  // The second service as the measured one runs: its core, its nice value, its log level.
  const off = await stack.startMcp({ CHANGE_JOURNAL: 'off', LOG_LEVEL: 'info', ...profiled('off') });
  const offPid = off.process.pid!;
  const offPlaced = pin(offPid, SERVER_CORE) && (!NICE || prioritize(offPid, NICE));
  const googleToken = await stack.googleAccessToken(bench.userId);
  if (!googleToken) throw new Error('the emulator gave the bench person no Google access token');
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  let id = 0;
  const callTool = (url: string, name: string, args: Record<string, unknown>) =>
    toolCall(agent, url, jwt, ++id, name, args);
  const google = async (path: string, init: RequestInit = {}) => {
    const response = await fetch(`${stack.emulatorUrl}${path}`, {
      ...init,
      headers: { authorization: `Bearer ${googleToken}`, 'content-type': 'application/json' },
    });
    if (!response.ok) throw new Error(`the emulator answered ${response.status}: ${await response.text()}`);
    return response.json();
  };
  const api: EmulatorApi = {
    get: (path) => google(path),
    async batchUpdate(spreadsheetId, requests) {
      await google(`/v4/spreadsheets/${spreadsheetId}:batchUpdate`, {
        method: 'POST',
        body: JSON.stringify({ requests }),
      });
    },
    async seed(rows) {
      const [spreadsheetId] = await stack.seed('alice@example.com', [
        {
          name: 'Journal bench',
          values: Array.from({ length: rows }, (_, row) => [`r${row}`, row, row * 2]),
        },
      ]);
      return spreadsheetId!;
    },
    callTool: (name, args) => callTool(off.mcpUrl, name, args),
  };
  const stats = async () => {
    const body = (await (await fetch(`${stack.emulatorUrl}/__emulator/stats`)).json()) as {
      methods: Record<string, { attempts: number }>;
    };
    return new Map(Object.entries(body.methods).map(([method, each]) => [method, each.attempts]));
  };
  const pids = {
    emulator: stack.emulatorProcess.pid!,
    auth: stack.auth.process.pid!,
  };

  const perFamily = (SECONDS * 1000) / families.length;
  for (const family of families) {
    const prepared = await family.prepare(api);
    // A fault answers at most 10,000 requests: set again for each family, more than it sends.
    if (GOOGLE_LATENCY_MS) {
      await stack.clearFaults();
      await stack.fault({ match: '^/(v4|drive)/', latencyMs: GOOGLE_LATENCY_MS, count: 10_000 });
    }
    const sides: Side[] = [
      { name: 'on', url: stack.mcpUrl, pid: bench.mcpPid },
      { name: 'off', url: off.mcpUrl, pid: offPid },
    ].map((side) => ({
      ...(side as { name: 'on' | 'off'; url: string; pid: number }),
      times: [],
      cpu: { mcp: 0, emulator: 0, auth: 0, generator: 0 },
      google: new Map(),
      windows: [],
    }));
    let n = 0;
    const round = async (side: Side, measured: boolean) => {
      const googleBefore = await stats();
      const before = {
        mcp: runSeconds(side.pid),
        emulator: runSeconds(pids.emulator),
        auth: runSeconds(pids.auth),
      };
      const generatorBefore = process.cpuUsage();
      const fromMicros = nowMicros();
      const times: number[] = [];
      for (let i = 0; i < BLOCK; i++) {
        const args = prepared.args(++n);
        const started = performance.now();
        await callTool(side.url, family.tool, args);
        times.push(performance.now() - started);
      }
      const generator = process.cpuUsage(generatorBefore);
      await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
      const toMicros = nowMicros();
      const after = {
        mcp: runSeconds(side.pid),
        emulator: runSeconds(pids.emulator),
        auth: runSeconds(pids.auth),
      };
      const googleAfter = await stats();
      await prepared.reset?.();
      if (!measured) return;
      side.times.push(...times);
      side.windows.push({ fromMicros, toMicros });
      side.cpu.mcp += after.mcp - before.mcp;
      side.cpu.emulator += after.emulator - before.emulator;
      side.cpu.auth += after.auth - before.auth;
      side.cpu.generator += (generator.user + generator.system) / 1e6;
      for (const [method, attempts] of googleAfter)
        side.google.set(method, (side.google.get(method) ?? 0) + attempts - (googleBefore.get(method) ?? 0));
    };
    for (let i = 0; i < WARM_UP_ROUNDS; i++) for (const side of sides) await round(side, false);
    const until = performance.now() + perFamily;
    while (performance.now() < until) for (const side of sides) await round(side, true);
    results.push({ family, sides });
  }
  await stack.clearFaults();
  agent.destroy();

  out(
    `bench:journal — one call at a time, rounds of ${BLOCK} calls with the journal on then off, in turn; ${SECONDS} s measured over ${families.length} families; ${GOOGLE_LATENCY_MS ? `the emulator delaying each Sheets and Drive request ${GOOGLE_LATENCY_MS} ms` : 'the emulator answering at once (no added latency)'}`,
  );
  for (const line of bench.placement()) out(line);
  out(
    `  mcp, journal off${' '.repeat(28)} pid ${String(offPid).padStart(7)}  ${offPlaced ? `core ${SERVER_CORE}, nice ${NICE}` : '(not pinned or not reniced)'}`,
  );
  out();
  const micros = (seconds: number, calls: number) => `${Math.round((seconds * 1e6) / calls)} µs`;
  for (const { family, sides } of results) {
    const [on, off] = sides as [Side, Side];
    for (const side of sides) side.times.sort((a, b) => a - b);
    const p50 = (side: Side) => percentile(side.times, 50);
    const added = p50(on) - p50(off);
    const calls = on.times.length;
    const perCall = (side: Side) => sum(side.google) / side.times.length;
    const extra = [...new Set([...on.google.keys(), ...off.google.keys()])]
      .map((method) => ({
        method,
        per: (on.google.get(method) ?? 0) / calls - (off.google.get(method) ?? 0) / off.times.length,
      }))
      .filter((each) => Math.abs(each.per) > 0.001)
      .map((each) => `${each.per > 0 ? '+' : ''}${round2(each.per)} ${each.method}`);
    const mcpAdded = on.cpu.mcp / calls - off.cpu.mcp / off.times.length;
    out(`${family.family} — ${family.tool} (${family.call}), ${calls} calls each side`);
    for (const side of sides)
      out(
        `  journal ${side.name.padEnd(3)}  p50 ${ms(p50(side))}  p95 ${ms(percentile(side.times, 95))}  Google requests/call ${round2(perCall(side))}  CPU/call: mcp ${micros(side.cpu.mcp, side.times.length)}, emulator ${micros(side.cpu.emulator, side.times.length)}, auth ${micros(side.cpu.auth, side.times.length)}, generator ${micros(side.cpu.generator, side.times.length)} (${Math.round((side.cpu.generator / (sumOf(side.times) / 1000)) * 100)}% of its core while calling)`,
      );
    out(
      `  journal adds p50 ${signed(added)} ms, mcp CPU ${signed(mcpAdded * 1000)} ms/call; Google requests ${extra.length ? extra.join(', ') : 'none more'}  (goal ≤ ${GOAL_MS} ms: ${added <= GOAL_MS ? 'met' : 'NOT met'})`,
    );
  }
} finally {
  await bench.stop();
}
if (profileDir) reportJournalProfiles(profileDir, results);

function sum(counts: Map<string, number>): number {
  let total = 0;
  for (const count of counts.values()) total += count;
  return total;
}
function sumOf(values: number[]): number {
  return values.reduce((a, b) => a + b, 0);
}
function round2(value: number): string {
  return value.toFixed(2).replace(/\.?0+$/, '');
}
function signed(value: number): string {
  return `${value >= 0 ? '+' : ''}${value.toFixed(2)}`;
}

/** A `tools/call` with the person's JWT; its structured result, or an error saying why not. */
function toolCall(
  agent: http.Agent,
  url: string,
  credential: Record<string, string>,
  id: number,
  name: string,
  args: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: { name, arguments: args },
  });
  return new Promise((resolve, reject) => {
    const outgoing = http.request(
      url,
      {
        agent,
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2025-11-25',
          ...credential,
        },
      },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          text += chunk;
        });
        response.on('end', () => {
          const reply = parseReply(text) as {
            result?: { isError?: boolean; structuredContent?: Record<string, unknown> };
          };
          if (response.statusCode !== 200 || !reply?.result || reply.result.isError)
            reject(new Error(`${name} answered ${response.statusCode}: ${text.slice(0, 300)}`));
          else resolve(reply.result.structuredContent ?? {});
        });
      },
    );
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

/** A JSON reply, or the last `data:` line of an event stream. */
function parseReply(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    const data = text
      .split('\n')
      .filter((line) => line.startsWith('data:'))
      .at(-1);
    return data ? JSON.parse(data.slice(5)) : undefined;
  }
}
