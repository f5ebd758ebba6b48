import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { createLogger } from '@sheetgate/service-runtime';
import {
  createTestDatabase,
  createTestRedis,
  type TestDatabase,
  type TestRedis,
} from '@sheetgate/test-harness';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  API_KEY_PATTERN,
  type ApiKeyLibrary,
  type ApiKeyLibraryOptions,
  createApiKeyLibrary,
} from '../src/api-keys/index.ts';
import { createAuditLog } from '../src/audit/index.ts';
import { migrateToLatest } from '../src/db/migrate.ts';
import { createDatabasePool, type DatabasePool } from '../src/db/pool.ts';
import { createRateLimits, type RateLimits } from '../src/rate-limits/index.ts';
import { createUserLibrary } from '../src/users/index.ts';

const PEPPER = 'test-pepper-0123456789abcdef0123456789abcdef';

let database: TestDatabase;
let redis: TestRedis;
let pool: DatabasePool;
let limits: RateLimits;
let logLines: string[];
let alice: string;
let bob: string;
const opened: ApiKeyLibrary[] = [];

beforeAll(async () => {
  [database, redis] = await Promise.all([createTestDatabase(), createTestRedis()]);
  await migrateToLatest(database.url, createLogger({ service: 'test', level: 'silent' }));
  pool = createDatabasePool(database.url, 6);
  // Redis when the environment has one, PostgreSQL otherwise: the library is the same either way.
  limits = await createRateLimits({
    redisUrl: redis.url,
    pool,
    keyPrefix: `sheetgate:test:${randomBytes(4).toString('hex')}`,
    rules: { apiKey: { points: 5, durationSeconds: 60 } },
  });
  const users = createUserLibrary(pool);
  alice = (await users.upsertFromGoogle({ sub: 'k-1', email: 'alice@example.com' })).id;
  bob = (await users.upsertFromGoogle({ sub: 'k-2', email: 'bob@example.com' })).id;
});
afterEach(async () => {
  await Promise.all(opened.splice(0).map((library) => library.close()));
});
afterAll(async () => {
  await limits?.close();
  await pool?.end();
  await database?.close();
  await redis?.close();
});

/** A library as a replica builds it; every log line it writes is kept for inspection. */
function openLibrary(overrides: Partial<ApiKeyLibraryOptions> = {}): ApiKeyLibrary {
  logLines = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      logLines.push(String(chunk));
      done();
    },
  });
  const library = createApiKeyLibrary({
    pool,
    pepper: PEPPER,
    rateLimiter: limits.apiKey,
    audit: createAuditLog(pool),
    logger: createLogger({ service: 'test', level: 'trace', destination }),
    lastUsedFlushIntervalMs: 60_000,
    ...overrides,
  });
  opened.push(library);
  return library;
}

const newKey = (library: ApiKeyLibrary, userId = alice, scopes = ['sheets:read', 'sheets:write']) =>
  library.create({ userId, name: `key ${randomBytes(3).toString('hex')}`, scopes });

describe('API keys: create and resolve', () => {
  it('creates a recognisable key that resolves to its user and scopes', async () => {
    const keys = openLibrary();
    const { key, secret } = await keys.create({
      userId: alice,
      name: '  CI script  ',
      scopes: ['sheets:read'],
    });
    expect(secret).toMatch(API_KEY_PATTERN);
    expect(secret).toHaveLength(51);
    expect(key).toMatchObject({
      userId: alice,
      name: 'CI script',
      displayPrefix: secret.slice(0, 12),
      scopes: ['sheets:read'],
      expiresAt: null,
      revokedAt: null,
      lastUsedAt: null,
    });
    expect(key).not.toHaveProperty('secretHash');
    expect(await keys.resolve(secret)).toEqual({
      ok: true,
      userId: alice,
      scopes: ['sheets:read'],
      keyId: key.id,
    });

    const writer = await newKey(keys, bob);
    expect(await keys.resolve(writer.secret)).toMatchObject({
      ok: true,
      userId: bob,
      scopes: ['sheets:read', 'sheets:write'],
    });
  });

  it('issues a different secret every time', async () => {
    const keys = openLibrary();
    const secrets = await Promise.all(Array.from({ length: 5 }, () => newKey(keys)));
    expect(new Set(secrets.map((created) => created.secret)).size).toBe(5);
  });

  it('stores neither the secret nor any long piece of it, and never logs or audits it', async () => {
    const keys = openLibrary();
    const { key, secret } = await newKey(keys);
    await keys.resolve(secret);
    await keys.revoke(alice, key.id);
    await keys.resolve(secret);
    await keys.flush();

    // Every 16-character window of the random part: a stored or logged fragment would show up.
    const random = secret.slice('sg_live_'.length);
    const fragments = Array.from({ length: random.length - 15 }, (_, i) => random.slice(i, i + 16));
    const { rows } = await pool.query(
      `SELECT row_to_json(k)::text AS row FROM api_keys k WHERE id = $1
       UNION ALL SELECT row_to_json(a)::text FROM audit_events a`,
      [key.id],
    );
    const stored = rows.map((row: { row: string }) => row.row).join('\n');
    expect(stored).toContain(key.id);
    expect(stored).toContain(key.displayPrefix);
    for (const fragment of fragments) {
      expect(stored).not.toContain(fragment);
      expect(logLines.join('')).not.toContain(fragment);
    }
    expect(stored).not.toContain(secret);
  });

  it('refuses a wrong secret of the right shape as unknown', async () => {
    const keys = openLibrary();
    const { secret } = await newKey(keys);
    const last = secret.at(-1) === 'A' ? 'E' : 'A';
    expect(await keys.resolve(`${secret.slice(0, -1)}${last}`)).toEqual({ ok: false, reason: 'unknown' });
    expect(await keys.resolve(`sg_live_${randomBytes(32).toString('base64url')}`)).toEqual({
      ok: false,
      reason: 'unknown',
    });
  });

  const malformed: Array<[string, unknown]> = [
    ['empty', ''],
    ['oversized (1 MB)', `sg_live_${'A'.repeat(1024 * 1024)}`],
    ['wrong prefix', `sg_test_${randomBytes(32).toString('base64url')}`],
    ['no prefix', randomBytes(32).toString('base64url')],
    ['one character short', `sg_live_${randomBytes(32).toString('base64url').slice(1)}`],
    ['padded base64', `sg_live_${randomBytes(32).toString('base64')}`],
    ['non-base64url', `sg_live_${'A'.repeat(42)}+`],
    ['non-canonical last character', `sg_live_${'A'.repeat(42)}B`],
    ['non-ASCII', `sg_live_${'é'.repeat(43)}`],
    ['SQL-looking', "sg_live_' OR '1'='1' --AAAAAAAAAAAAAAAAAAAAAAAAAA"],
    ['SQL-looking, full length', "sg_live_';DROP TABLE api_keys;--AAAAAAAAAAAAAAAAAAAAA"],
    ['a null byte', `sg_live_${'A'.repeat(42)}\u0000`],
    ['not a string', 42],
    ['undefined', undefined],
  ];

  it.each(malformed)('refuses %s as unknown without asking the database', async (_name, presented) => {
    const untouchable = {
      query: () => {
        throw new Error('the database must not be asked about a malformed key');
      },
    } as unknown as DatabasePool;
    const offline = openLibrary({ pool: untouchable });
    expect(await offline.resolve(presented)).toEqual({ ok: false, reason: 'unknown' });
    // And the real one answers the same, with no database error.
    expect(await openLibrary().resolve(presented)).toEqual({ ok: false, reason: 'unknown' });
  });

  it('refuses an expired key as expired', async () => {
    const keys = openLibrary();
    const { key, secret } = await keys.create({
      userId: alice,
      name: 'short-lived',
      scopes: ['sheets:read'],
      expiresAt: new Date(Date.now() + 60_000),
    });
    expect(await keys.resolve(secret)).toMatchObject({ ok: true });
    // Time passes (the database's clock, as the expiry was stored).
    await pool.query(`UPDATE api_keys SET expires_at = now() - interval '1 second' WHERE id = $1`, [key.id]);
    expect(await keys.resolve(secret)).toEqual({ ok: false, reason: 'expired' });
    expect((await keys.list(alice)).find((listed) => listed.id === key.id)?.status).toBe('expired');
  });
});

describe('API keys: revocation', () => {
  it('takes effect on the very next resolve, on this replica and on another', async () => {
    const replicaA = openLibrary();
    const otherPool = createDatabasePool(database.url, 2);
    try {
      const replicaB = openLibrary({ pool: otherPool });
      const { key, secret } = await newKey(replicaA);
      // Both replicas have just accepted the key: anything they might cache, they have now.
      expect(await replicaA.resolve(secret)).toMatchObject({ ok: true });
      expect(await replicaB.resolve(secret)).toMatchObject({ ok: true });

      expect(await replicaA.revoke(alice, key.id)).toBe(true);
      expect(await replicaB.resolve(secret)).toEqual({ ok: false, reason: 'revoked' });
      expect(await replicaA.resolve(secret)).toEqual({ ok: false, reason: 'revoked' });
      await replicaB.close();
    } finally {
      await otherPool.end();
    }
  });

  it('is idempotent and audited once', async () => {
    const keys = openLibrary();
    const { key } = await newKey(keys);
    expect(await keys.revoke(alice, key.id)).toBe(true);
    expect(await keys.revoke(alice, key.id)).toBe(true);
    const { rows } = await pool.query(
      `SELECT user_id AS "userId" FROM audit_events WHERE kind = 'api_key.revoked' AND details->>'keyId' = $1`,
      [key.id],
    );
    expect(rows).toEqual([{ userId: alice }]);
    expect((await keys.list(alice)).find((listed) => listed.id === key.id)).toMatchObject({
      status: 'revoked',
      revokedAt: expect.any(Date),
    });
  });

  it("another user can neither revoke nor list someone's key", async () => {
    const keys = openLibrary();
    const { key, secret } = await newKey(keys, alice);
    expect(await keys.revoke(bob, key.id)).toBe(false);
    expect((await keys.list(bob)).map((listed) => listed.id)).not.toContain(key.id);
    expect(await keys.resolve(secret)).toMatchObject({ ok: true, userId: alice });
    expect((await keys.list(alice)).map((listed) => listed.id)).toContain(key.id);
  });

  it('answers false for unknown and malformed ids', async () => {
    const keys = openLibrary();
    expect(await keys.revoke(alice, '00000000-0000-4000-8000-000000000000')).toBe(false);
    expect(await keys.revoke(alice, "1' OR '1'='1")).toBe(false);
    expect(await keys.revoke("1' OR '1'='1", '00000000-0000-4000-8000-000000000000')).toBe(false);
    expect(await keys.list('not-a-uuid')).toEqual([]);
  });

  it('audits a refused revoked key once, however often it is sent', async () => {
    const keys = openLibrary();
    const { key, secret } = await newKey(keys);
    await keys.revoke(alice, key.id);
    for (let i = 0; i < 5; i++) await keys.resolve(secret);
    await keys.flush();
    const { rows } = await pool.query(
      `SELECT details FROM audit_events WHERE kind = 'api_key.refused' AND details->>'keyId' = $1`,
      [key.id],
    );
    expect(rows).toEqual([{ details: { keyId: key.id, reason: 'revoked' } }]);
  });
});

describe('API keys: listing and input', () => {
  it('lists the owner’s keys newest first without hashes', async () => {
    const users = createUserLibrary(pool);
    const carol = (await users.upsertFromGoogle({ sub: 'k-3', email: 'carol@example.com' })).id;
    const keys = openLibrary();
    const first = await newKey(keys, carol, ['sheets:read']);
    const second = await newKey(keys, carol);
    const listed = await keys.list(carol);
    expect(listed.map((key) => key.id)).toEqual([second.key.id, first.key.id]);
    for (const key of listed) {
      expect(Object.keys(key).sort()).toEqual(
        [
          'createdAt',
          'displayPrefix',
          'expiresAt',
          'id',
          'lastUsedAt',
          'name',
          'revokedAt',
          'scopes',
          'status',
          'userId',
        ].sort(),
      );
    }
  });

  it('normalises scopes and refuses bad names, scopes and expiries', async () => {
    const keys = openLibrary();
    const created = await keys.create({ userId: alice, name: 'w', scopes: ['sheets:write', 'sheets:read'] });
    expect(created.key.scopes).toEqual(['sheets:read', 'sheets:write']);
    const bad: Array<[Parameters<ApiKeyLibrary['create']>[0], string]> = [
      [{ userId: alice, name: '   ', scopes: ['sheets:read'] }, 'name'],
      [{ userId: alice, name: 'x'.repeat(101), scopes: ['sheets:read'] }, 'name'],
      [{ userId: alice, name: 'tab\there', scopes: ['sheets:read'] }, 'name'],
      [{ userId: alice, name: 'evil\u202Etxt', scopes: ['sheets:read'] }, 'name'],
      [{ userId: alice, name: 'ok', scopes: [] }, 'scopes'],
      [{ userId: alice, name: 'ok', scopes: ['sheets:write'] }, 'scopes'],
      [{ userId: alice, name: 'ok', scopes: ['openid'] }, 'scopes'],
      [
        { userId: alice, name: 'ok', scopes: ['sheets:read'], expiresAt: new Date(Date.now() - 1) },
        'expiresAt',
      ],
      [{ userId: alice, name: 'ok', scopes: ['sheets:read'], expiresAt: new Date(Number.NaN) }, 'expiresAt'],
      [{ userId: 'nobody', name: 'ok', scopes: ['sheets:read'] }, 'userId'],
    ];
    for (const [input, field] of bad) {
      await expect(keys.create(input)).rejects.toMatchObject({ name: 'ApiKeyInputError', field });
    }
    expect(await keys.create({ userId: alice, name: 'é'.repeat(100), scopes: ['sheets:read'] })).toBeTruthy();
  });
});

describe('API keys: last use', () => {
  it('is written after the flush and not before', async () => {
    const keys = openLibrary();
    const { key, secret } = await newKey(keys);
    const lastUsed = async () =>
      (await pool.query('SELECT last_used_at FROM api_keys WHERE id = $1', [key.id])).rows[0].last_used_at;
    expect(await keys.resolve(secret)).toMatchObject({ ok: true });
    expect(await lastUsed()).toBeNull();
    await keys.flush();
    expect(await lastUsed()).toBeInstanceOf(Date);
  });

  it('is flushed by the timer and on close', async () => {
    const timed = openLibrary({ lastUsedFlushIntervalMs: 100 });
    const one = await newKey(timed);
    await timed.resolve(one.secret);
    await new Promise((resolve) => setTimeout(resolve, 400));
    const read = async (id: string) =>
      (await pool.query('SELECT last_used_at FROM api_keys WHERE id = $1', [id])).rows[0].last_used_at;
    expect(await read(one.key.id)).toBeInstanceOf(Date);

    const closing = openLibrary();
    const two = await newKey(closing);
    await closing.resolve(two.secret);
    await closing.close();
    expect(await read(two.key.id)).toBeInstanceOf(Date);
  });
});

describe('API keys: per-key rate limit', () => {
  it('refuses a key over its limit with a retry-after, leaving other keys alone', async () => {
    const keys = openLibrary();
    const busy = await newKey(keys);
    const quiet = await newKey(keys);
    for (let i = 0; i < 5; i++) expect(await keys.resolve(busy.secret)).toMatchObject({ ok: true });
    const refused = await keys.resolve(busy.secret);
    expect(refused).toMatchObject({ ok: false, reason: 'rate_limited' });
    expect(
      refused.ok === false && refused.reason === 'rate_limited' && refused.retryAfterSeconds,
    ).toBeGreaterThan(0);
    expect(await keys.resolve(quiet.secret)).toMatchObject({ ok: true });

    await keys.flush();
    const { rows } = await pool.query(
      `SELECT user_id AS "userId", details FROM audit_events WHERE kind = 'rate_limit.hit' AND details->>'keyId' = $1`,
      [busy.key.id],
    );
    expect(rows).toEqual([{ userId: alice, details: { limit: 'apiKey', keyId: busy.key.id } }]);
  });
});
