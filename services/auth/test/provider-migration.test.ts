import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { promisify } from 'node:util';
import { mayBeApiKey } from '@sheetgate/proto';
import { createLogger } from '@sheetgate/service-runtime';
import {
  type BetterAuthDatabase,
  createBetterAuthDatabase,
  createTestDatabase,
  type TestDatabase,
} from '@sheetgate/test-harness';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiKeyLibrary, createApiKeyLibrary, createKeyRevocations } from '../src/api-keys/index.ts';
import { createAuditLog } from '../src/audit/index.ts';
import { generateKeyringSpec, parseKeyring } from '../src/crypto/keyring.ts';
import { migrateToLatest } from '../src/db/migrate.ts';
import { createDatabasePool, type DatabasePool } from '../src/db/pool.ts';
import { createEdgeRevocationQueries } from '../src/edge-revocations/edge-revocation-queries.ts';
import { createGoogleConnectionLibrary } from '../src/google/index.ts';
import {
  betterAuthKeyHash,
  betterAuthSessionToken,
  parseBetterAuthSecrets,
  sessionTokenHash,
} from '../src/provider-migration/better-auth-secrets.ts';
import { openBetterAuthSource } from '../src/provider-migration/better-auth-source.ts';
import type { ImportReport } from '../src/provider-migration/import-report.ts';
import { createImportedApiKeys } from '../src/provider-migration/imported-api-keys.ts';
import { importLegacyDatabase } from '../src/provider-migration/legacy-import.ts';
import { createLegacySessionExchange } from '../src/provider-migration/legacy-sessions.ts';
import { resetOAuth } from '../src/provider-migration/oauth-reset.ts';
import { createRateLimits } from '../src/rate-limits/index.ts';
import { createSessionStore } from '../src/sessions/index.ts';
import { createSigningKeyStore } from '../src/signing-keys/signing-key-store.ts';
import { createUserLibrary } from '../src/users/index.ts';

const execFileAsync = promisify(execFile);
const authDir = path.resolve(import.meta.dirname, '..');
const logger = createLogger({ service: 'test', level: 'silent' });

const SPREADSHEETS = 'https://www.googleapis.com/auth/spreadsheets';
const DRIVE_READONLY = 'https://www.googleapis.com/auth/drive.readonly';
const DRIVE_FILE = 'https://www.googleapis.com/auth/drive.file';
const FULL = ['openid', 'email', 'profile', SPREADSHEETS, DRIVE_READONLY, DRIVE_FILE];
const DAY_MS = 86_400_000;

let target: TestDatabase;
let pool: DatabasePool;
let legacy: BetterAuthDatabase;
const keyringSpec = generateKeyringSpec('import');
const keyring = parseKeyring(keyringSpec);
const rows: Record<string, string> = {};
const cookies: Record<string, string> = {};
const keys: Record<string, string> = {};

/** Row counts of every table the import writes, to prove a run wrote nothing. */
async function targetCounts(): Promise<Record<string, number>> {
  const tables = [
    'users',
    'google_connections',
    'legacy_sessions',
    'api_keys',
    'legacy_imports',
    'dashboard_sessions',
  ];
  const counts: Record<string, number> = {};
  for (const table of tables) {
    const { rows: result } = await pool.query<{ count: string }>(`SELECT count(*) AS count FROM ${table}`);
    counts[table] = Number(result[0]!.count);
  }
  return counts;
}

async function runImport(options: { dryRun?: boolean; batchSize?: number } = {}): Promise<ImportReport> {
  const source = await openBetterAuthSource(legacy.url);
  try {
    return await importLegacyDatabase({
      source,
      pool,
      keyring,
      secrets: parseBetterAuthSecrets(legacy.secret),
      audit: createAuditLog(pool),
      logger,
      batchSize: options.batchSize ?? 2,
      ...(options.dryRun ? { dryRun: true } : {}),
    });
  } finally {
    await source.close();
  }
}

beforeAll(async () => {
  target = await createTestDatabase();
  await migrateToLatest(target.url, logger);
  pool = createDatabasePool(target.url, 4);
  legacy = await createBetterAuthDatabase();

  // A realistic retired deployment: people with full and partial Google grants (one of them with
  // tokens Better Auth encrypted), one without a refresh token, one who signed up with a password.
  rows.alice = await legacy.addUser({
    email: 'alice@example.com',
    name: 'Alice',
    google: { sub: '100000000000000000001', refreshToken: '1//alice-refresh-token', scopes: FULL },
  });
  rows.bob = await legacy.addUser({
    email: 'bob@example.com',
    name: 'Bob',
    google: {
      sub: '100000000000000000002',
      refreshToken: '1//bob-refresh-token',
      scopes: ['openid', 'email', 'profile', SPREADSHEETS],
      encrypted: true,
    },
  });
  rows.dave = await legacy.addUser({
    email: 'dave@example.com',
    name: 'Dave',
    google: { sub: '100000000000000000004', refreshToken: null, scopes: FULL },
  });
  rows.carol = await legacy.addUser({ email: 'carol@example.com', name: 'Carol', password: true });

  cookies.alice = (await legacy.addSession(rows.alice)).cookie;
  cookies.aliceExpired = (await legacy.addSession(rows.alice, { expiresInMs: -DAY_MS })).cookie;
  cookies.bob = (await legacy.addSession(rows.bob, { expiresInMs: 2 * DAY_MS })).cookie;
  cookies.carol = (await legacy.addSession(rows.carol)).cookie;

  keys.live = (await legacy.addApiKey(rows.alice, { name: 'nightly export' })).key;
  keys.revoked = (await legacy.addApiKey(rows.alice, { name: 'old laptop', enabled: false })).key;
  keys.expired = (
    await legacy.addApiKey(rows.alice, { name: 'trial', expiresAt: new Date(Date.now() - DAY_MS) })
  ).key;
  keys.exhausted = (await legacy.addApiKey(rows.alice, { name: 'one-off', remaining: 0 })).key;
  keys.bobReadOnly = (
    await legacy.addApiKey(rows.bob, { name: null, permissions: { sheets: ['read'] } })
  ).key;
  keys.carol = (await legacy.addApiKey(rows.carol, { name: 'carol key' })).key;
  await legacy.addOAuthClient(rows.alice, 'http://127.0.0.1:33418/callback');
});

afterAll(async () => {
  await pool?.end();
  await target?.close();
  await legacy?.close();
});

describe('migrate:import from a Better Auth database', () => {
  it('reports a dry run in full and writes nothing', async () => {
    const before = await targetCounts();
    const report = await runImport({ dryRun: true });
    expect(report.dryRun).toBe(true);
    expect(report.users).toMatchObject({ imported: 3, alreadyImported: 0 });
    expect(report.users.skipped).toEqual({
      'no Google account (Google is the only way to sign in to Sheetgate)': 1,
    });
    expect(report.googleConnections.imported).toBe(3);
    expect(report.sessions).toMatchObject({
      imported: 2,
      skipped: { expired: 1, 'owner not imported (no Google account)': 1 },
    });
    expect(report.apiKeys).toMatchObject({
      imported: 5,
      skipped: { 'owner not imported (no Google account)': 1 },
    });
    expect(report.oauthNotImported).toEqual({ clients: 1, tokens: 1, consents: 1 });
    expect(await targetCounts()).toEqual(before);
  });

  it('imports users, Google connections, sessions and keys, and no OAuth client', async () => {
    const report = await runImport();
    expect(report.users.imported).toBe(3);
    expect(report.googleConnections.imported).toBe(3);
    expect(report.googleConnections.conflicts).toEqual({
      'no refresh token stored: imported as needing a reconnect': 1,
    });
    expect(report.sessions.imported).toBe(2);
    expect(report.apiKeys.imported).toBe(5);
    expect(report.apiKeys.conflicts).toEqual({ 'no uses left: imported as revoked': 1 });

    const users = createUserLibrary(pool);
    const alice = await users.findByGoogleSubject('100000000000000000001');
    const bob = await users.findByGoogleSubject('100000000000000000002');
    const dave = await users.findByGoogleSubject('100000000000000000004');
    expect(alice).toMatchObject({ email: 'alice@example.com', displayName: 'Alice' });
    expect(alice!.oauthResetAt).toBeInstanceOf(Date);
    // Accounts keep the age they had: "created" is when the person first signed up.
    expect(alice!.createdAt.getTime()).toBeLessThan(Date.now() - 80 * DAY_MS);

    const connections = createGoogleConnectionLibrary({ pool, keyring });
    const aliceConnection = await connections.findSealed(alice!.id);
    expect(aliceConnection).toMatchObject({
      status: 'connected',
      partial: false,
      email: 'alice@example.com',
    });
    // Re-sealed with Sheetgate's key ring, and bound to the Sheetgate user.
    expect(aliceConnection!.refreshTokenEncrypted).toMatch(/^v1\.import\./);
    expect(connections.unsealRefreshToken(aliceConnection!)).toBe('1//alice-refresh-token');
    // Bob's token was encrypted by Better Auth; BETTER_AUTH_SECRET opened it. His grant was partial.
    const bobConnection = await connections.findSealed(bob!.id);
    expect(bobConnection).toMatchObject({ status: 'connected', partial: true });
    expect(connections.unsealRefreshToken(bobConnection!)).toBe('1//bob-refresh-token');
    expect(await connections.find(dave!.id)).toMatchObject({ status: 'reauth_required' });

    const { rows: keys } = await pool.query(
      `SELECT name, display_prefix, scopes, secret_hash, legacy_hash IS NOT NULL AS has_legacy_hash,
              revoked_at IS NOT NULL AS revoked, expires_at < now() AS expired
         FROM api_keys WHERE user_id = $1 ORDER BY name`,
      [alice!.id],
    );
    expect(keys).toEqual([
      expect.objectContaining({
        name: 'nightly export',
        revoked: false,
        expired: null,
        scopes: ['sheets:read', 'sheets:write'],
      }),
      expect.objectContaining({ name: 'old laptop', revoked: true }),
      expect.objectContaining({ name: 'one-off', revoked: true }),
      expect.objectContaining({ name: 'trial', revoked: false, expired: true }),
    ]);
    for (const key of keys) {
      expect(key).toMatchObject({ secret_hash: null, has_legacy_hash: true, display_prefix: 'sheets' });
    }
    const { rows: bobKeys } = await pool.query('SELECT name, scopes FROM api_keys WHERE user_id = $1', [
      bob!.id,
    ]);
    expect(bobKeys).toEqual([{ name: 'Imported key sheets', scopes: ['sheets:read'] }]);

    // The OAuth world of the retired provider is not carried over at all.
    const { rows: models } = await pool.query('SELECT count(*)::int AS count FROM oidc_models');
    expect(models[0].count).toBe(0);
    // Only hashes of old session tokens are kept.
    const { rows: sessions } = await pool.query('SELECT token_hash FROM legacy_sessions');
    expect(sessions).toHaveLength(2);
    const dump = JSON.stringify(
      (await pool.query('SELECT * FROM legacy_sessions')).rows.concat(
        (await pool.query('SELECT * FROM api_keys')).rows,
      ),
    );
    for (const cookie of Object.values(cookies))
      expect(dump).not.toContain(decodeURIComponent(cookie).split('.')[0]);
  });

  it('changes nothing when run again', async () => {
    const before = await targetCounts();
    const snapshot = (await pool.query('SELECT * FROM api_keys ORDER BY id')).rows;
    const sourceBefore = await legacy.counts();
    const report = await runImport({ batchSize: 100 });
    expect(report.users).toEqual({
      imported: 0,
      alreadyImported: 3,
      conflicts: {},
      skipped: expect.any(Object),
    });
    expect(report.googleConnections).toMatchObject({ imported: 0, alreadyImported: 3, conflicts: {} });
    expect(report.sessions).toMatchObject({ imported: 0, alreadyImported: 2 });
    expect(report.apiKeys).toMatchObject({ imported: 0, alreadyImported: 5, conflicts: {} });
    expect(await targetCounts()).toEqual(before);
    expect((await pool.query('SELECT * FROM api_keys ORDER BY id')).rows).toEqual(snapshot);
    expect(await legacy.counts()).toEqual(sourceBefore);
  });

  it('records each run in the audit log, with counts only', async () => {
    const events = await createAuditLog(pool).recent({ kind: 'provider.imported' });
    expect(events.map((event) => event.details)).toEqual([
      { users: 0, googleConnections: 0, sessions: 0, apiKeys: 0 },
      { users: 3, googleConnections: 3, sessions: 2, apiKeys: 5 },
    ]);
  });

  it('merges a person who already signed in to Sheetgate, keeping Sheetgate’s Google connection', async () => {
    const other = await createBetterAuthDatabase();
    try {
      const users = createUserLibrary(pool);
      const existing = await users.upsertFromGoogle({
        sub: '100000000000000000009',
        email: 'erin@example.com',
      });
      await createGoogleConnectionLibrary({ pool, keyring }).save({
        userId: existing.id,
        googleSubject: '100000000000000000009',
        email: 'erin@example.com',
        refreshToken: '1//sheetgate-own-token',
        grantedScopes: FULL,
      });
      const erin = await other.addUser({
        email: 'erin@example.com',
        name: 'Erin',
        google: { sub: '100000000000000000009', refreshToken: '1//older-token', scopes: FULL },
      });
      await other.addApiKey(erin, { name: 'erin key' });
      const source = await openBetterAuthSource(other.url);
      const report = await importLegacyDatabase({
        source,
        pool,
        keyring,
        secrets: {},
        audit: createAuditLog(pool),
        logger,
      }).finally(() => source.close());
      expect(report.users).toMatchObject({
        imported: 0,
        conflicts: { 'merged into the Sheetgate user of the same Google account': 1 },
      });
      expect(report.googleConnections.conflicts).toEqual({
        'kept the Google connection Sheetgate already had': 1,
      });
      const connections = createGoogleConnectionLibrary({ pool, keyring });
      expect(connections.unsealRefreshToken((await connections.findSealed(existing.id))!)).toBe(
        '1//sheetgate-own-token',
      );
      const { rows: keys } = await pool.query('SELECT name FROM api_keys WHERE user_id = $1', [existing.id]);
      expect(keys).toEqual([{ name: 'erin key' }]);
      // A person who was already here did not lose any app: no upgrade notice.
      expect((await users.findById(existing.id))!.oauthResetAt).toBeNull();
    } finally {
      await other.close();
    }
  });

  it('imports an encrypted refresh token it cannot open as needing a reconnect', async () => {
    const other = await createBetterAuthDatabase();
    try {
      await other.addUser({
        email: 'frank@example.com',
        name: 'Frank',
        google: { sub: '100000000000000000010', refreshToken: '1//frank', scopes: FULL, encrypted: true },
      });
      const source = await openBetterAuthSource(other.url);
      const report = await importLegacyDatabase({
        source,
        pool,
        keyring,
        // The secret of another deployment: decryption fails, and says so without the secret.
        secrets: parseBetterAuthSecrets('not-the-right-secret'),
        audit: createAuditLog(pool),
        logger,
      }).finally(() => source.close());
      expect(report.googleConnections.conflicts).toEqual({
        'refresh token unreadable (could not be decrypted with the Better Auth secret given): imported as needing a reconnect': 1,
      });
      const frank = await createUserLibrary(pool).findByGoogleSubject('100000000000000000010');
      expect(await createGoogleConnectionLibrary({ pool, keyring }).find(frank!.id)).toMatchObject({
        status: 'reauth_required',
      });
    } finally {
      await other.close();
    }
  });
});

describe('imported API keys', () => {
  it('keep working with their old secrets, which Sheetgate’s own hash replaces on first use', async () => {
    const limits = await createRateLimits({ pool, keyPrefix: `test:${Date.now()}` });
    const library = createApiKeyLibrary({
      pool,
      pepper: 'p'.repeat(40),
      rateLimiter: limits.apiKey,
      addressFailureLimiter: limits.apiKeyFailures,
      revocations: await createKeyRevocations({}),
      audit: createAuditLog(pool),
      importedKeys: createImportedApiKeys(pool),
      logger,
    });
    try {
      const users = createUserLibrary(pool);
      const alice = (await users.findByGoogleSubject('100000000000000000001'))!;
      const bob = (await users.findByGoogleSubject('100000000000000000002'))!;
      expect(await library.resolve(keys.live)).toMatchObject({
        ok: true,
        userId: alice.id,
        scopes: ['sheets:read', 'sheets:write'],
      });
      const { rows: upgraded } = await pool.query(
        `SELECT secret_hash IS NOT NULL AS ours, legacy_hash FROM api_keys WHERE user_id = $1 AND name = 'nightly export'`,
        [alice.id],
      );
      expect(upgraded).toEqual([{ ours: true, legacy_hash: null }]);
      // Found by Sheetgate's hash from now on, again and again.
      expect(await library.resolve(keys.live)).toMatchObject({ ok: true, userId: alice.id });
      expect(await library.resolve(keys.bobReadOnly)).toMatchObject({
        ok: true,
        userId: bob.id,
        scopes: ['sheets:read'],
      });
      expect(await library.resolve(keys.revoked)).toEqual({ ok: false, reason: 'revoked' });
      expect(await library.resolve(keys.exhausted)).toEqual({ ok: false, reason: 'revoked' });
      expect(await library.resolve(keys.expired)).toEqual({ ok: false, reason: 'expired' });
      // A person who was not imported, and near misses, are unknown.
      expect(await library.resolve(keys.carol)).toEqual({ ok: false, reason: 'unknown' });
      const nearMiss = `${keys.live!.slice(0, -1)}${keys.live!.endsWith('x') ? 'y' : 'x'}`;
      expect(await library.resolve(nearMiss)).toEqual({ ok: false, reason: 'unknown' });
      expect(await library.resolve('short')).toEqual({ ok: false, reason: 'unknown' });
      // Revoking an imported key on the dashboard works as for any key.
      const [{ id }] = (await pool.query(`SELECT id FROM api_keys WHERE name = 'nightly export'`)).rows;
      expect(await library.revoke(alice.id, id)).toBe(true);
      expect(await library.resolve(keys.live)).toEqual({ ok: false, reason: 'revoked' });
    } finally {
      await library.close();
      await limits.close();
    }
  });

  /** Keys as migrate:import leaves them: Better Auth's SHA-256 of the key, no HMAC yet. */
  async function importedKeys(
    count: number,
    secretOf = () => `ba_${randomBytes(24).toString('base64url')}`,
  ): Promise<string[]> {
    const alice = (await createUserLibrary(pool).findByGoogleSubject('100000000000000000001'))!;
    const secrets = Array.from({ length: count }, secretOf);
    for (const secret of secrets) {
      await pool.query(
        `INSERT INTO api_keys (user_id, name, display_prefix, legacy_hash, scopes)
         VALUES ($1, 'imported', $2, $3, ARRAY['sheets:read'])`,
        [alice.id, secret.slice(0, 7), betterAuthKeyHash(secret)],
      );
    }
    return secrets;
  }

  /**
   * The real pool, recording the statements on api_keys that ran; `before(text)` may hold a
   * statement back (to order two libraries' statements), `after(text)` runs once it is answered.
   */
  function observedPool(
    hooks: { before?: (text: string) => Promise<void>; after?: (text: string) => void } = {},
  ) {
    const statements: string[] = [];
    const observed = new Proxy(pool, {
      get(target, property, receiver) {
        if (property !== 'query') return Reflect.get(target, property, receiver);
        return async (query: string | { text: string }, ...rest: unknown[]) => {
          const text = typeof query === 'string' ? query : query.text;
          await hooks.before?.(text);
          const result = await (target.query as (...args: unknown[]) => Promise<unknown>)(query, ...rest);
          if (/api_keys/.test(text)) statements.push(text);
          hooks.after?.(text);
          return result;
        };
      },
    });
    return { pool: observed as DatabasePool, statements };
  }
  const isUpgrade = (text: string) => /^\s*UPDATE api_keys SET secret_hash/.test(text);
  const isLookup = (text: string) => /FROM api_keys WHERE secret_hash = ANY/.test(text);

  async function withLibrary<T>(libraryPool: DatabasePool, use: (library: ApiKeyLibrary) => Promise<T>) {
    const limits = await createRateLimits({ pool, keyPrefix: `test:${randomBytes(6).toString('hex')}` });
    const library = createApiKeyLibrary({
      pool: libraryPool,
      pepper: 'p'.repeat(40),
      rateLimiter: limits.apiKey,
      addressFailureLimiter: limits.apiKeyFailures,
      revocations: await createKeyRevocations({}),
      audit: createAuditLog(pool),
      importedKeys: createImportedApiKeys(libraryPool),
      logger,
    });
    try {
      return await use(library);
    } finally {
      await library.close();
      await limits.close();
    }
  }

  it('are looked up by HMAC first; those not found are upgraded in one statement per batch', async () => {
    const fresh = await importedKeys(3);
    const garbage = Array.from({ length: 20 }, () => randomBytes(24).toString('base64url'));
    const first = observedPool();
    const answers = await withLibrary(first.pool, (library) =>
      // keys.live was upgraded (and revoked) above: the lookup by HMAC finds it.
      library.resolveMany([...fresh, keys.live, ...garbage, fresh[0]]),
    );
    expect(answers.map((answer) => (answer.ok ? 'ok' : answer.reason))).toEqual([
      'ok',
      'ok',
      'ok',
      'revoked',
      ...garbage.map(() => 'unknown'),
      'ok',
    ]);
    expect(first.statements.filter(isUpgrade)).toHaveLength(1);
    // The lookup, and one more for what the upgrade did not find (the garbage).
    expect(first.statements.filter(isLookup)).toHaveLength(2);

    // Upgraded keys are ordinary keys now: a replica with nothing cached runs no upgrade for them.
    const second = observedPool();
    expect(
      (await withLibrary(second.pool, (library) => library.resolveMany(fresh))).map((answer) => answer.ok),
    ).toEqual([true, true, true]);
    expect(second.statements.filter(isUpgrade)).toEqual([]);
    expect(second.statements.filter(isLookup)).toHaveLength(1);
  });

  it('resolve in any shape the MCP service lets through to auth, and only those', async () => {
    // One definition (@sheetgate/proto): 16–256 URL-safe characters outside the sg_ namespace.
    const shapes = [
      () => randomBytes(12).toString('hex').slice(0, 16),
      () => `team.key~${randomBytes(180).toString('base64url')}`.slice(0, 256),
      () => `x-${randomBytes(150).toString('base64url')}`.slice(0, 201),
    ];
    const secrets = (await Promise.all(shapes.map((shape) => importedKeys(1, shape)))).flat();
    for (const secret of secrets) expect(mayBeApiKey(secret)).toBe(true);
    const refusedByTheFilter = ['k'.repeat(257), `sg_test_${'k'.repeat(40)}`, 'fifteen-chars-x'];
    for (const value of refusedByTheFilter) expect(mayBeApiKey(value)).toBe(false);
    const answers = await withLibrary(pool, (library) =>
      library.resolveMany([...secrets, ...refusedByTheFilter]),
    );
    expect(answers.map((answer) => (answer.ok ? 'ok' : answer.reason))).toEqual([
      'ok',
      'ok',
      'ok',
      'unknown',
      'unknown',
      'unknown',
    ]);
  });

  it('resolve on a replica whose lookup came just before another replica upgraded them', async () => {
    // B looks the key up (not found by HMAC yet), then A upgrades it, then B tries to: B's upgrade
    // finds no legacy hash any more, and B must still find the key.
    const [secret] = await importedKeys(1);
    let lookedUpByB!: () => void;
    let upgradedByA!: () => void;
    const bLookedUp = new Promise<void>((resolve) => (lookedUpByB = resolve));
    const aUpgraded = new Promise<void>((resolve) => (upgradedByA = resolve));
    const a = observedPool({
      before: (text) => (isUpgrade(text) ? bLookedUp : Promise.resolve()),
      after: (text) => isUpgrade(text) && upgradedByA(),
    });
    const b = observedPool({
      before: (text) => (isUpgrade(text) ? aUpgraded : Promise.resolve()),
      after: (text) => isLookup(text) && lookedUpByB(),
    });
    const [fromA, fromB] = await Promise.all([
      withLibrary(a.pool, (library) => library.resolve(secret)),
      withLibrary(b.pool, (library) => library.resolve(secret)),
    ]);
    expect(fromA).toMatchObject({ ok: true });
    expect(fromB).toMatchObject({ ok: true });
  });
});

describe('imported sessions', () => {
  const exchange = () =>
    createLegacySessionExchange({ pool, sessions: createSessionStore(pool), audit: createAuditLog(pool) });

  it('sign a returning browser in once, for no longer than the old session had left', async () => {
    const session = await exchange().exchange(cookies.bob!, { userAgent: 'Firefox', ip: '198.51.100.2' });
    expect(session?.cookieValue).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(session!.expiresAt.getTime()).toBeLessThanOrEqual(Date.now() + 2 * DAY_MS);
    expect(session!.expiresAt.getTime()).toBeGreaterThan(Date.now() + DAY_MS);
    const found = await createSessionStore(pool).findByCookieValue(session!.cookieValue);
    const bob = await createUserLibrary(pool).findByGoogleSubject('100000000000000000002');
    expect(found?.userId).toBe(bob!.id);
    // The same old cookie never works again.
    expect(await exchange().exchange(cookies.bob!)).toBeUndefined();
    const signIns = await createAuditLog(pool).recent({ kind: 'sign_in', userId: bob!.id });
    expect(signIns[0]!.details).toMatchObject({ method: 'imported_session' });
  });

  it.each([
    ['an expired session (never imported)', () => cookies.aliceExpired!],
    ['a session of a person who was not imported', () => cookies.carol!],
    ['a forged token', () => 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA.c2lnbmF0dXJl'],
    ['garbage', () => '%E0%A4%A'],
    ['an oversized value', () => 'a'.repeat(5000)],
    ['nothing', () => ''],
  ])('refuse %s', async (_, cookie) => {
    expect(await exchange().exchange(cookie())).toBeUndefined();
  });

  it('refuse a session imported live that has expired since', async () => {
    // Alice's live session was imported; its time runs out before her browser comes back.
    const tokenHash = sessionTokenHash(betterAuthSessionToken(cookies.alice!)!);
    const lapsed = await pool.query(
      `UPDATE legacy_sessions SET expires_at = now() - interval '1 minute'
        WHERE token_hash = $1 AND exchanged_at IS NULL`,
      [tokenHash],
    );
    expect(lapsed.rowCount).toBe(1);
    const sessionsBefore = await targetCounts();
    expect(await exchange().exchange(cookies.alice!)).toBeUndefined();
    // The exchange found it (and spent it), and made no dashboard session.
    const { rows } = await pool.query('SELECT exchanged_at FROM legacy_sessions WHERE token_hash = $1', [
      tokenHash,
    ]);
    expect(rows[0].exchanged_at).toBeInstanceOf(Date);
    expect((await targetCounts()).dashboard_sessions).toBe(sessionsBefore.dashboard_sessions);
  });
});

describe('migrate:reset-oauth', () => {
  it('ends every OAuth client, grant and token at once and keeps people, keys and sessions', async () => {
    const users = createUserLibrary(pool);
    const alice = (await users.findByGoogleSubject('100000000000000000001'))!;
    const sessions = createSessionStore(pool);
    const dashboard = await sessions.create(alice.id);
    const signingKeys = createSigningKeyStore(pool, keyring);
    const [oldKey] = await signingKeys.loadOrCreate();
    // What the provider stores for a connected app (its adapter's rows).
    const grantId = 'grant-1';
    const models = [
      ['Client', 'client-1', { client_id: 'client-1' }, null],
      ['Grant', grantId, { accountId: alice.id, clientId: 'client-1' }, grantId],
      ['RefreshToken', 'rt-1', { grantId, accountId: alice.id }, grantId],
      ['Session', 'session-1', { accountId: alice.id }, null],
    ] as const;
    for (const [model, id, payload, grant] of models) {
      await pool.query('INSERT INTO oidc_models (model, id, payload, grant_id) VALUES ($1, $2, $3, $4)', [
        model,
        id,
        payload,
        grant,
      ]);
    }
    const counts = await targetCounts();

    const dryRun = await resetOAuth({
      pool,
      keyring,
      audit: createAuditLog(pool),
      reason: 'test dry run',
      signingKeysConfigured: false,
      dryRun: true,
    });
    expect(dryRun).toMatchObject({ dryRun: true, generation: 2, peopleWithApps: 1 });
    expect((await pool.query('SELECT count(*)::int AS n FROM oidc_models')).rows[0].n).toBe(4);
    const resetsRecorded = async () =>
      (await createEdgeRevocationQueries(pool).lasting()).filter((entry) => entry.kind === 'provider_reset');
    expect(await resetsRecorded()).toEqual([]);
    const { rows: clients } = await pool.query<{ id: string }>(
      "SELECT id FROM oidc_models WHERE model = 'Client'",
    );
    await pool.query(
      "INSERT INTO app_toolsets (user_id, client_id, toolsets) VALUES ($1, $2, '{core-read}')",
      [alice.id, clients[0]!.id],
    );
    await pool.query(
      'INSERT INTO app_choices (user_id, client_id, may_act_outbound, may_destroy_unasked) VALUES ($1, $2, true, true)',
      [alice.id, clients[0]!.id],
    );

    const startedAt = Date.now();
    const report = await resetOAuth({
      pool,
      keyring,
      audit: createAuditLog(pool),
      reason: 'security upgrade',
      signingKeysConfigured: false,
    });
    expect(report).toEqual({
      dryRun: false,
      generation: 2,
      deleted: { Client: 1, Grant: 1, RefreshToken: 1, Session: 1 },
      peopleWithApps: 1,
      signingKeys: 'replaced',
    });
    expect((await pool.query('SELECT count(*)::int AS n FROM oidc_models')).rows[0].n).toBe(0);
    expect((await pool.query('SELECT count(*)::int AS n FROM app_toolsets')).rows[0].n).toBe(0);
    expect((await pool.query('SELECT count(*)::int AS n FROM app_choices')).rows[0].n).toBe(0);
    const [newKey, ...others] = await signingKeys.list();
    expect(others).toEqual([]);
    expect(newKey!.kid).not.toBe(oldKey!.kid);
    expect(newKey!.state).toBe('current');
    // People, Google connections, sessions and keys carried over untouched.
    expect(await targetCounts()).toEqual(counts);
    expect((await sessions.findByCookieValue(dashboard.cookieValue))?.userId).toBe(alice.id);
    expect((await users.findById(alice.id))!.oauthResetAt!.getTime()).toBeGreaterThan(
      alice.oauthResetAt!.getTime(),
    );
    const [event] = await createAuditLog(pool).recent({ kind: 'oauth.reset' });
    expect(event!.details).toMatchObject({ generation: 2, reason: 'security upgrade' });
    // Every MCP replica's next snapshot refuses the access tokens issued until the reset, whatever
    // key signed them, for as long as any of them may live (docs/design.md §4.6).
    const [recorded, ...more] = await resetsRecorded();
    expect(more).toEqual([]);
    expect(recorded!.kind === 'provider_reset' && recorded!.resetAt).toBeGreaterThanOrEqual(startedAt);
    expect(recorded!.coversUntil).toBeGreaterThanOrEqual(startedAt + 900_000);
  });
});

describe('the commands', () => {
  const env = () => ({
    PATH: process.env.PATH,
    DATABASE_URL: target.url,
    AUTH_ENCRYPTION_KEYS: keyringSpec,
    LOG_LEVEL: 'silent',
  });
  const run = (script: string, args: string[], extraEnv: Record<string, string> = {}) =>
    execFileAsync(process.execPath, [`src/provider-migration/${script}`, ...args], {
      cwd: authDir,
      env: { ...env(), ...extraEnv },
      encoding: 'utf8',
    }).then(
      (done) => ({ code: 0, ...done }),
      (failed: { code: number; stdout: string; stderr: string }) => failed,
    );

  it('migrate:import prints its report as JSON and text, and an already imported source changes nothing', async () => {
    const json = await run('import-cli.ts', ['--from', legacy.url, '--json']);
    expect(json.code).toBe(0);
    const report = JSON.parse(json.stdout) as ImportReport;
    expect(report.users.alreadyImported).toBe(3);
    expect(report.apiKeys.imported).toBe(0);
    const text = await run('import-cli.ts', ['--from', legacy.url, '--dry-run']);
    expect(text.stdout).toContain('Dry run: nothing was written.');
    expect(text.stdout).toContain(
      'OAuth (not imported by design; apps connect again): 1 client(s), 1 token(s), 1 consent(s)',
    );
  });

  it('migrate:import writes no secret to its output, even logging at trace level', async () => {
    const other = await createBetterAuthDatabase();
    try {
      const refreshToken = `1//secret-${Date.now()}`;
      const gina = await other.addUser({
        email: 'gina@example.com',
        name: 'Gina',
        google: { sub: '100000000000000000011', refreshToken, scopes: FULL, encrypted: true },
      });
      const { key } = await other.addApiKey(gina, { name: 'gina key' });
      const { cookie } = await other.addSession(gina);
      const result = await run('import-cli.ts', ['--json'], {
        LOG_LEVEL: 'trace',
        IMPORT_SOURCE_DATABASE_URL: other.url,
        BETTER_AUTH_SECRET: other.secret,
      });
      expect(result.code).toBe(0);
      expect(JSON.parse(result.stdout).apiKeys.imported).toBe(1);
      expect(result.stderr).toContain('imported a batch of users'); // the logs were on
      const output = result.stdout + result.stderr;
      for (const secret of [
        refreshToken,
        key,
        decodeURIComponent(cookie).split('.')[0]!,
        other.secret,
        keyringSpec,
      ]) {
        expect(output).not.toContain(secret);
      }
    } finally {
      await other.close();
    }
  });

  it.each([
    [['--from', 'mysql://nope'], 2, /give the Better Auth database/],
    [[], 2, /give the Better Auth database/],
    [['--from', 'postgres://x', '--batch-size', '0'], 2, /usage/],
    [['--unknown'], 2, /Unknown option/],
  ])('migrate:import %j exits %i', async (args, code, message) => {
    const result = await run('import-cli.ts', args as string[]);
    expect(result.code).toBe(code);
    expect(result.stderr).toMatch(message);
  });

  it('migrate:import refuses a database that is not Better Auth’s, without printing its URL', async () => {
    const result = await run('import-cli.ts', ['--from', target.url]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('failed: the source has no "user" table in schema "public"');
    expect(result.stderr).not.toContain(target.url);
  });

  it.each([
    ['migrate:import', 'import-cli.ts', ['--from', 'postgres://source.invalid/db']],
    ['migrate:reset-oauth', 'reset-oauth-cli.ts', ['--yes']],
  ])(
    '%s refuses a malformed AUTH_ENCRYPTION_KEYS with one line naming the setting, before anything runs',
    async (name, script, args) => {
      const secret = randomBytes(16).toString('base64');
      // A database nothing listens for: the command must stop at its settings, never reach for it.
      const result = await run(script, args, {
        AUTH_ENCRYPTION_KEYS: `k:${secret}`,
        DATABASE_URL: 'postgres://postgres@127.0.0.1:1/nowhere',
      });
      expect(result.code).toBe(78);
      expect(result.stderr).toMatch(
        new RegExp(`^${name}: invalid setting AUTH_ENCRYPTION_KEYS: key k must be 32 bytes[^\n]*\n$`),
      );
      expect(result.stdout).toBe('');
      expect(result.stderr).not.toContain(secret);
    },
  );

  it('migrate:reset-oauth only reports without --yes', async () => {
    const result = await run('reset-oauth-cli.ts', []);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^Dry run: advancing to OAuth generation 3 would end nothing/);
    const done = await run('reset-oauth-cli.ts', ['--yes', '--reason', 'drill', '--json']);
    expect(JSON.parse(done.stdout)).toMatchObject({ dryRun: false, generation: 3, signingKeys: 'replaced' });
    expect((await run('reset-oauth-cli.ts', ['--reason', ''])).code).toBe(2);
  });
});
