/**
 * `pnpm bench` (services/mcp), every figure from one run:
 *   - `tools/list`'s size in bytes for each toolset and for all of them;
 *   - the range view's HTML gzipped (budget 60 KB) and a 1,000-cell page shown in Chromium
 *     (bench/range-view.ts); the chart view's, and a 1,000-cell chart drawn
 *     (bench/chart-view.ts); the change view's, and a window of 500 cells before and now drawn
 *     (bench/change-view.ts);
 *   - the Google requests one ordinary call of each tool makes, by API method;
 *   - `tools/list` with a JWT on the MCP service vs bare Koa answering the very same bytes, in
 *     each era (legacy 2025-11-25, modern 2026-07-28) (goal ≥ 0.8×), and vs the SDK's documented
 *     stateless pattern with bearer auth (goal ≥ 10×);
 *   - the API-key path vs the JWT path (goal ≥ 0.9×), and auth's CPU per request on each (goal for
 *     API keys: 20-fold below the 26 µs auth spent when it resolved every request; the JWT side,
 *     which asks auth nothing per request, is auth's floor);
 *   - a modern `tools/call read_range` vs a legacy one (goal within 10%);
 *   - `tools/call read_range` overhead over the Google emulator's own latency (p50/p99);
 *   - read_range of 20 rows of a 60,000-row tab vs of a 60-row tab (goal within 3×, at any
 *     offset), and the service's RSS paging through the long tab;
 *   - RSS after 100k and after 1M requests (goal: within 10%);
 *   - revoking an API key served by three MCP replicas under load: the revoke call's p50/p99
 *     (goal p99 < 100 ms) and the requests that started after it returned yet were served (goal 0);
 *   - Google's quota shared for a minute (BENCH_QUOTA_SECONDS): a reader every 2 s beside a
 *     20-call flood, with the emulator and Sheetgate at 120 reads a minute, 60 per person (goal:
 *     every read of the reader answered, p95 < 2 s; Google never answers 429).
 *
 * Throughput comes from wrk (bench/load.ts) on OTHER_CORE against the server alone on
 * SERVER_CORE (bench/bench-stack.ts). The servers are loaded in turn within each round —
 * baseline, subject, baseline, subject … — so whatever else the machine does weighs on each
 * alike; each side's figure is the median of its rounds. Every round prints the generator's CPU
 * and the server's: a ratio is refused when the generator was the bottleneck, and a request the
 * service does not answer with a result (the modern era before it is served) says so instead.
 */
import os from 'node:os';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { rssMb } from '@sheetgate/test-harness';
import { measureGoogleRequestsPerTool } from '../test/support/every-tool-call.ts';
import { NICE, OTHER_CORE, SERVER_CORE, startBenchStack } from './bench-stack.ts';
import { measureChangeView } from './change-view.ts';
import { measureChartView } from './chart-view.ts';
import { ERA_VERSIONS, type Era, type EraRequest, listTools, readRange } from './eras.ts';
import { measureQuotaFairness } from './google-quota.ts';
import { createLoadGenerator } from './load.ts';
import { measureLongTabPages } from './long-tab-pages.ts';
import {
  benchBodyFile,
  latencies,
  ms,
  out,
  percentile,
  request,
  seedBenchSpreadsheet,
} from './one-request.ts';
import { measureRangeView } from './range-view.ts';
import { measureRevocations } from './revocations.ts';
import { cpuRatio, describeSide, measure, median, ratio, type Side, type Target } from './rounds.ts';
import { toolListSizes } from './tool-list-sizes.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const WARM_UP_SECONDS = 2;
const MEMORY_REQUESTS = Number(process.env.BENCH_MEMORY_REQUESTS ?? 1_000_000);
const LATENCY_SAMPLES = Number(process.env.BENCH_LATENCY_SAMPLES ?? 500);
/** What the emulator adds to every values.get while latency is measured (its latencyMs fault). */
const GOOGLE_LATENCY_MS = 20;
const CONNECTIONS = 50;
const ERAS: Era[] = ['legacy', 'modern'];
const RANGE = 'Sheet1!A1:C20';
const REVOKES = Number(process.env.BENCH_REVOKES ?? 50);
const QUOTA_SECONDS = Number(process.env.BENCH_QUOTA_SECONDS ?? 60);

/**
 * The service's answer to `request`: its body when it is a 200 carrying a JSON-RPC result (and,
 * for a tool call, not a tool error); else why not.
 */
async function probe(url: string, request: EraRequest): Promise<{ body: string } | { notServed: string }> {
  const response = await fetch(url, { method: 'POST', headers: request.headers, body: request.body });
  const body = await response.text();
  if (response.status !== 200) return { notServed: `HTTP ${response.status}` };
  let reply: { error?: { code?: number }; result?: { isError?: boolean } };
  try {
    reply = JSON.parse(body) as typeof reply;
  } catch {
    return { notServed: `HTTP 200 but not JSON (${response.headers.get('content-type')})` };
  }
  if (reply.error) return { notServed: `JSON-RPC error ${reply.error.code}` };
  if (reply.result?.isError) return { notServed: 'tool error' };
  return { body };
}

/** Auth's CPU per request of the MCP service's side, in µs (median of its rounds); undefined when not measured. */
function authMicrosPerRequest(side: Side): number | undefined {
  if (side.target.notServed) return undefined;
  const perRound = side.rounds.flatMap((round) => {
    const auth = round.alongsideCpu.auth;
    return auth === undefined ? [] : [(auth / Math.max(1, round.rps)) * 1e6];
  });
  return perRound.length ? median(perRound) : undefined;
}

/** Auth's CPU per API-key request when auth resolved every one (before keys were served at the edge). */
const AUTH_MICROS_PER_KEY_REQUEST_BEFORE = 26;

/** Auth's answered gRPC calls so far, by method (its metrics port's `sheetgate_auth_grpc_calls_total`). */
async function authGrpcCalls(metricsPort: string): Promise<Map<string, number>> {
  const calls = new Map<string, number>();
  const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
  for (const line of text.split('\n')) {
    if (!line.startsWith('sheetgate_auth_grpc_calls_total{')) continue;
    const method = /method="([^"]+)"/.exec(line)?.[1] ?? 'unknown';
    calls.set(method, (calls.get(method) ?? 0) + Number(line.slice(line.lastIndexOf(' ') + 1)));
  }
  return calls;
}

const generator = createLoadGenerator({ cores: OTHER_CORE, connections: CONNECTIONS, nice: NICE });
const bench = await startBenchStack();
try {
  const { stack, mcpPid, jwt, apiKey } = bench;
  const spreadsheetId = await seedBenchSpreadsheet(stack.emulatorUrl, 'Bench', 20);

  const withCredential = (era: EraRequest, credential: Record<string, string>) => ({
    url: stack.mcpUrl,
    headers: { ...era.headers, ...credential },
    body: era.body,
  });
  const targets: Record<string, Target> = {};
  const listBytes: Partial<Record<Era, number>> = {};
  for (const era of ERAS) {
    const list = withCredential(listTools(era), jwt);
    const answer = await probe(stack.mcpUrl, list);
    targets[`koa-${era}`] = { name: 'bare Koa, same bytes', pid: 0, request: list };
    targets[`jwt-${era}`] = {
      name: 'MCP service, JWT',
      pid: mcpPid,
      request: list,
      // Auth is not asked per JWT request: its CPU meanwhile is its floor (timers, revocation
      // heartbeats), printed beside the API-key path's.
      alongside: { auth: stack.auth.process.pid! },
    };
    if ('notServed' in answer) {
      targets[`koa-${era}`]!.notServed = `the service answered ${answer.notServed}`;
      targets[`jwt-${era}`]!.notServed = answer.notServed;
      continue;
    }
    listBytes[era] = Buffer.byteLength(answer.body);
    const bare = await bench.startBaseline('bare-koa.ts', { BENCH_BODY_FILE: benchBodyFile(answer.body) });
    targets[`koa-${era}`] = { ...targets[`koa-${era}`]!, pid: bare.pid, request: { ...list, url: bare.url } };
  }
  const keyList = withCredential(listTools('legacy'), apiKey);
  const keyAnswer = await probe(stack.mcpUrl, keyList);
  targets.key = {
    name: 'MCP service, API key',
    pid: mcpPid,
    request: keyList,
    alongside: { auth: stack.auth.process.pid! },
    ...('notServed' in keyAnswer ? { notServed: keyAnswer.notServed } : {}),
  };
  const sdk = await bench.startBaseline('sdk-stateless.ts', {
    BASE_URL: stack.baseUrl,
    AUTH_INTERNAL_URL: stack.auth.url,
  });
  const sdkList = { ...withCredential(listTools('legacy'), jwt), url: sdk.url };
  const sdkAnswer = await probe(sdk.url, sdkList);
  targets.sdk = {
    name: 'SDK stateless pattern + bearer auth',
    pid: sdk.pid,
    request: sdkList,
    ...('notServed' in sdkAnswer ? { notServed: sdkAnswer.notServed } : {}),
  };
  for (const era of ERAS) {
    const call = withCredential(readRange(era, spreadsheetId, RANGE), jwt);
    const answer = await probe(stack.mcpUrl, call);
    targets[`read-${era}`] = {
      name: `read_range, ${era} ${ERA_VERSIONS[era]}`,
      pid: mcpPid,
      request: call,
      alongside: { auth: stack.auth.process.pid!, emulator: stack.emulatorProcess.pid! },
      ...('notServed' in answer ? { notServed: answer.notServed } : {}),
    };
  }

  out(
    `MCP service benchmark: ${CONNECTIONS} connections, ${SECONDS} s per round after a ${WARM_UP_SECONDS} s warm-up, ${ROUNDS} interleaved rounds, medians`,
  );
  out(`load generator: ${generator.description}`);
  out('placement:');
  for (const line of bench.placement()) out(line);
  out(
    `  auth: API-key rate limits and revocation version ${process.env.REDIS_URL ? 'in Redis' : 'in PostgreSQL (UNLOGGED rate_limits) and in-process'}; MCP coalesces API keys into ResolveApiKeys batches`,
  );
  out(`machine: ${os.cpus().length} cores, load average ${os.loadavg()[0]!.toFixed(2)} at the start`);
  out('tools/list bytes by toolset (legacy reply, from the registry):');
  for (const size of await toolListSizes()) out(`  ${size.sets}: ${size.tools} tools, ${size.bytes} bytes`);
  // MCP Apps views: size against the budget, and a 1,000-cell page shown in Chromium.
  await measureRangeView();
  await measureChartView();
  await measureChangeView();
  out('Google requests per tool call (one ordinary call of each tool, counted by the emulator):');
  const client = await stack.connectClient(bench.userId, 'bench quota counter');
  const perTool = await measureGoogleRequestsPerTool(
    stack,
    bench.userId,
    async (name, args) => (await client.callTool({ name, arguments: args })) as CallToolResult,
  );
  await client.close();
  for (const [tool, methods] of Object.entries(perTool)) {
    const total = Object.values(methods).reduce((sum, count) => sum + count, 0);
    const each = Object.entries(methods).map(([method, count]) => `${method} ${count}`);
    out(`  ${tool.padEnd(20)} ${total}  (${each.join(', ')})`);
  }
  out();

  const served = Object.entries(targets).filter(([, target]) => !target.notServed);
  for (const [, target] of served) await generator.run(target.request, WARM_UP_SECONDS);
  const callsBefore = await authGrpcCalls(stack.authEnv.AUTH_METRICS_PORT!);
  const rounds = Object.fromEntries(Object.keys(targets).map((key) => [key, [] as Side['rounds']]));
  for (let round = 0; round < ROUNDS; round++) {
    for (const [key, target] of served)
      rounds[key]!.push(
        await measure(generator, target, SECONDS, { server: SERVER_CORE, generator: OTHER_CORE }),
      );
  }
  const callsAfter = await authGrpcCalls(stack.authEnv.AUTH_METRICS_PORT!);
  const side = (key: string): Side => ({ target: targets[key]!, rounds: rounds[key]! });
  // Only the API-key rounds ask auth about keys (the read_range rounds ask it for Google tokens).
  const keyCalls = ['ResolveApiKeys', 'LeaseApiKeyAllowance'].map(
    (method) => [method, (callsAfter.get(method) ?? 0) - (callsBefore.get(method) ?? 0)] as const,
  );
  const keyRequests = rounds.key!.reduce((sum, round) => sum + round.requests, 0);

  for (const era of ERAS) {
    out(
      `tools/list with a JWT, ${era} era (MCP-Protocol-Version ${ERA_VERSIONS[era]}${listBytes[era] ? `, ${listBytes[era]} bytes` : ''}):`,
    );
    for (const key of [`koa-${era}`, `jwt-${era}`]) for (const line of describeSide(side(key))) out(line);
    out(`  MCP service / bare Koa:   ${ratio(side(`jwt-${era}`), side(`koa-${era}`)).text}   goal >= 0.8x`);
    out(
      `  server CPU per request, bare Koa / MCP service: ${cpuRatio(side(`koa-${era}`), side(`jwt-${era}`))}`,
    );
    out();
  }
  out('tools/list, legacy era, other paths:');
  for (const key of ['key', 'sdk']) for (const line of describeSide(side(key))) out(line);
  out(`  API-key path / JWT path:  ${ratio(side('key'), side('jwt-legacy')).text}   goal >= 0.9x`);
  // Before keys were served at the edge (auth resolving every request) this was 26 µs; with
  // leases of API_KEY_LEASE_SIZE (50) for every key, 16 µs: a unary gRPC call costs auth ~0.5 ms of
  // CPU here. Goal: 20-fold below 26 µs.
  const authKey = authMicrosPerRequest(side('key'));
  const authJwt = authMicrosPerRequest(side('jwt-legacy'));
  // Auth's CPU in the API-key rounds beyond its floor (its CPU share in the JWT rounds), per request.
  const medianAuthCpu = (key: string) =>
    median(side(key).rounds.map((round) => round.alongsideCpu.auth ?? Number.NaN));
  const keyRps = median(side('key').rounds.map((round) => round.rps));
  const aboveFloor = ((medianAuthCpu('key') - medianAuthCpu('jwt-legacy')) / Math.max(1, keyRps)) * 1e6;
  const micros = (value: number | undefined) =>
    value === undefined ? 'not measured' : `${value.toFixed(2)} µs`;
  out(
    `  auth CPU per request:     API key ${micros(authKey)}${authKey ? ` (${(AUTH_MICROS_PER_KEY_REQUEST_BEFORE / authKey).toFixed(0)}-fold below the ${AUTH_MICROS_PER_KEY_REQUEST_BEFORE} µs of auth resolving every request)` : ''}; JWT ${micros(authJwt)} (auth's floor: asked nothing per request); API key above the floor ${Number.isFinite(aboveFloor) ? `${aboveFloor.toFixed(2)} µs` : 'not measured'}   goal API key <= ${(AUTH_MICROS_PER_KEY_REQUEST_BEFORE / 20).toFixed(1)} µs (20-fold)`,
  );
  out(
    `  auth calls about keys:    ${keyCalls.map(([method, count]) => `${method} ${count}`).join(', ')} for ${keyRequests} API-key requests (${keyRequests ? ((keyCalls.reduce((sum, [, count]) => sum + count, 0) / keyRequests) * 1000).toFixed(2) : '-'} per 1,000)`,
  );
  out(`  JWT path / SDK pattern:   ${ratio(side('jwt-legacy'), side('sdk')).text}   goal >= 10x`);
  out();
  out(
    `tools/call read_range of ${RANGE} with a JWT (each call: a broker call to auth, values.get on the emulator):`,
  );
  for (const era of ERAS) for (const line of describeSide(side(`read-${era}`))) out(line);
  out(`  modern / legacy, throughput:          ${ratio(side('read-modern'), side('read-legacy')).text}`);
  out(
    `  modern / legacy, server CPU per call: ${cpuRatio(side('read-modern'), side('read-legacy'))}   goal within 10%`,
  );
  out();

  // read_range through the MCP service against the same values.get straight at the emulator, both
  // with the emulator answering after GOOGLE_LATENCY_MS, one request at a time.
  const googleToken = await stack.googleAccessToken(bench.userId);
  const samples = LATENCY_SAMPLES + 20;
  const slowGoogle = () =>
    stack.fault({ match: 'sheets.spreadsheets.values.get', latencyMs: GOOGLE_LATENCY_MS, count: samples });
  await slowGoogle();
  const direct = await latencies(LATENCY_SAMPLES, (agent) =>
    request(agent, `${stack.emulatorUrl}/v4/spreadsheets/${spreadsheetId}/values/Sheet1!A1%3AC20`, {
      method: 'GET',
      headers: { authorization: `Bearer ${googleToken}` },
    }),
  );
  out(
    `tools/call read_range, ${LATENCY_SAMPLES} calls one at a time, emulator latencyMs ${GOOGLE_LATENCY_MS}:`,
  );
  out(
    `  emulator values.get directly       p50 ${ms(percentile(direct, 50))}  p99 ${ms(percentile(direct, 99))}`,
  );
  for (const era of ERAS) {
    const target = targets[`read-${era}`]!;
    if (target.notServed) {
      out(`  through the MCP service, ${era.padEnd(6)}   not served (${target.notServed})`);
      continue;
    }
    await slowGoogle();
    const through = await latencies(LATENCY_SAMPLES, (agent) =>
      request(agent, stack.mcpUrl, {
        method: 'POST',
        headers: target.request.headers,
        body: target.request.body,
      }),
    );
    out(
      `  through the MCP service, ${era.padEnd(6)}   p50 ${ms(percentile(through, 50))}  p99 ${ms(percentile(through, 99))}  overhead p50 ${ms(percentile(through, 50) - percentile(direct, 50))}  p99 ${ms(percentile(through, 99) - percentile(direct, 99))}`,
    );
  }
  await stack.clearFaults();
  out();

  await measureLongTabPages(bench, LATENCY_SAMPLES);

  // wrk runs for a time, not a count: runs sized from the measured rate until the count is reached.
  const jwtList = targets['jwt-legacy']!;
  const rate = median(rounds['jwt-legacy']!.map((round) => round.rps));
  let sent = 0;
  const sendUpTo = async (count: number) => {
    while (sent < count) {
      const seconds = Math.min(60, Math.max(1, Math.ceil((count - sent) / rate)));
      sent += (await generator.run(jwtList.request, seconds)).requests;
    }
  };
  const rssStart = rssMb(mcpPid);
  await sendUpTo(100_000);
  const rss100k = rssMb(mcpPid);
  const at100k = sent;
  await sendUpTo(MEMORY_REQUESTS);
  const rssEnd = rssMb(mcpPid);
  const growth = ((rssEnd - rss100k) / rss100k) * 100;
  out(
    `MCP service RSS: ${rssStart} MB before, ${rss100k} MB after ${Math.round(at100k / 1000)}k requests, ${rssEnd} MB after ${Math.round(sent / 1000)}k (${growth >= 0 ? '+' : ''}${growth.toFixed(1)}%; goal: at most +10%, ${growth <= 10 ? 'met' : 'NOT met'})`,
  );
  out();

  const revocations = await measureRevocations(stack, bench.sessionCookie, { replicas: 3, revokes: REVOKES });
  const revokeMs = revocations.latenciesMs;
  out(
    `API key revoked through AccountService while ${revocations.replicas} MCP replicas serve it, ${revocations.revokes} times:`,
  );
  out(
    `  revoke call   p50 ${ms(percentile(revokeMs, 50))}  p99 ${ms(percentile(revokeMs, 99))}  max ${ms(revokeMs.at(-1)!)}   goal p99 < 100 ms`,
  );
  out(
    `  requests started after the call returned: ${revocations.checkedAfter}, served anyway: ${revocations.acceptedAfter}   goal 0`,
  );
  out();

  // A stack of its own (the quotas are auth's settings), after the bench stack's measurements.
  out("Google's quota shared under load (issue 22):");
  for (const line of await measureQuotaFairness(QUOTA_SECONDS)) out(`  ${line}`);
  out(`machine: load average ${os.loadavg()[0]!.toFixed(2)} at the end`);
} finally {
  await bench.stop();
}
