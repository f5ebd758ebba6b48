/**
 * `pnpm bench` (services/auth): refresh-token grants per second at the token endpoint and
 * ResolveApiKey calls per second over gRPC, each beside a baseline measured in the same run — a
 * bare SELECT by primary key on the same database, and a bare gRPC echo. The auth process runs on
 * core 0 (`taskset`), this load generator on core 1. Bounded in time; loopback only.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  discoverAuthorizationServerMetadata,
  exchangeAuthorization,
  registerClient,
  startAuthorization,
} from '@modelcontextprotocol/sdk/client/auth.js';
import { createAccountServiceClient, createTokenBrokerClient } from '@sheetgate/proto';
import { createBrowser, freePort } from '@sheetgate/test-harness';
import { createDatabasePool } from '../src/db/pool.ts';
import { createCsrfTokens } from '../src/interactions/csrf.ts';
import { createSessionStore } from '../src/sessions/index.ts';
import { createUserLibrary } from '../src/users/index.ts';
import { startAuthUnderTest } from '../test/support/auth-process.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONCURRENCY = 20;
const here = path.dirname(fileURLToPath(import.meta.url));

function pin(core: number, pid: number) {
  try {
    execFileSync('taskset', ['-a', '-p', '-c', String(core), String(pid)], { stdio: 'ignore' });
  } catch {
    process.stdout.write(`(taskset unavailable: pid ${pid} not pinned)\n`);
  }
}

/** Runs `work` in `CONCURRENCY` loops for SECONDS; returns completed operations per second. */
async function throughput(work: (lane: number) => Promise<void>): Promise<number> {
  const until = Date.now() + SECONDS * 1000;
  let done = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async (_, lane) => {
      while (Date.now() < until) {
        await work(lane);
        done++;
      }
    }),
  );
  return Math.round(done / SECONDS);
}

pin(1, process.pid);
const subject = await startAuthUnderTest({
  LOG_LEVEL: 'warn',
  RATE_LIMIT_OVERRIDES: JSON.stringify({
    apiKey: { points: 10_000_000, durationSeconds: 60 },
    token: { points: 10_000_000, durationSeconds: 60 },
    authIp: { points: 10_000_000, durationSeconds: 60 },
    register: { points: 10_000, durationSeconds: 3600 },
  }),
});
pin(0, subject.auth.process.pid!);
const pool = createDatabasePool(subject.database.url, CONCURRENCY);
let echo: ChildProcess | undefined;
try {
  const user = await createUserLibrary(pool).upsertFromGoogle({
    sub: '9001',
    email: 'bench@example.com',
    name: 'Bench',
  });
  const session = await createSessionStore(pool).create(user.id);
  const csrf = createCsrfTokens(subject.env.AUTH_COOKIE_KEYS!.split(',')[0]!);
  const metadata = (await discoverAuthorizationServerMetadata(subject.baseUrl))!;
  const resource = new URL(`${subject.baseUrl}/api/mcp`);
  const redirect = 'http://127.0.0.1:45555/cb';

  // One OAuth connection per lane: each lane then refreshes its own chain as fast as it can.
  const chains: Array<{ clientId: string; refreshToken: string }> = [];
  for (let lane = 0; lane < CONCURRENCY; lane++) {
    const client = await registerClient(subject.baseUrl, {
      metadata,
      clientMetadata: {
        client_name: `bench ${lane}`,
        redirect_uris: [redirect],
        token_endpoint_auth_method: 'none',
      },
    });
    const browser = createBrowser();
    await browser.jar.setCookie(`sg_session=${session.cookieValue}; Path=/`, subject.baseUrl);
    const { authorizationUrl, codeVerifier } = await startAuthorization(subject.baseUrl, {
      metadata,
      clientInformation: client,
      redirectUrl: redirect,
      scope: 'sheets:read sheets:write',
      resource,
    });
    const atConsent = await browser.navigate(
      authorizationUrl.href,
      {},
      (url) => url.pathname === '/authorize',
    );
    const uid = new URL(atConsent.redirects.at(-1)!).searchParams.get('interaction')!;
    const posted = await browser.submitForm(`${subject.baseUrl}/api/auth/interaction/${uid}/consent`, {
      decision: 'allow',
      csrf: csrf.issue('consent', uid),
    });
    const back = await browser.navigate(posted.location!, {}, (url) => url.href.startsWith(redirect));
    const code = new URL(back.redirects.at(-1)!).searchParams.get('code')!;
    const tokens = await exchangeAuthorization(subject.baseUrl, {
      metadata,
      clientInformation: client,
      authorizationCode: code,
      codeVerifier,
      redirectUri: redirect,
      resource,
    });
    chains.push({ clientId: client.client_id, refreshToken: tokens.refresh_token! });
  }

  const token = `${subject.baseUrl}/api/auth/oauth2/token`;
  const refreshes = await throughput(async (lane) => {
    const chain = chains[lane]!;
    const response = await fetch(token, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'refresh_token',
        refresh_token: chain.refreshToken,
        client_id: chain.clientId,
      }),
    });
    const body = (await response.json()) as { refresh_token?: string; error?: string };
    if (!body.refresh_token) throw new Error(`refresh failed: ${body.error}`);
    chain.refreshToken = body.refresh_token;
  });
  const selects = await throughput(async () => {
    await pool.query('SELECT id, email FROM users WHERE id = $1', [user.id]);
  });

  const accounts = createAccountServiceClient({
    address: `127.0.0.1:${subject.env.AUTH_GRPC_PORT}`,
    serviceToken: subject.env.INTERNAL_SERVICE_TOKEN!,
  });
  const { secret } = await accounts.createApiKey({
    sessionCookie: session.cookieValue,
    name: 'bench',
    scopes: ['sheets:read'],
    expiresAt: '',
  });
  accounts.close();
  const broker = createTokenBrokerClient({
    address: `127.0.0.1:${subject.env.AUTH_GRPC_PORT}`,
    serviceToken: subject.env.INTERNAL_SERVICE_TOKEN!,
  });
  const resolves = await throughput(async () => {
    const answer = await broker.resolveApiKey({ apiKey: secret });
    if (!answer.resolved) throw new Error(`key refused: ${answer.refused?.reason}`);
  });
  broker.close();

  const echoPort = await freePort();
  echo = spawn('taskset', ['-c', '0', process.execPath, path.join(here, 'grpc-echo.ts')], {
    env: {
      ...process.env,
      PORT: String(echoPort),
      INTERNAL_SERVICE_TOKEN: subject.env.INTERNAL_SERVICE_TOKEN,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve) => echo?.stdout?.once('data', () => resolve()));
  const bare = createTokenBrokerClient({
    address: `127.0.0.1:${echoPort}`,
    serviceToken: subject.env.INTERNAL_SERVICE_TOKEN!,
  });
  const echoes = await throughput(async () => void (await bare.resolveApiKey({ apiKey: secret })));
  bare.close();

  process.stdout.write(
    `auth service, ${CONCURRENCY} concurrent callers, ${SECONDS} s per figure, database: ${subject.database.kind}, cache: ${subject.redis.kind === 'none' ? 'in-process' : 'redis'}\n`,
  );
  process.stdout.write(`  refresh grants (token endpoint)      ${String(refreshes).padStart(7)} /s\n`);
  process.stdout.write(`  baseline: SELECT by primary key      ${String(selects).padStart(7)} /s\n`);
  process.stdout.write(`  ResolveApiKey (gRPC)                 ${String(resolves).padStart(7)} /s\n`);
  process.stdout.write(`  baseline: bare gRPC echo             ${String(echoes).padStart(7)} /s\n`);
} finally {
  echo?.kill();
  await pool.end();
  await subject.stop();
}
