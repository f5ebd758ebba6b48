import { randomBytes } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  clientAddressResolver,
  createLogger,
  DEFAULT_TRUSTED_PROXIES,
  parseTrustedProxies,
} from '@sheetgate/service-runtime';
import {
  createTestDatabase,
  createTestRedis,
  type TestDatabase,
  type TestRedis,
} from '@sheetgate/test-harness';
import Koa from 'koa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAuditLog } from '../src/audit/index.ts';
import { migrateToLatest } from '../src/db/migrate.ts';
import { createDatabasePool, type DatabasePool } from '../src/db/pool.ts';
import { createRateLimits, type RateLimits, rateLimitAuthRoutes } from '../src/rate-limits/index.ts';

let database: TestDatabase;
let redis: TestRedis;
let pool: DatabasePool;
let limits: RateLimits;
let server: Server;
let baseUrl: string;
const auditWrites: Array<Promise<void>> = [];

beforeAll(async () => {
  [database, redis] = await Promise.all([createTestDatabase(), createTestRedis()]);
  await migrateToLatest(database.url, createLogger({ service: 'test', level: 'silent' }));
  pool = createDatabasePool(database.url, 4);
  limits = await createRateLimits({
    redisUrl: redis.url,
    pool,
    keyPrefix: `sheetgate:test:${randomBytes(4).toString('hex')}`,
    rules: {
      authIp: { points: 5, durationSeconds: 60 },
      register: { points: 2, durationSeconds: 3_600 },
      token: { points: 3, durationSeconds: 60 },
    },
  });
  // The same client address as the auth app: X-Forwarded-For believed from the default trusted
  // proxies (the test connects over the loopback, as the local gateway does).
  const clientAddress = clientAddressResolver(parseTrustedProxies(DEFAULT_TRUSTED_PROXIES));
  const app = new Koa();
  app.use(async (ctx, next) => {
    ctx.request.ip = clientAddress(ctx.req);
    await next();
  });
  // The middleware records an audit without awaiting it (the answer does not wait for the
  // database): the test keeps each record's promise to know when every one started is written.
  const audit = createAuditLog(pool);
  app.use(
    rateLimitAuthRoutes(limits, {
      audit: {
        ...audit,
        record(...args: Parameters<typeof audit.record>) {
          const written = audit.record(...args);
          auditWrites.push(written);
          return written;
        },
      },
    }),
  );
  app.use((ctx) => {
    ctx.body = { ok: true };
  });
  server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
  await limits?.close();
  await pool?.end();
  await database?.close();
  await redis?.close();
});

const call = (path: string, ip: string, method = 'GET', headers: Record<string, string> = {}) =>
  fetch(`${baseUrl}${path}`, { method, headers: { 'x-forwarded-for': ip, ...headers } });

describe('rate limits on /api/auth/* (per client IP)', () => {
  it('answers 429 with Retry-After and a JSON error for one IP, and not for another', async () => {
    for (let i = 0; i < 5; i++) expect((await call('/api/auth/jwks', '192.0.2.10')).status).toBe(200);
    const refused = await call('/api/auth/jwks', '192.0.2.10');
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(refused.headers.get('cache-control')).toBe('no-store');
    expect(refused.headers.get('content-type')).toMatch(/application\/json/);
    const body = (await refused.json()) as { error: string; error_description: string };
    expect(body.error).toBe('rate_limited');
    expect(body.error_description).toMatch(/retry after \d+ seconds/);

    expect((await call('/api/auth/jwks', '192.0.2.11')).status).toBe(200);
  });

  it('is tighter on registration and on the token endpoint', async () => {
    const ip = '192.0.2.20';
    expect((await call('/api/auth/oauth2/register', ip, 'POST')).status).toBe(200);
    expect((await call('/api/auth/oauth2/register', ip, 'POST')).status).toBe(200);
    expect((await call('/api/auth/oauth2/register', ip, 'POST')).status).toBe(429);
    // The same address may still use the rest of /api/auth.
    expect((await call('/api/auth/oauth2/token', ip, 'POST')).status).toBe(200);

    const other = '192.0.2.21';
    for (let i = 0; i < 3; i++)
      expect((await call('/api/auth/oauth2/token', other, 'POST')).status).toBe(200);
    expect((await call('/api/auth/oauth2/token', other, 'POST')).status).toBe(429);
  });

  it('lets a browser-based client read the 429 on the endpoints it calls cross-origin', async () => {
    const origin = { origin: 'https://inspector.example' };
    const ip = '192.0.2.60';
    for (let i = 0; i < 3; i++) await call('/api/auth/oauth2/token', ip, 'POST', origin);
    const refused = await call('/api/auth/oauth2/token', ip, 'POST', origin);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('access-control-allow-origin')).toBe('https://inspector.example');
    expect(refused.headers.get('access-control-expose-headers')).toMatch(/retry-after/i);
    expect(refused.headers.get('vary')).toMatch(/origin/i);

    // Sign-in and interaction routes are same-origin pages: no CORS there, limited or not.
    let page: Response | undefined;
    for (let i = 0; i < 20 && page?.status !== 429; i++)
      page = await call('/api/auth/google/start', '192.0.2.61', 'GET', origin);
    expect(page!.status).toBe(429);
    expect(page!.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('leaves other paths alone', async () => {
    for (let i = 0; i < 8; i++) {
      expect((await call('/.well-known/openid-configuration', '192.0.2.30')).status).toBe(200);
      expect((await call('/healthz', '192.0.2.30')).status).toBe(200);
    }
  });

  it('keys by the address the ingress saw, not by what the client claims further left', async () => {
    // A client prepends its own X-Forwarded-For entries; only the last hop (the ingress's) counts.
    for (let i = 0; i < 5; i++) {
      expect((await call('/api/auth/oauth2/userinfo', `10.0.0.${i}, 192.0.2.40`)).status).toBe(200);
    }
    expect((await call('/api/auth/oauth2/userinfo', '10.0.0.99, 192.0.2.40')).status).toBe(429);
  });

  it('audits the first refusal of a window, not every refused request', async () => {
    const ip = '192.0.2.50';
    for (let i = 0; i < 8; i++) await call('/api/auth/jwks', ip);
    // Every audit these answers started, written.
    await Promise.allSettled(auditWrites);
    const { rows } = await pool.query(
      `SELECT details FROM audit_events WHERE kind = 'rate_limit.hit' AND details->>'ip' = $1`,
      [ip],
    );
    expect(rows).toEqual([{ details: { limit: 'authIp', ip, method: 'GET', path: '/api/auth/jwks' } }]);
  });
});
