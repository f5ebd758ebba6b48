/**
 * `pnpm bench` (services/mcp): throughput of `tools/list` with a JWT on the MCP service, beside
 * baselines measured in the same run — bare Koa answering the same bytes, and the SDK's
 * documented stateless pattern with bearer auth — plus RSS after 100k and after 1M requests.
 * Servers run pinned to core 0 (`taskset -c 0`), the load generator (autocannon, this process)
 * to core 1, on 127.0.0.1 only. Every run is bounded in time and request count.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createAccountServiceClient } from '@sheetgate/proto';
import { freePort } from '@sheetgate/test-harness';
import autocannon from 'autocannon';
// Bench-only: auth's own libraries make the user and session the key belongs to.
import { createDatabasePool } from '../../auth/src/db/pool.ts';
import { createSessionStore } from '../../auth/src/sessions/index.ts';
import { createUserLibrary } from '../../auth/src/users/index.ts';
import { startMcpUnderTest } from '../test/support/stack.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = 50;
const LIST = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' });

function pin(core: number, pid: number) {
  try {
    execFileSync('taskset', ['-a', '-p', '-c', String(core), String(pid)], { stdio: 'ignore' });
  } catch {
    process.stdout.write(`(taskset unavailable: pid ${pid} not pinned)\n`);
  }
}

async function startBaseline(
  file: string,
  env: Record<string, string>,
): Promise<{ url: string; child: ChildProcess }> {
  const port = await freePort();
  const child = spawn('taskset', ['-c', '0', process.execPath, path.join(here, file)], {
    env: { ...process.env, ...env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve) => child.stdout?.once('data', () => resolve()));
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
    rps: Math.round(result.requests.average),
    p99: result.latency.p99,
    errors: result.errors + result.non2xx,
  };
}

function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Math.round(Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024);
}

/**
 * A user, a dashboard session and a read-write API key, made as the dashboard makes them: the user
 * and session through auth's own libraries on its database, the key through AccountService.
 */
async function createApiKeyForBench(): Promise<string> {
  const pool = createDatabasePool(stack.database.url, 1);
  try {
    const user = await createUserLibrary(pool).upsertFromGoogle({
      sub: '7001',
      email: 'bench@example.com',
      name: 'Bench',
    });
    const session = await createSessionStore(pool).create(user.id);
    const accounts = createAccountServiceClient({
      address: stack.grpcAddress,
      serviceToken: stack.serviceToken,
    });
    const { secret } = await accounts.createApiKey({
      sessionCookie: session.cookieValue,
      name: 'bench',
      scopes: ['sheets:read', 'sheets:write'],
      expiresAt: '',
    });
    accounts.close();
    return secret;
  } finally {
    await pool.end();
  }
}

pin(1, process.pid);
const stack = await startMcpUnderTest(
  { LOG_LEVEL: 'warn' },
  {
    LOG_LEVEL: 'warn',
    RATE_LIMIT_OVERRIDES: JSON.stringify({ apiKey: { points: 100_000_000, durationSeconds: 60 } }),
    // As deployed: rate-limit counters in Redis when there is one (else in PostgreSQL).
    ...(process.env.REDIS_URL ? { REDIS_URL: process.env.REDIS_URL } : {}),
  },
);
const mcpPid = stack.mcp.process.pid!;
pin(0, mcpPid);
const token = await stack.sign({ exp: Math.floor(Date.now() / 1000) + 3600 });
const auth = { authorization: `Bearer ${token}` };
const listReply = await (
  await fetch(stack.mcpUrl, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json' },
    body: LIST,
  })
).text();

const bare = await startBaseline('bare-koa.ts', { BENCH_BODY: listReply });
const sdk = await startBaseline('sdk-stateless.ts', {
  BASE_URL: stack.baseUrl,
  AUTH_INTERNAL_URL: stack.auth.url,
});

try {
  process.stdout.write(`tools/list, ${CONNECTIONS} connections, ${SECONDS} s per run after a 2 s warm-up\n`);
  const measure = async (name: string, url: string, headers: Record<string, string> = auth) => {
    await load(url, headers, { seconds: 2 });
    const figures = await load(url, headers);
    process.stdout.write(
      `  ${name.padEnd(40)} ${String(figures.rps).padStart(7)} req/s  p99 ${figures.p99} ms  errors ${figures.errors}\n`,
    );
    return figures;
  };
  const koa = await measure('bare Koa, same bytes', bare.url);
  const ours = await measure('Sheetgate MCP service (JWT)', stack.mcpUrl);
  const baseline = await measure('SDK stateless pattern + bearer auth', sdk.url);
  const apiKey = await createApiKeyForBench();
  const keyed = await measure('Sheetgate MCP service (API key)', stack.mcpUrl, { 'x-api-key': apiKey });
  process.stdout.write(`  Sheetgate / bare Koa:     ${(ours.rps / koa.rps).toFixed(2)}x   (goal >= 0.5x)\n`);
  process.stdout.write(
    `  API key / JWT path:       ${(keyed.rps / ours.rps).toFixed(2)}x   (goal >= 0.5x)\n`,
  );
  process.stdout.write(
    `  Sheetgate / SDK pattern:  ${(ours.rps / baseline.rps).toFixed(1)}x   (goal >= 10x)\n`,
  );

  const rssStart = rssMb(mcpPid);
  await load(stack.mcpUrl, auth, { amount: 100_000 });
  const rss100k = rssMb(mcpPid);
  const total = Number(process.env.BENCH_MEMORY_REQUESTS ?? 1_000_000);
  await load(stack.mcpUrl, auth, { amount: total - 100_000 });
  const rss1m = rssMb(mcpPid);
  const growth = ((rss1m - rss100k) / rss100k) * 100;
  process.stdout.write(
    `  RSS: start ${rssStart} MB, after 100k ${rss100k} MB, after ${total / 1000}k ${rss1m} MB (${growth >= 0 ? '+' : ''}${growth.toFixed(1)}%, goal within 10%)\n`,
  );
} finally {
  bare.child.kill();
  sdk.child.kill();
  await stack.stop();
}
