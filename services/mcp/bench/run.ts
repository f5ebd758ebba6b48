/**
 * `pnpm bench` (services/mcp), every figure from one run:
 *   - `tools/list` with a JWT on the MCP service vs bare Koa answering the same bytes (goal ≥ 0.5×)
 *     and vs the SDK's documented stateless pattern with bearer auth (goal ≥ 10×);
 *   - the API-key path vs the JWT path (goal ≥ 0.5×);
 *   - `tools/call read_range` overhead over the Google emulator's own latency (p50/p99);
 *   - RSS after 100k and after 1M requests (goal: within 10%).
 *
 * Placement (a 2-core machine): the server being measured — the MCP service, bare Koa, the SDK
 * pattern — alone on SERVER_CORE; everything else on OTHER_CORE: this process (the load
 * generator, autocannon), auth, the embedded PostgreSQL (its own process when DATABASE_URL is
 * unset) and the Google emulator. PostgreSQL and Redis servers named by DATABASE_URL/REDIS_URL
 * are shared machines' servers and are not moved. The bench prints where each process runs, which
 * backends auth uses, and how busy each process was, so a saturated load generator shows.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { allowedCores, busyWhile, freePort, pin, rssMb, startBenchDatabase } from '@sheetgate/test-harness';
import autocannon from 'autocannon';
import { type McpUnderTest, startMcpUnderTest } from '../test/support/stack.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const MEMORY_REQUESTS = Number(process.env.BENCH_MEMORY_REQUESTS ?? 1_000_000);
const LATENCY_SAMPLES = Number(process.env.BENCH_LATENCY_SAMPLES ?? 500);
/** What the emulator adds to every values.get while latency is measured (its latencyMs fault). */
const GOOGLE_LATENCY_MS = 20;
const CONNECTIONS = 50;
const SERVER_CORE = process.env.BENCH_SERVER_CORE ?? '1';
const OTHER_CORE = process.env.BENCH_OTHER_CORE ?? '0';
const LIST = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' });

const out = (line = '') => process.stdout.write(`${line}\n`);
const placed: Array<{ name: string; pid: number }> = [];

function place(name: string, pid: number, cores: string) {
  if (!pin(pid, cores)) out(`(taskset unavailable: ${name} not pinned)`);
  placed.push({ name, pid });
}

async function startBaseline(file: string, env: Record<string, string>) {
  const port = await freePort();
  const child = spawn(process.execPath, [path.join(here, file)], {
    env: { ...process.env, ...env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve) => child.stdout?.once('data', () => resolve()));
  place(file.replace('.ts', ''), child.pid!, SERVER_CORE);
  return { url: `http://127.0.0.1:${port}/api/mcp`, child };
}

async function load(
  url: string,
  headers: Record<string, string>,
  options: { seconds?: number; amount?: number } = {},
) {
  const result = await autocannon({
    url,
    method: 'POST',
    connections: CONNECTIONS,
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...headers,
    },
    body: LIST,
    ...(options.amount ? { amount: options.amount } : { duration: options.seconds ?? SECONDS }),
  });
  return {
    rps: result.requests.average,
    p99: result.latency.p99,
    errors: result.errors + result.non2xx,
    bytes: result.throughput.total / Math.max(1, result.requests.total),
  };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;

/** Sequential request latencies (ms) over one keep-alive connection: no queueing, only the path. */
async function latencies(samples: number, send: (agent: http.Agent) => Promise<void>): Promise<number[]> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  for (let i = 0; i < 20; i++) await send(agent);
  const times: number[] = [];
  for (let i = 0; i < samples; i++) {
    const started = performance.now();
    await send(agent);
    times.push(performance.now() - started);
  }
  agent.destroy();
  return times.sort((a, b) => a - b);
}

function request(
  agent: http.Agent,
  url: string,
  options: { method: string; headers: Record<string, string>; body?: string },
): Promise<void> {
  return new Promise((resolve, reject) => {
    const outgoing = http.request(
      url,
      { agent, method: options.method, headers: options.headers },
      (response) => {
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          body += chunk;
        });
        response.on('end', () =>
          response.statusCode === 200 && !body.includes('"isError":true')
            ? resolve()
            : reject(new Error(`${url} answered ${response.statusCode}: ${body.slice(0, 200)}`)),
        );
      },
    );
    outgoing.on('error', reject);
    outgoing.end(options.body);
  });
}

pin(process.pid, OTHER_CORE);
placed.push({ name: 'load generator (this process, autocannon)', pid: process.pid });
const database = await startBenchDatabase(OTHER_CORE);
if (database.pid) placed.push({ name: 'embedded PostgreSQL (PGlite)', pid: database.pid });
let stack: McpUnderTest | undefined;
const baselines: ChildProcess[] = [];
try {
  stack = await startMcpUnderTest(
    { LOG_LEVEL: 'warn' },
    {
      LOG_LEVEL: 'warn',
      RATE_LIMIT_OVERRIDES: JSON.stringify({ apiKey: { points: 100_000_000, durationSeconds: 60 } }),
    },
    { database },
  );
  place('Google emulator', stack.emulatorProcess.pid!, OTHER_CORE);
  place('auth', stack.auth.process.pid!, OTHER_CORE);
  const mcpPid = stack.mcp.process.pid!;
  place('mcp (measured)', mcpPid, SERVER_CORE);

  const person = await stack.signIn('alice@example.com');
  const token = await stack.sign({ sub: person.userId, exp: Math.floor(Date.now() / 1000) + 3600 });
  const jwt = { authorization: `Bearer ${token}` };
  const apiKey = { 'x-api-key': (await stack.createApiKey(person.sessionCookie)).secret };
  const listReply = await (
    await fetch(stack.mcpUrl, {
      method: 'POST',
      headers: { ...jwt, 'content-type': 'application/json' },
      body: LIST,
    })
  ).text();
  const bare = await startBaseline('bare-koa.ts', { BENCH_BODY: listReply });
  baselines.push(bare.child);
  const sdk = await startBaseline('sdk-stateless.ts', {
    BASE_URL: stack.baseUrl,
    AUTH_INTERNAL_URL: stack.auth.url,
  });
  baselines.push(sdk.child);

  out(
    `MCP service benchmark: ${CONNECTIONS} connections, ${SECONDS} s per run after a 2 s warm-up, median of ${ROUNDS}`,
  );
  out('placement:');
  for (const { name, pid } of placed)
    out(`  ${name.padEnd(44)} pid ${String(pid).padStart(7)}  cores ${allowedCores(pid)}`);
  const redis = process.env.REDIS_URL
    ? `at ${new URL(process.env.REDIS_URL).host} (external, not pinned)`
    : 'none';
  out(
    `backends: PostgreSQL ${database.kind === 'embedded' ? 'embedded (PGlite, the process above)' : `server at ${new URL(database.url).host} (external, not pinned)`}; Redis ${redis}`,
  );
  out(
    `  auth: API-key rate limits and revocation version ${process.env.REDIS_URL ? 'in Redis' : 'in PostgreSQL (UNLOGGED rate_limits) and in-process'}; MCP coalesces API keys into ResolveApiKeys batches`,
  );
  out();

  const authPid = stack.auth.process.pid!;
  // The targets are measured in turn within each round (not one after the other for all rounds),
  // so that whatever else the machine does weighs on every target alike; each ratio is the median
  // of the ratios of the rounds.
  const targets = {
    koa: { name: 'bare Koa, same bytes', url: bare.url, pid: bare.child.pid!, headers: jwt },
    jwt: { name: 'Sheetgate MCP service, JWT', url: stack.mcpUrl, pid: mcpPid, headers: jwt },
    key: { name: 'Sheetgate MCP service, API key', url: stack.mcpUrl, pid: mcpPid, headers: apiKey },
    sdk: { name: 'SDK stateless pattern + bearer auth', url: sdk.url, pid: sdk.child.pid!, headers: jwt },
  };
  type Target = keyof typeof targets;
  type Round = { rps: number; p99: number; errors: number; busy: Record<string, number> };
  const rounds = Object.fromEntries(Object.keys(targets).map((name) => [name, [] as Round[]])) as Record<
    Target,
    Round[]
  >;
  for (const target of Object.values(targets)) await load(target.url, target.headers, { seconds: 2 });
  for (let round = 0; round < ROUNDS; round++) {
    for (const [name, target] of Object.entries(targets) as Array<[Target, (typeof targets)[Target]]>) {
      const { result, busy } = await busyWhile({ server: target.pid, auth: authPid, load: process.pid }, () =>
        load(target.url, target.headers),
      );
      rounds[name].push({ ...result, busy });
    }
  }
  out(`tools/list (${listReply.length} bytes):`);
  for (const [name, target] of Object.entries(targets) as Array<[Target, (typeof targets)[Target]]>) {
    const rps = median(rounds[name].map((round) => round.rps));
    const chosen = rounds[name].find((round) => round.rps === rps)!;
    const cpu = `server ${(chosen.busy.server! * 100).toFixed(0)}%, auth ${(chosen.busy.auth! * 100).toFixed(0)}%, load generator ${(chosen.busy.load! * 100).toFixed(0)}%`;
    const errors = rounds[name].reduce((sum, round) => sum + round.errors, 0);
    out(
      `  ${target.name.padEnd(38)} ${Math.round(rps).toString().padStart(7)} req/s  p99 ${chosen.p99} ms  errors ${errors}  (cpu: ${cpu})`,
    );
    if (chosen.busy.server! < 0.9) out('    ! the server was not saturated: something else limited this run');
  }
  const ratio = (over: Target, under: Target) =>
    median(rounds[over].map((round, index) => round.rps / rounds[under][index]!.rps));
  const perRound = (over: Target, under: Target) =>
    rounds[over].map((round, index) => (round.rps / rounds[under][index]!.rps).toFixed(2)).join(', ');
  out(
    `  JWT path / bare Koa:          ${ratio('jwt', 'koa').toFixed(2)}x   (goal >= 0.5x; rounds ${perRound('jwt', 'koa')})`,
  );
  out(
    `  JWT path / SDK pattern:       ${ratio('jwt', 'sdk').toFixed(1)}x   (goal >= 10x; rounds ${perRound('jwt', 'sdk')})`,
  );
  out(
    `  API-key path / JWT path:      ${ratio('key', 'jwt').toFixed(2)}x   (goal >= 0.5x; rounds ${perRound('key', 'jwt')})`,
  );
  for (const child of baselines) child.kill();
  out();

  // read_range through the MCP service against the same values.get straight at the emulator, both
  // with the emulator answering after GOOGLE_LATENCY_MS, one request at a time.
  const seeded = await fetch(`${stack.emulatorUrl}/__emulator/seed`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      email: 'alice@example.com',
      files: [{ name: 'Bench', values: Array.from({ length: 20 }, (_, row) => [`r${row}`, row, row * 2]) }],
    }),
  });
  const spreadsheetId = ((await seeded.json()) as { files: Array<{ id: string }> }).files[0]!.id;
  const googleToken = await stack.googleAccessToken(person.userId);
  const samples = LATENCY_SAMPLES + 20;
  await stack.fault({
    match: 'sheets.spreadsheets.values.get',
    latencyMs: GOOGLE_LATENCY_MS,
    count: samples,
  });
  const direct = await latencies(LATENCY_SAMPLES, (agent) =>
    request(agent, `${stack!.emulatorUrl}/v4/spreadsheets/${spreadsheetId}/values/Sheet1!A1%3AC20`, {
      method: 'GET',
      headers: { authorization: `Bearer ${googleToken}` },
    }),
  );
  await stack.fault({
    match: 'sheets.spreadsheets.values.get',
    latencyMs: GOOGLE_LATENCY_MS,
    count: samples,
  });
  const call = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: { name: 'read_range', arguments: { spreadsheetId, range: 'Sheet1!A1:C20' } },
  });
  const through = await latencies(LATENCY_SAMPLES, (agent) =>
    request(agent, stack!.mcpUrl, {
      method: 'POST',
      headers: { ...jwt, 'content-type': 'application/json', accept: 'application/json' },
      body: call,
    }),
  );
  await stack.clearFaults();
  const ms = (value: number) => `${value.toFixed(2)} ms`;
  out(
    `tools/call read_range, ${LATENCY_SAMPLES} calls one at a time, emulator latencyMs ${GOOGLE_LATENCY_MS}:`,
  );
  out(
    `  emulator values.get directly     p50 ${ms(percentile(direct, 50))}  p99 ${ms(percentile(direct, 99))}`,
  );
  out(
    `  through the MCP service (JWT)    p50 ${ms(percentile(through, 50))}  p99 ${ms(percentile(through, 99))}`,
  );
  out(
    `  overhead                         p50 ${ms(percentile(through, 50) - percentile(direct, 50))}  p99 ${ms(percentile(through, 99) - percentile(direct, 99))}`,
  );
  out();

  const rssStart = rssMb(mcpPid);
  await load(stack.mcpUrl, jwt, { amount: 100_000 });
  const rss100k = rssMb(mcpPid);
  await load(stack.mcpUrl, jwt, { amount: MEMORY_REQUESTS - 100_000 });
  const rssEnd = rssMb(mcpPid);
  const growth = ((rssEnd - rss100k) / rss100k) * 100;
  out(
    `MCP service RSS: ${rssStart} MB before, ${rss100k} MB after 100k requests, ${rssEnd} MB after ${MEMORY_REQUESTS / 1000}k (${growth >= 0 ? '+' : ''}${growth.toFixed(1)}%, goal within 10%)`,
  );
} finally {
  for (const child of baselines) child.kill();
  await stack?.stop();
  if (!stack) await database.close();
}
