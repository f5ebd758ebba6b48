/**
 * `pnpm bench` (services/auth): refresh-token grants per second at the token endpoint, and API
 * keys resolved per second over gRPC — one key per ResolveApiKeys call, and in batches as the MCP
 * service sends them — each beside a baseline measured in the same run: a bare SELECT by
 * primary key on the same database, and a bare gRPC echo. The measured server (auth, then the
 * echo) runs alone on SERVER_CORE; this load generator and the embedded PostgreSQL (its own
 * process when DATABASE_URL is unset) on OTHER_CORE. Bounded in time; loopback only.
 */

import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  discoverAuthorizationServerMetadata,
  exchangeAuthorization,
  registerClient,
  startAuthorization,
} from '@modelcontextprotocol/sdk/client/auth.js';
import { createAccountServiceClient, createTokenBrokerClient } from '@sheetgate/proto';
import {
  allowedCores,
  busyWhile,
  createBrowser,
  freePort,
  generateLocalSecrets,
  pin,
  startBenchDatabase,
  startServiceProcess,
} from '@sheetgate/test-harness';
import { createDatabasePool } from '../src/db/pool.ts';
import { createCsrfTokens } from '../src/interactions/csrf.ts';
import { createSessionStore } from '../src/sessions/index.ts';
import { createUserLibrary } from '../src/users/index.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONCURRENCY = 20;
/** Keys per ResolveApiKeys call: what the MCP service coalesces from 50 concurrent requests. */
const BATCH = 50;
const SERVER_CORE = process.env.BENCH_SERVER_CORE ?? '1';
const OTHER_CORE = process.env.BENCH_OTHER_CORE ?? '0';
const here = path.dirname(fileURLToPath(import.meta.url));
const out = (line: string) => process.stdout.write(`${line}\n`);

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

pin(process.pid, OTHER_CORE);
const database = await startBenchDatabase(OTHER_CORE);
const authPort = await freePort();
const env: Record<string, string> = {
  ...generateLocalSecrets(),
  BASE_URL: `http://127.0.0.1:${authPort}`,
  AUTH_PORT: String(authPort),
  AUTH_GRPC_PORT: String(await freePort()),
  AUTH_METRICS_PORT: String(await freePort()),
  DATABASE_URL: database.url,
  INTERNAL_SERVICE_TOKEN: randomBytes(32).toString('base64url'),
  GOOGLE_CLIENT_ID: 'bench-client.apps.googleusercontent.com',
  GOOGLE_CLIENT_SECRET: randomBytes(16).toString('hex'),
  RATE_LIMIT_KEY_PREFIX: `bench:${randomBytes(6).toString('hex')}`,
  LOG_LEVEL: 'warn',
  RATE_LIMIT_OVERRIDES: JSON.stringify({
    apiKey: { points: 100_000_000, durationSeconds: 60 },
    token: { points: 10_000_000, durationSeconds: 60 },
    authIp: { points: 10_000_000, durationSeconds: 60 },
    register: { points: 10_000, durationSeconds: 3600 },
  }),
  ...(process.env.REDIS_URL ? { REDIS_URL: process.env.REDIS_URL } : {}),
};
const auth = await startServiceProcess('auth', env, authPort);
pin(auth.process.pid!, SERVER_CORE);
const subject = { env, baseUrl: env.BASE_URL!, database };
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
  const authPid = auth.process.pid!;
  const resolves = await busyWhile({ auth: authPid, load: process.pid }, () =>
    throughput(async () => {
      const [answer] = (await broker.resolveApiKeys({ apiKeys: [secret], clientAddresses: [] })).results;
      if (!answer?.resolved) throw new Error(`key refused: ${answer?.refused?.reason}`);
    }),
  );
  const batch = Array.from({ length: BATCH }, () => secret);
  const batched = await busyWhile({ auth: authPid, load: process.pid }, () =>
    throughput(async () => {
      const { results } = await broker.resolveApiKeys({ apiKeys: batch, clientAddresses: [] });
      if (!results.every((result) => result.resolved)) throw new Error('a key of the batch was refused');
    }),
  );
  broker.close();

  const echoPort = await freePort();
  echo = spawn(process.execPath, [path.join(here, 'grpc-echo.ts')], {
    env: {
      ...process.env,
      PORT: String(echoPort),
      INTERNAL_SERVICE_TOKEN: subject.env.INTERNAL_SERVICE_TOKEN,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve) => echo?.stdout?.once('data', () => resolve()));
  pin(echo.pid!, SERVER_CORE);
  const bare = createTokenBrokerClient({
    address: `127.0.0.1:${echoPort}`,
    serviceToken: subject.env.INTERNAL_SERVICE_TOKEN!,
  });
  const echoes = await busyWhile({ echo: echo.pid!, load: process.pid }, () =>
    throughput(async () => void (await bare.resolveApiKeys({ apiKeys: [secret], clientAddresses: [] }))),
  );
  bare.close();

  const cpu = (busy: Record<string, number>) =>
    Object.entries(busy)
      .map(([name, share]) => `${name} ${(share * 100).toFixed(0)}%`)
      .join(', ');
  out(`auth service benchmark: ${CONCURRENCY} concurrent callers, ${SECONDS} s per figure`);
  out(
    `placement: auth pid ${authPid} cores ${allowedCores(authPid)}; load generator pid ${process.pid} cores ${allowedCores(process.pid)}${database.pid ? `; embedded PostgreSQL pid ${database.pid} cores ${allowedCores(database.pid)}` : ''}; echo on cores ${SERVER_CORE}`,
  );
  out(
    `backends: PostgreSQL ${database.kind === 'embedded' ? 'embedded (PGlite, its own process)' : `server at ${new URL(database.url).host} (external, not pinned)`}; Redis ${process.env.REDIS_URL ? `at ${new URL(process.env.REDIS_URL).host} (external, not pinned)` : 'none (rate limits in PostgreSQL, revocations in-process)'}`,
  );
  out(`  refresh grants (token endpoint)          ${String(refreshes).padStart(7)} /s`);
  out(`  baseline: SELECT by primary key          ${String(selects).padStart(7)} /s`);
  out(
    `  ResolveApiKeys, one key per call         ${String(resolves.result).padStart(7)} keys/s  (cpu: ${cpu(resolves.busy)})`,
  );
  out(
    `  ResolveApiKeys, ${BATCH} keys per call        ${String(batched.result * BATCH).padStart(7)} keys/s  (cpu: ${cpu(batched.busy)})`,
  );
  out(
    `  baseline: bare gRPC echo                 ${String(echoes.result).padStart(7)} calls/s  (cpu: ${cpu(echoes.busy)})`,
  );
} finally {
  echo?.kill();
  await pool.end();
  await auth.stop();
  await database.close();
}
