import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import {
  createAccountServiceClient,
  createTokenBrokerClient,
  GrpcStatus,
  type TokenBrokerClient,
} from '@sheetgate/proto';
import { createLogger } from '@sheetgate/service-runtime';
import {
  createTestDatabase,
  createTestRedis,
  generateLocalSecrets,
  type RunningService,
  startPrivateRedis,
  startServiceProcess,
  type TestDatabase,
  type TestRedis,
  withFreePorts,
} from '@sheetgate/test-harness';
import { createClient } from 'redis';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  API_KEY_PATTERN,
  type ApiKeyLibrary,
  type ApiKeyLibraryOptions,
  apiKeyLeaseSize,
  createApiKeyLibrary,
  createKeyRevocations,
  requestedExpiry,
} from '../src/api-keys/index.ts';
import { createAuditLog } from '../src/audit/index.ts';
import { StoreUnavailableError } from '../src/cache/store-unavailable.ts';
import { migrateToLatest } from '../src/db/migrate.ts';
import { createDatabasePool, type DatabasePool } from '../src/db/pool.ts';
import { createImportedApiKeys } from '../src/provider-migration/imported-api-keys.ts';
import { createRateLimits, type RateLimits } from '../src/rate-limits/index.ts';
import { createSessionStore } from '../src/sessions/index.ts';
import { createUserLibrary } from '../src/users/index.ts';

/** One key through the broker's `ResolveApiKeys`, as the MCP service sends it. */
async function resolveOne(broker: TokenBrokerClient, apiKey: string) {
  return (await broker.resolveApiKeys({ apiKeys: [apiKey], clientAddresses: [] })).results[0]!;
}

const PEPPER = 'test-pepper-0123456789abcdef0123456789abcdef';
/** Unknown keys one client address may present per window here. */
const ADDRESS_FAILURE_BOUND = 4;

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
    rules: {
      apiKey: { points: 5, durationSeconds: 60 },
      apiKeyFailures: { points: ADDRESS_FAILURE_BOUND, durationSeconds: 60 },
    },
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

const REDIS_PREFIX = `test:${randomBytes(6).toString('hex')}`;

/**
 * A library as a replica builds it (revocations through the test's Redis when there is one, else
 * in-process); every log line it writes is kept for inspection.
 */
async function openLibrary(overrides: Partial<ApiKeyLibraryOptions> = {}): Promise<ApiKeyLibrary> {
  logLines = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      logLines.push(String(chunk));
      done();
    },
  });
  // Under this file's own prefix: another test's revocation on the shared Redis must not change
  // the version these count PostgreSQL reads under.
  const revocations =
    overrides.revocations ?? (await createKeyRevocations({ redisUrl: redis.url, keyPrefix: REDIS_PREFIX }));
  // A Redis that has never held the revocation version (a fresh one) gets one on this first read,
  // which trusts nothing cached; the tests start from the usual state, where it exists.
  await revocations.version();
  const library = createApiKeyLibrary({
    pool,
    pepper: PEPPER,
    rateLimiter: limits.apiKey,
    addressFailureLimiter: limits.apiKeyFailures,
    revocations,
    audit: createAuditLog(pool),
    importedKeys: createImportedApiKeys(overrides.pool ?? pool),
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
    const keys = await openLibrary();
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
      expiresAtMs: null,
      toolsets: null,
    });

    const writer = await newKey(keys, bob);
    expect(await keys.resolve(writer.secret)).toMatchObject({
      ok: true,
      userId: bob,
      scopes: ['sheets:read', 'sheets:write'],
    });
  });

  it('issues a different secret every time', async () => {
    const keys = await openLibrary();
    const secrets = await Promise.all(Array.from({ length: 5 }, () => newKey(keys)));
    expect(new Set(secrets.map((created) => created.secret)).size).toBe(5);
  });

  it('stores neither the secret nor any long piece of it, and never logs or audits it', async () => {
    const keys = await openLibrary();
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
    const keys = await openLibrary();
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
    const offline = await openLibrary({ pool: untouchable });
    expect(await offline.resolve(presented)).toEqual({ ok: false, reason: 'unknown' });
    // And the real one answers the same, with no database error.
    expect(await (await openLibrary()).resolve(presented)).toEqual({ ok: false, reason: 'unknown' });
  });

  it('refuses a key of another shape with one read where no key was ever imported', async () => {
    // Keys imported from a retired provider (migrate:import) may have any prefix; this deployment
    // imported none, which one indexed read says, as for a well-formed unknown sg_live_ key.
    let queries = 0;
    const counting = {
      query: (...args: Parameters<DatabasePool['query']>) => {
        queries += 1;
        return (pool.query as (...a: unknown[]) => unknown)(...args);
      },
    } as unknown as DatabasePool;
    const library = await openLibrary({ pool: counting });
    const foreign = randomBytes(32).toString('base64url');
    expect(await library.resolve(foreign)).toEqual({ ok: false, reason: 'unknown' });
    expect(queries).toBe(1);
    expect(await library.resolve(`sk_${foreign}`)).toEqual({ ok: false, reason: 'unknown' });
    expect(queries).toBe(2);
  });

  it('refuses an expired key as expired, from its cached expiry and from its row', async () => {
    const keys = await openLibrary();
    const { key, secret } = await keys.create({
      userId: alice,
      name: 'short-lived',
      scopes: ['sheets:read'],
      expiresAt: new Date(Date.now() + 1_000),
    });
    expect(await keys.resolve(secret)).toMatchObject({ ok: true });
    // Expiry is fixed at creation, so the cached key carries it; let it pass.
    await new Promise((resolve) => setTimeout(resolve, key.expiresAt!.getTime() - Date.now() + 50));
    expect(await keys.resolve(secret)).toEqual({ ok: false, reason: 'expired' });
    const coldReplica = await openLibrary();
    expect(await coldReplica.resolve(secret)).toEqual({ ok: false, reason: 'expired' });
    expect((await keys.list(alice)).find((listed) => listed.id === key.id)?.status).toBe('expired');
  });
});

describe('API keys: revocation', () => {
  it('takes effect on the very next resolve of this replica, cached or not', async () => {
    const keys = await openLibrary();
    const { key, secret } = await newKey(keys);
    expect(await keys.resolve(secret)).toMatchObject({ ok: true });
    expect(await keys.resolve(secret)).toMatchObject({ ok: true }); // now served from the cache
    expect(await keys.revoke(alice, key.id)).toBe(true);
    expect(await keys.resolve(secret)).toEqual({ ok: false, reason: 'revoked' });
  });

  it('is idempotent and audited once', async () => {
    const keys = await openLibrary();
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
    const keys = await openLibrary();
    const { key, secret } = await newKey(keys, alice);
    expect(await keys.revoke(bob, key.id)).toBe(false);
    expect((await keys.list(bob)).map((listed) => listed.id)).not.toContain(key.id);
    expect(await keys.resolve(secret)).toMatchObject({ ok: true, userId: alice });
    expect((await keys.list(alice)).map((listed) => listed.id)).toContain(key.id);
  });

  it('answers false for unknown and malformed ids', async () => {
    const keys = await openLibrary();
    expect(await keys.revoke(alice, '00000000-0000-4000-8000-000000000000')).toBe(false);
    expect(await keys.revoke(alice, "1' OR '1'='1")).toBe(false);
    expect(await keys.revoke("1' OR '1'='1", '00000000-0000-4000-8000-000000000000')).toBe(false);
    expect(await keys.list('not-a-uuid')).toEqual([]);
  });

  it('audits a refused revoked key once, however often it is sent', async () => {
    const keys = await openLibrary();
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
    const keys = await openLibrary();
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
          'mayActOutbound',
          'mayDestroyUnasked',
          'name',
          'revokedAt',
          'scopes',
          'status',
          'toolsets',
          'userId',
        ].sort(),
      );
    }
  });

  it('normalises scopes and refuses bad names, scopes and expiries', async () => {
    const keys = await openLibrary();
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
    // A name is counted in characters, not bytes or UTF-16 units, and kept as typed: 100 of
    // 'é' (200 bytes) and of '📊' (200 UTF-16 units) are accepted and read back whole; 101 are not.
    for (const character of ['é', '📊']) {
      const name = character.repeat(100);
      const { key } = await keys.create({ userId: alice, name, scopes: ['sheets:read'] });
      expect(key.name).toBe(name);
      expect((await keys.list(alice)).find((listed) => listed.id === key.id)?.name).toBe(name);
      await expect(
        keys.create({ userId: alice, name: character.repeat(101), scopes: ['sheets:read'] }),
      ).rejects.toMatchObject({ name: 'ApiKeyInputError', field: 'name' });
    }
  });
});

describe('API keys: toolsets (docs/design.md §11)', () => {
  it('stores the chosen sets in TOOLSETS order and resolves them', async () => {
    const keys = await openLibrary();
    const { key, secret } = await keys.create({
      userId: alice,
      name: 'reader',
      scopes: ['sheets:read'],
      toolsets: ['files', 'core-read', 'files'],
    });
    expect(key.toolsets).toEqual(['core-read', 'files']);
    expect(await keys.resolve(secret)).toMatchObject({ ok: true, toolsets: ['core-read', 'files'] });
    // Again from the verified-key cache, and from another replica's PostgreSQL read.
    expect(await keys.resolve(secret)).toMatchObject({ ok: true, toolsets: ['core-read', 'files'] });
    expect(await (await openLibrary()).resolve(secret)).toMatchObject({ toolsets: ['core-read', 'files'] });
  });

  it('refuses unknown names and an empty choice, naming the field', async () => {
    const keys = await openLibrary();
    for (const toolsets of [[], ['everything'], ['core-read', 'Core-Write'], [1]]) {
      await expect(
        keys.create({ userId: alice, name: 'x', scopes: ['sheets:read'], toolsets: toolsets as string[] }),
      ).rejects.toMatchObject({ name: 'ApiKeyInputError', field: 'toolsets' });
    }
  });

  it('gives a key without stored sets (one created before toolsets) every set', async () => {
    const keys = await openLibrary();
    const { key, secret } = await newKey(keys);
    expect(key.toolsets).toBeNull();
    expect(await keys.resolve(secret)).toMatchObject({ ok: true, toolsets: null });
    const { rows } = await pool.query('SELECT toolsets FROM api_keys WHERE id = $1', [key.id]);
    expect(rows[0].toolsets).toBeNull();
  });

  it('the migration keeps an empty list out of the table', async () => {
    const { key } = await newKey(await openLibrary());
    await expect(pool.query(`UPDATE api_keys SET toolsets = '{}' WHERE id = $1`, [key.id])).rejects.toThrow(
      /check constraint/,
    );
  });
});

describe('API keys: the requested expiry (CreateApiKey, as the dashboard forwards it)', () => {
  const now = new Date('2026-03-10T12:00:00Z');
  const refusal = (request: Parameters<typeof requestedExpiry>[0]) => {
    try {
      requestedExpiry(request, now);
    } catch (error) {
      return (error as Error).message;
    }
    return 'accepted';
  };

  it('turns each dashboard choice into a time, and reads expires_at only without one', () => {
    expect(requestedExpiry({ expires: 'never', expiresAt: '2030-01-01' }, now)).toBeUndefined();
    expect(requestedExpiry({ expires: '', expiresAt: '2030-01-01' }, now)).toBeUndefined();
    expect(requestedExpiry({ expires: '30', expiresAt: '' }, now)).toEqual(new Date('2026-04-09T12:00:00Z'));
    expect(requestedExpiry({ expires: '365', expiresAt: '' }, now)).toEqual(new Date('2027-03-10T12:00:00Z'));
    expect(requestedExpiry({ expires: 'date', expiresAt: '2026-03-11' }, now)).toEqual(
      new Date('2026-03-11T00:00:00Z'),
    );
    expect(requestedExpiry({ expiresAt: '' }, now)).toBeUndefined();
    expect(requestedExpiry({ expiresAt: '2026-05-01T08:00:00Z' }, now)).toEqual(
      new Date('2026-05-01T08:00:00Z'),
    );
  });

  it('refuses with a message for the person', () => {
    expect(refusal({ expires: 'forever', expiresAt: '' })).toBe('Choose when the key expires.');
    expect(refusal({ expires: '31', expiresAt: '' })).toBe('Choose when the key expires.');
    expect(refusal({ expires: 'date', expiresAt: '' })).toBe('Choose the expiry date (year, month and day).');
    expect(refusal({ expires: 'date', expiresAt: '2027-02-31' })).toBe(
      'Choose the expiry date (year, month and day).',
    );
    expect(refusal({ expires: 'date', expiresAt: '2027-1-2' })).toBe(
      'Choose the expiry date (year, month and day).',
    );
    expect(refusal({ expires: 'date', expiresAt: '2026-03-10' })).toBe(
      'The expiry date must be in the future.',
    );
    expect(refusal({ expiresAt: 'soon' })).toBe('expires_at must be a future RFC 3339 time');
  });
});

describe('API keys: last use', () => {
  it('is written after the flush and not before', async () => {
    const keys = await openLibrary();
    const { key, secret } = await newKey(keys);
    const lastUsed = async () =>
      (await pool.query('SELECT last_used_at FROM api_keys WHERE id = $1', [key.id])).rows[0].last_used_at;
    expect(await keys.resolve(secret)).toMatchObject({ ok: true });
    expect(await lastUsed()).toBeNull();
    await keys.flush();
    expect(await lastUsed()).toBeInstanceOf(Date);
  });

  it('is flushed by the timer and on close', async () => {
    const timed = await openLibrary({ lastUsedFlushIntervalMs: 100 });
    const one = await newKey(timed);
    await timed.resolve(one.secret);
    const read = async (id: string) =>
      (await pool.query('SELECT last_used_at FROM api_keys WHERE id = $1', [id])).rows[0].last_used_at;
    // Nothing but the timer writes it here (no flush, no close): wait for the row to show it.
    await vi.waitFor(async () => expect(await read(one.key.id)).toBeInstanceOf(Date), {
      timeout: 5_000,
      interval: 20,
    });

    const closing = await openLibrary();
    const two = await newKey(closing);
    await closing.resolve(two.secret);
    await closing.close();
    expect(await read(two.key.id)).toBeInstanceOf(Date);
  });
});

describe('API keys: per-key rate limit', () => {
  it('refuses a key over its limit with a retry-after, leaving other keys alone', async () => {
    const keys = await openLibrary();
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

  it('counts concurrent requests exactly, whatever the store', async () => {
    // On PostgreSQL every request is an upsert from whichever pooled connection is free; a store
    // error would silently hand the count to the per-replica in-memory fallback and let more in.
    const keys = await openLibrary();
    const { secret } = await newKey(keys);
    const answers = await Promise.all(Array.from({ length: 20 }, () => keys.resolve(secret)));
    expect(answers.filter((answer) => answer.ok)).toHaveLength(5);
  });
});

describe('API keys: leases (LeaseApiKeyAllowance)', () => {
  it('are what the replica asks for, or a hundredth of a large limit (at most 10,000)', () => {
    expect(apiKeyLeaseSize(50, { points: 600 })).toBe(50);
    expect(apiKeyLeaseSize(10, { points: 100 })).toBe(10);
    expect(apiKeyLeaseSize(50, { points: 200_000 })).toBe(2_000);
    expect(apiKeyLeaseSize(1_000, { points: 60_000 })).toBe(1_000);
    expect(apiKeyLeaseSize(50, { points: 100_000_000 })).toBe(10_000);
  });

  it('grant a key whose limit is large more than asked, counted at auth, and never past the limit', async () => {
    const large = await createRateLimits({
      redisUrl: redis.url,
      pool,
      keyPrefix: `sheetgate:test:${randomBytes(4).toString('hex')}`,
      rules: { apiKey: { points: 25_000, durationSeconds: 60 } },
    });
    try {
      const keys = await openLibrary({ rateLimiter: large.apiKey });
      const { key } = await newKey(keys);
      // 250 a lease (1% of 25,000): 100 leases spend the window, whatever each asked for.
      expect(await keys.leaseAllowance(key.id, 50)).toMatchObject({ granted: 250 });
      expect(await keys.leaseAllowance(key.id, 1_000)).toMatchObject({ granted: 1_000 });
      let granted = 1_250;
      for (let lease = 0; lease < 100 && granted < 25_000; lease++)
        granted += (await keys.leaseAllowance(key.id, 50)).granted;
      expect(granted).toBe(25_000);
      expect(await keys.leaseAllowance(key.id, 50)).toMatchObject({ granted: 0 });
      // The default limit's leases are what was asked.
      const small = await openLibrary();
      const other = await newKey(small);
      expect(await small.leaseAllowance(other.key.id, 3)).toMatchObject({ granted: 3 });
    } finally {
      await large.close();
    }
  });
});

describe('API keys: batches (ResolveApiKeys)', () => {
  it('answers each key in order, as one resolve would, each occurrence counting against its limit', async () => {
    const keys = await openLibrary();
    const busy = await newKey(keys);
    const other = await newKey(keys, bob, ['sheets:read']);
    const revoked = await newKey(keys);
    await keys.revoke(alice, revoked.key.id);
    const batch = [
      busy.secret,
      'garbage',
      other.secret,
      revoked.secret,
      `sg_live_${randomBytes(32).toString('base64url')}`,
      ...Array.from({ length: 6 }, () => busy.secret),
    ];
    const answers = await keys.resolveMany(batch);
    expect(answers.slice(0, 5)).toEqual([
      {
        ok: true,
        userId: alice,
        scopes: ['sheets:read', 'sheets:write'],
        keyId: busy.key.id,
        expiresAtMs: null,
        toolsets: null,
      },
      { ok: false, reason: 'unknown' },
      {
        ok: true,
        userId: bob,
        scopes: ['sheets:read'],
        keyId: other.key.id,
        expiresAtMs: null,
        toolsets: null,
      },
      { ok: false, reason: 'revoked' },
      { ok: false, reason: 'unknown' },
    ]);
    // The limit is 5 per key: the busy key's 1st to 5th uses pass, its 6th and 7th do not.
    expect(answers.slice(5).map((answer) => (answer.ok ? 'ok' : answer.reason))).toEqual([
      'ok',
      'ok',
      'ok',
      'ok',
      'rate_limited',
      'rate_limited',
    ]);
    // A second batch is served from the cache and keeps counting.
    expect((await keys.resolveMany([busy.secret, other.secret])).map((answer) => answer.ok)).toEqual([
      false,
      true,
    ]);
    await keys.flush();
    const { rows } = await pool.query(
      `SELECT count(*)::int AS hits FROM audit_events WHERE kind = 'rate_limit.hit' AND details->>'keyId' = $1`,
      [busy.key.id],
    );
    expect(rows).toEqual([{ hits: 1 }]);
  });

  it('answers an empty batch with nothing', async () => {
    expect(await (await openLibrary()).resolveMany([])).toEqual([]);
  });
});

/** The real pool, counting the reads of the api_keys table that ran (a statement refused is no read). */
function countingPool(real: DatabasePool) {
  const counter = { keyReads: 0 };
  const counted = new Proxy(real, {
    get(target, property, receiver) {
      if (property !== 'query') return Reflect.get(target, property, receiver);
      return async (query: string | { text: string }, ...rest: unknown[]) => {
        const text = typeof query === 'string' ? query : query.text;
        const result = await (target.query as (...args: unknown[]) => Promise<unknown>)(query, ...rest);
        if (/FROM api_keys WHERE secret_hash/.test(text)) counter.keyReads++;
        return result;
      };
    },
  });
  return { pool: counted as DatabasePool, counter };
}

describe('API keys: verified-key cache', () => {
  it('serves a key seen before without reading PostgreSQL again', async () => {
    const { pool: counted, counter } = countingPool(pool);
    const keys = await openLibrary({ pool: counted });
    const { secret } = await newKey(keys);
    for (let i = 0; i < 4; i++) expect(await keys.resolve(secret)).toMatchObject({ ok: true });
    expect(counter.keyReads).toBe(1);
  });

  it('is bounded', async () => {
    const keys = await openLibrary({ cache: { maxEntries: 2 } });
    for (let i = 0; i < 4; i++)
      expect(await keys.resolve((await newKey(keys)).secret)).toMatchObject({ ok: true });
    expect(keys.cachedKeys).toBe(2);
  });

  it('trusts an entry no longer than its maximum age', async () => {
    const { pool: counted, counter } = countingPool(pool);
    const keys = await openLibrary({ pool: counted, cache: { maxAgeMs: 100 } });
    const { secret } = await newKey(keys);
    await keys.resolve(secret);
    await new Promise((resolve) => setTimeout(resolve, 150));
    await keys.resolve(secret);
    expect(counter.keyReads).toBe(2);
  });
});

describe('API keys: unknown keys per client address', () => {
  const wrongKey = () => `sg_live_${randomBytes(32).toString('base64url')}`;
  const wrongKeys = (count: number) => Array.from({ length: count }, wrongKey);
  const UNKNOWN = { ok: false, reason: 'unknown' };
  const THROTTLED = { ok: false, reason: 'throttled', retryAfterSeconds: expect.any(Number) };

  it('refuses unknown keys from an address past the bound with a retry time, without reading PostgreSQL', async () => {
    const { pool: counted, counter } = countingPool(pool);
    const keys = await openLibrary({ pool: counted });
    const guesser = '198.51.100.7';
    for (let i = 0; i < ADDRESS_FAILURE_BOUND; i++)
      expect(await keys.resolve(wrongKey(), guesser)).toEqual(UNKNOWN);
    const readsAtBound = counter.keyReads;
    expect(readsAtBound).toBe(ADDRESS_FAILURE_BOUND);

    const answers = await keys.resolveMany(wrongKeys(200), Array(200).fill(guesser));
    expect(answers).toEqual(Array(200).fill(THROTTLED));
    const { retryAfterSeconds } = answers[0] as { retryAfterSeconds: number };
    expect(retryAfterSeconds).toBeGreaterThan(0);
    expect(retryAfterSeconds).toBeLessThanOrEqual(60);
    expect(await keys.resolve(wrongKey(), guesser)).toEqual(THROTTLED);
    expect(counter.keyReads).toBe(readsAtBound);
  });

  it('refuses the keys of a batch past the bound, each occurrence counting once', async () => {
    const keys = await openLibrary();
    const answers = await keys.resolveMany(wrongKeys(7), Array(7).fill('198.51.100.8'));
    expect(answers).toEqual([...Array(ADDRESS_FAILURE_BOUND).fill(UNKNOWN), ...Array(3).fill(THROTTLED)]);
  });

  it("still serves keys it verified from that address, and everyone else's keys", async () => {
    const { pool: counted, counter } = countingPool(pool);
    const keys = await openLibrary({ pool: counted });
    const guesser = '198.51.100.9';
    const known = await newKey(keys);
    const neverSeen = await newKey(keys, bob);
    expect(await keys.resolve(known.secret, guesser)).toMatchObject({ ok: true, keyId: known.key.id });
    await keys.resolveMany(
      wrongKeys(ADDRESS_FAILURE_BOUND + 1),
      Array(ADDRESS_FAILURE_BOUND + 1).fill(guesser),
    );
    const reads = counter.keyReads;

    expect(await keys.resolve(known.secret, guesser)).toMatchObject({ ok: true, keyId: known.key.id });
    // A key this replica never verified is not looked up for the throttled address ...
    expect(await keys.resolve(neverSeen.secret, guesser)).toEqual(THROTTLED);
    expect(counter.keyReads).toBe(reads);
    // ... and is served to any other address meanwhile, in the same batch too.
    expect(
      await keys.resolveMany(
        [neverSeen.secret, wrongKey(), known.secret],
        ['203.0.113.60', guesser, guesser],
      ),
    ).toEqual([
      expect.objectContaining({ ok: true, keyId: neverSeen.key.id }),
      THROTTLED,
      expect.objectContaining({ ok: true, keyId: known.key.id }),
    ]);
  });

  it('counts an IPv6 client by its /64', async () => {
    const keys = await openLibrary();
    for (let i = 1; i <= ADDRESS_FAILURE_BOUND; i++)
      expect(await keys.resolve(wrongKey(), `2001:db8:7:7::${i}`)).toEqual(UNKNOWN);
    expect(await keys.resolve(wrongKey(), '2001:db8:7:7:ffff:ffff:ffff:ffff')).toEqual(THROTTLED);
    expect(await keys.resolve(wrongKey(), '2001:db8:7:8::1')).toEqual(UNKNOWN);
  });

  it('asks the limiter once per batch: one read and one count covering every address', async () => {
    const calls: Array<{ method: string; keys: string[] }> = [];
    const real = limits.apiKeyFailures;
    const keys = await openLibrary({
      addressFailureLimiter: {
        ...real,
        async spent(addresses) {
          calls.push({ method: 'spent', keys: [...addresses] });
          return real.spent(addresses);
        },
        async consumeMany(addresses) {
          calls.push({ method: 'consumeMany', keys: [...addresses] });
          return real.consumeMany(addresses);
        },
      },
    });
    const addresses = ['192.0.2.201', '192.0.2.202', '192.0.2.201'];
    expect(await keys.resolveMany(wrongKeys(3), addresses)).toEqual(Array(3).fill(UNKNOWN));
    expect(calls).toEqual([
      { method: 'spent', keys: ['192.0.2.201', '192.0.2.202'] },
      { method: 'consumeMany', keys: addresses },
    ]);
  });

  it('audits the first refusal of a window for the address', async () => {
    const keys = await openLibrary();
    const guesser = '198.51.100.10';
    await keys.resolveMany(
      wrongKeys(ADDRESS_FAILURE_BOUND + 3),
      Array(ADDRESS_FAILURE_BOUND + 3).fill(guesser),
    );
    await keys.flush();
    const { rows } = await pool.query(
      `SELECT details FROM audit_events WHERE kind = 'rate_limit.hit' AND details->>'ip' = $1`,
      [guesser],
    );
    expect(rows).toEqual([{ details: { limit: 'apiKeyFailures', ip: guesser } }]);
  });
});

const revokedEvents = async (keyId: string) =>
  (
    await pool.query(
      `SELECT count(*)::int AS events FROM audit_events WHERE kind = 'api_key.revoked' AND details->>'keyId' = $1`,
      [keyId],
    )
  ).rows[0].events;

describe('API keys: revocation across replicas sharing PostgreSQL and Redis', () => {
  // A Redis of this file's own, so it can be stopped; also where the environment has no Redis.
  let privateRedis: Awaited<ReturnType<typeof startPrivateRedis>>;
  beforeAll(async () => {
    privateRedis = await startPrivateRedis();
  });
  afterAll(async () => {
    await privateRedis?.close();
  });
  const replica = async (replicaPool: DatabasePool = pool) =>
    openLibrary({
      pool: replicaPool,
      revocations: await createKeyRevocations({ redisUrl: privateRedis.url }),
    });

  it('a key both replicas have cached is refused by the other replica on its very next resolve', async () => {
    const otherPool = createDatabasePool(database.url, 2);
    try {
      const replicaA = await replica();
      const replicaB = await replica(otherPool);
      const { key, secret } = await newKey(replicaA);
      for (const each of [replicaA, replicaB, replicaA, replicaB])
        expect(await each.resolve(secret)).toMatchObject({ ok: true });

      expect(await replicaA.revoke(alice, key.id)).toBe(true);
      expect(await replicaB.resolve(secret)).toEqual({ ok: false, reason: 'revoked' });
      expect(await replicaA.resolve(secret)).toEqual({ ok: false, reason: 'revoked' });
      await replicaB.close();
    } finally {
      await otherPool.end();
    }
  });

  it('refuses it even on a replica that missed the announcement (Pub/Sub delivers at most once)', async () => {
    const replicaA = await replica();
    const deaf = await createKeyRevocations({ redisUrl: privateRedis.url });
    const replicaB = await openLibrary({
      revocations: { ...deaf, backend: deaf.backend, onRevoked: () => {} },
    });
    const { key, secret } = await newKey(replicaA);
    expect(await replicaB.resolve(secret)).toMatchObject({ ok: true });
    expect(await replicaB.resolve(secret)).toMatchObject({ ok: true });
    await replicaA.revoke(alice, key.id);
    expect(await replicaB.resolve(secret)).toEqual({ ok: false, reason: 'revoked' });
  });

  it('refuses it on that replica even after Redis restarted and lost the version', async () => {
    // A Redis without the version, as a fresh or restarted one is: keys get cached under whatever
    // version is read now, and a restart (or eviction) loses the one the revocation wrote.
    const restartRedis = async () => {
      await privateRedis.stop();
      await privateRedis.start();
    };
    await restartRedis();
    const replicaA = await replica();
    const deaf = await createKeyRevocations({ redisUrl: privateRedis.url });
    const replicaB = await openLibrary({
      revocations: { ...deaf, backend: deaf.backend, onRevoked: () => {} },
    });
    const { key, secret } = await newKey(replicaA);
    for (let i = 0; i < 3; i++) expect(await replicaB.resolve(secret)).toMatchObject({ ok: true });
    await replicaA.revoke(alice, key.id);
    await restartRedis();
    // Until B's connection is back the version is unknown and nothing cached is trusted anyway;
    // the danger is once it reads a version again.
    for (let attempt = 0; attempt < 100 && (await deaf.version()) === undefined; attempt++)
      await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await deaf.version()).toEqual(expect.any(String));
    expect(await replicaB.resolve(secret)).toEqual({ ok: false, reason: 'revoked' });
  });

  it("logs the revocation channel's connection errors, so a dead subscription does not go unseen", async () => {
    const lines: string[] = [];
    const destination = new Writable({
      write(chunk, _encoding, done) {
        lines.push(String(chunk));
        done();
      },
    });
    const revocations = await createKeyRevocations({
      redisUrl: privateRedis.url,
      logger: createLogger({ service: 'test', level: 'info', destination }),
    });
    try {
      await privateRedis.stop();
      for (let attempt = 0; attempt < 100 && !lines.some((line) => line.includes('(subscriber)')); attempt++)
        await new Promise((resolve) => setTimeout(resolve, 20));
      expect(
        lines.filter((line) => line.includes('Redis (key revocations (subscriber)): connection error')),
      ).toHaveLength(1);
    } finally {
      await privateRedis.start();
      await revocations.close();
    }
  });

  it('leaves no connection open when the revocation channel cannot be subscribed to', async () => {
    // A Redis account that may use keys but no Pub/Sub channel: connecting succeeds, subscribing
    // is refused (NOPERM).
    const password = randomBytes(16).toString('hex');
    const admin = createClient({ url: privateRedis.url });
    await admin.connect();
    try {
      await admin.sendCommand([
        'ACL',
        'SETUSER',
        'no-pubsub',
        'on',
        `>${password}`,
        '~*',
        'resetchannels',
        '+@all',
      ]);
      const url = new URL(privateRedis.url);
      url.username = 'no-pubsub';
      url.password = password;
      await expect(createKeyRevocations({ redisUrl: url.toString() })).rejects.toThrow(/NOPERM/);
      const connected = async () =>
        String(await admin.sendCommand(['CLIENT', 'LIST']))
          .split('\n')
          .filter((line) => line.includes(' user=no-pubsub ')).length;
      for (let attempt = 0; attempt < 50 && (await connected()) > 0; attempt++)
        await new Promise((resolve) => setTimeout(resolve, 20));
      expect(await connected()).toBe(0);
    } finally {
      await admin.sendCommand(['ACL', 'DELUSER', 'no-pubsub']);
      await admin.close();
    }
  });

  it('with Redis unreachable, reads every key from PostgreSQL and still refuses a revoked one', async () => {
    const { pool: counted, counter } = countingPool(pool);
    const replicaA = await replica();
    const replicaB = await replica(counted);
    const { key, secret } = await newKey(replicaA);
    expect(await replicaB.resolve(secret)).toMatchObject({ ok: true });
    expect(await replicaB.resolve(secret)).toMatchObject({ ok: true });
    expect(counter.keyReads).toBe(1);

    await privateRedis.stop();
    try {
      expect(await replicaB.resolve(secret)).toMatchObject({ ok: true });
      expect(counter.keyReads).toBe(2); // the version is unknown: the cache is not trusted
      // The revocation commits, but cannot be announced: the dashboard hears "try again" (gRPC
      // UNAVAILABLE), and the revocation is audited all the same.
      await expect(replicaA.revoke(alice, key.id)).rejects.toBeInstanceOf(StoreUnavailableError);
      expect(await replicaB.resolve(secret)).toEqual({ ok: false, reason: 'revoked' });
      expect(await revokedEvents(key.id)).toBe(1);
    } finally {
      await privateRedis.start();
    }
    // Revoking again once Redis is back announces it (idempotent).
    let announced = false;
    for (let attempt = 0; attempt < 50 && !announced; attempt++) {
      announced = await replicaA.revoke(alice, key.id).catch(() => false);
      if (!announced) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(announced).toBe(true);
    expect(await replicaB.resolve(secret)).toEqual({ ok: false, reason: 'revoked' });
    expect(await revokedEvents(key.id)).toBe(1);
  });
});

describe('two auth processes sharing PostgreSQL and Redis', () => {
  let sharedDatabase: TestDatabase;
  let privateRedis: Awaited<ReturnType<typeof startPrivateRedis>> | undefined;
  const replicas: RunningService[] = [];
  const grpcPorts: number[] = [];
  const serviceToken = randomBytes(32).toString('base64url');
  let sessionCookie: string;

  beforeAll(async () => {
    sharedDatabase = await createTestDatabase();
    // Several replicas need Redis (docs/design.md §6); one of this file's own where the environment
    // has none.
    if (!redis.url) privateRedis = await startPrivateRedis();
    const env = {
      ...generateLocalSecrets(),
      BASE_URL: 'http://127.0.0.1:1',
      DATABASE_URL: sharedDatabase.url,
      REDIS_URL: (redis.url ?? privateRedis?.url)!,
      INTERNAL_SERVICE_TOKEN: serviceToken,
      GOOGLE_CLIENT_ID: 'test-client.apps.googleusercontent.com',
      GOOGLE_CLIENT_SECRET: randomBytes(16).toString('hex'),
      RATE_LIMIT_KEY_PREFIX: `test:${randomBytes(6).toString('hex')}`,
      LOG_LEVEL: 'warn',
    };
    for (let replica = 0; replica < 2; replica++) {
      const { grpcPort, started } = await withFreePorts(2, async ([port, grpcPort]) => ({
        grpcPort: grpcPort!,
        started: await startServiceProcess(
          'auth',
          { ...env, AUTH_PORT: String(port), AUTH_GRPC_PORT: String(grpcPort) },
          port!,
        ),
      }));
      grpcPorts.push(grpcPort);
      replicas.push(started);
    }
    const replicaPool = createDatabasePool(sharedDatabase.url, 1);
    try {
      const user = await createUserLibrary(replicaPool).upsertFromGoogle({
        sub: 'k-9',
        email: 'dan@example.com',
      });
      sessionCookie = (await createSessionStore(replicaPool).create(user.id)).cookieValue;
    } finally {
      await replicaPool.end();
    }
  });
  afterAll(async () => {
    await Promise.all(replicas.map((replica) => replica.stop()));
    await privateRedis?.close();
    await sharedDatabase?.close();
  });

  const address = (replica: number) => `127.0.0.1:${grpcPorts[replica]}`;

  it('a key revoked through replica A is refused by replica B on the very next request', async () => {
    const accountsA = createAccountServiceClient({ address: address(0), serviceToken });
    const brokerA = createTokenBrokerClient({ address: address(0), serviceToken });
    const brokerB = createTokenBrokerClient({ address: address(1), serviceToken });
    try {
      const created = await accountsA.createApiKey({
        sessionCookie,
        name: 'two replicas',
        scopes: ['sheets:read'],
        expiresAt: '',
      });
      // Both replicas have resolved the key, single and batched: each has it cached now.
      for (const broker of [brokerA, brokerB, brokerB]) {
        expect((await resolveOne(broker, created.secret)).resolved?.keyId).toBe(created.key!.id);
        const { results } = await broker.resolveApiKeys({
          apiKeys: [created.secret, created.secret],
          clientAddresses: [],
        });
        expect(results.map((result) => result.resolved?.keyId)).toEqual([created.key!.id, created.key!.id]);
      }

      expect((await accountsA.revokeApiKey({ sessionCookie, keyId: created.key!.id })).revoked).toBe(true);
      const { results } = await brokerB.resolveApiKeys({ apiKeys: [created.secret], clientAddresses: [] });
      expect(results).toEqual([
        { resolved: undefined, refused: { reason: 'API_KEY_REFUSAL_REVOKED', retryAfterSeconds: 0 } },
      ]);
      expect((await resolveOne(brokerA, created.secret)).refused?.reason).toBe('API_KEY_REFUSAL_REVOKED');
    } finally {
      for (const client of [accountsA, brokerA, brokerB]) client.close();
    }
  });

  it('refuses a batch of more than 256 keys as INVALID_ARGUMENT', async () => {
    const broker = createTokenBrokerClient({ address: address(1), serviceToken });
    try {
      await expect(
        broker.resolveApiKeys({
          apiKeys: Array.from({ length: 257 }, () => 'sg_live_x'),
          clientAddresses: [],
        }),
      ).rejects.toMatchObject({ code: GrpcStatus.INVALID_ARGUMENT });
      const { results } = await broker.resolveApiKeys({
        apiKeys: ['', 'x'.repeat(300), 'sg_live_short'],
        clientAddresses: [],
      });
      expect(results.map((result) => result.refused?.reason)).toEqual([
        'API_KEY_REFUSAL_UNKNOWN',
        'API_KEY_REFUSAL_UNKNOWN',
        'API_KEY_REFUSAL_UNKNOWN',
      ]);
    } finally {
      broker.close();
    }
  });

  it('CreateApiKey and ListApiKeys carry toolsets, ResolveApiKeys answers them, unknown names are refused', async () => {
    const accounts = createAccountServiceClient({ address: address(0), serviceToken });
    const broker = createTokenBrokerClient({ address: address(1), serviceToken });
    try {
      const chosen = await accounts.createApiKey({
        sessionCookie,
        name: 'reading only',
        scopes: ['sheets:read'],
        expiresAt: '',
        toolsets: { names: ['core-read'] },
      });
      expect(chosen.key?.toolsets).toEqual(['core-read']);
      expect((await resolveOne(broker, chosen.secret)).resolved?.toolsets).toEqual(['core-read']);
      const listed = (await accounts.listApiKeys({ sessionCookie })).keys.find(
        (key) => key.id === chosen.key!.id,
      );
      expect(listed?.toolsets).toEqual(['core-read']);

      // A caller from before toolsets: every set, sent as none.
      const unchosen = await accounts.createApiKey({
        sessionCookie,
        name: 'every set',
        scopes: ['sheets:read'],
        expiresAt: '',
      });
      expect(unchosen.key?.toolsets).toEqual([]);
      expect((await resolveOne(broker, unchosen.secret)).resolved?.toolsets).toEqual([]);

      for (const names of [['core-read', 'admin'], []]) {
        await expect(
          accounts.createApiKey({
            sessionCookie,
            name: 'bad',
            scopes: ['sheets:read'],
            expiresAt: '',
            toolsets: { names },
          }),
        ).rejects.toMatchObject({
          code: GrpcStatus.INVALID_ARGUMENT,
          details: expect.stringMatching(/toolset/i),
        });
      }
    } finally {
      accounts.close();
      broker.close();
    }
  });

  it('refuses more client addresses than keys as INVALID_ARGUMENT', async () => {
    const broker = createTokenBrokerClient({ address: address(1), serviceToken });
    try {
      await expect(
        broker.resolveApiKeys({ apiKeys: ['sg_live_x'], clientAddresses: ['192.0.2.1', '192.0.2.2'] }),
      ).rejects.toMatchObject({ code: GrpcStatus.INVALID_ARGUMENT });
    } finally {
      broker.close();
    }
  });
});
