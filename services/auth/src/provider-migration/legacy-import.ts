import type { Logger } from '@sheetgate/service-runtime';
import type { ApiKeyScopes } from '../api-keys/api-key-input.ts';
import type { AuditLog } from '../audit/index.ts';
import type { Keyring } from '../crypto/keyring.ts';
import type { DatabasePool, Queryable } from '../db/pool.ts';
import { withTransaction } from '../db/transaction.ts';
import { createGoogleConnectionLibrary } from '../google/google-connections.ts';
import { parseGrantedScopes } from '../google/google-scopes.ts';
import { createUserQueries } from '../users/user-queries.ts';
import {
  BETTER_AUTH_KEY_HASH,
  type BetterAuthSecrets,
  readBetterAuthToken,
  sessionTokenHash,
} from './better-auth-secrets.ts';
import type {
  BetterAuthSource,
  SourceApiKey,
  SourceGoogleAccount,
  SourceSession,
  SourceUser,
} from './better-auth-source.ts';
import { countIn, emptyReport, type ImportReport } from './import-report.ts';
import { createLegacyImportQueries, type LegacyImportQueries } from './legacy-import-queries.ts';

export interface LegacyImportOptions {
  source: BetterAuthSource;
  pool: DatabasePool;
  keyring: Keyring;
  /** Reads Google refresh tokens the retired provider encrypted. */
  secrets: BetterAuthSecrets;
  audit: AuditLog;
  logger: Logger;
  /** Report what would happen, and write nothing (every batch is rolled back). */
  dryRun?: boolean;
  /** Users per transaction; each batch commits with its users' connections, sessions and keys. */
  batchSize?: number;
}

const ALL_SCOPES: ApiKeyScopes = ['sheets:read', 'sheets:write'];
const READ_ONLY: ApiKeyScopes = ['sheets:read'];

/**
 * Imports a retired Better Auth deployment: users (with a Google account), their Google
 * connections (refresh tokens re-sealed with Sheetgate's key ring), live sessions and API keys.
 * OAuth clients, consents and tokens are counted, never imported: MCP clients register again.
 *
 * Idempotent: every imported row is recorded in `legacy_imports`, and a re-run leaves those rows
 * alone. One transaction per batch of users; a failure rolls back that batch only, and a re-run
 * resumes where it stopped. Nothing secret is logged or reported.
 */
export async function importLegacyDatabase(options: LegacyImportOptions): Promise<ImportReport> {
  const { source, pool, logger } = options;
  const dryRun = options.dryRun ?? false;
  const batchSize = options.batchSize ?? 200;
  const report = emptyReport(dryRun, source.tables);

  let afterId: string | null = null;
  for (;;) {
    const users = await source.usersAfter(afterId, batchSize);
    if (users.length === 0) break;
    afterId = users.at(-1)!.id;
    const ids = users.map((user) => user.id);
    // One connection to the source: its queries run one after another.
    const accounts = await source.googleAccountsOf(ids);
    const sessions = await source.sessionsOf(ids);
    const apiKeys = await source.apiKeysOf(ids);
    await withTransaction(
      pool,
      async (client) => {
        for (const user of users) {
          await importUser(client, options, report, {
            user,
            accounts: accounts.filter((account) => account.userId === user.id),
            sessions: sessions.filter((session) => session.userId === user.id),
            apiKeys: apiKeys.filter((key) => key.ownerId === user.id),
          });
        }
      },
      { dryRun },
    );
    logger.info({ users: users.length, dryRun }, 'imported a batch of users');
  }

  report.oauthNotImported = await source.oauthRowCounts();
  if (!dryRun) {
    await options.audit.record('provider.imported', {
      details: {
        users: report.users.imported,
        googleConnections: report.googleConnections.imported,
        sessions: report.sessions.imported,
        apiKeys: report.apiKeys.imported,
      },
    });
  }
  return report;
}

async function importUser(
  db: Queryable,
  options: LegacyImportOptions,
  report: ImportReport,
  rows: {
    user: SourceUser;
    accounts: SourceGoogleAccount[];
    sessions: SourceSession[];
    apiKeys: SourceApiKey[];
  },
): Promise<void> {
  const { user, accounts, sessions, apiKeys } = rows;
  const imports = createLegacyImportQueries(db);
  let userId = await imports.mapped('user', user.id);
  const google = accounts[0];
  if (userId) {
    report.users.alreadyImported += 1;
  } else if (!google) {
    // Sheetgate's only sign-in is Google: a password-only account has nothing to sign in with.
    countIn(report.users.skipped, 'no Google account (Google is the only way to sign in to Sheetgate)');
    const owned = 'owner not imported (no Google account)';
    countIn(report.sessions.skipped, owned, sessions.length);
    countIn(report.apiKeys.skipped, owned, apiKeys.length);
    return;
  } else {
    const existing = await createUserQueries(db).findByGoogleSubject(google.accountId);
    if (existing) {
      userId = existing.id;
      countIn(report.users.conflicts, 'merged into the Sheetgate user of the same Google account');
    } else {
      userId = await imports.insertUser({
        googleSubject: google.accountId,
        email: user.email,
        name: user.name,
        createdAt: user.createdAt,
      });
      report.users.imported += 1;
    }
    await imports.record('user', user.id, userId);
  }
  if (accounts.length > 1) {
    countIn(
      report.googleConnections.skipped,
      'a second Google account on one user (the newest is kept)',
      accounts.length - 1,
    );
  }
  if (google) await importGoogleConnection(db, options, report, userId, user, google);
  for (const session of sessions) await importSession(imports, report, userId, session);
  for (const key of apiKeys) await importApiKey(imports, report, userId, key);
}

async function importGoogleConnection(
  db: Queryable,
  options: LegacyImportOptions,
  report: ImportReport,
  userId: string,
  user: SourceUser,
  account: SourceGoogleAccount,
): Promise<void> {
  const kind = report.googleConnections;
  const imports = createLegacyImportQueries(db);
  if (await imports.mapped('google_connection', account.id)) {
    kind.alreadyImported += 1;
    return;
  }
  if (await imports.hasGoogleConnection(userId)) {
    countIn(kind.conflicts, 'kept the Google connection Sheetgate already had');
  } else {
    let refreshToken: string | null = null;
    if (account.refreshToken) {
      try {
        refreshToken = readBetterAuthToken(account.refreshToken, options.secrets);
      } catch (error) {
        countIn(
          kind.conflicts,
          `refresh token unreadable (${(error as Error).message}): imported as needing a reconnect`,
        );
      }
    } else {
      countIn(kind.conflicts, 'no refresh token stored: imported as needing a reconnect');
    }
    await createGoogleConnectionLibrary({ pool: db, keyring: options.keyring }).save({
      userId,
      googleSubject: account.accountId,
      email: user.email,
      refreshToken,
      // A partial grant stays partial.
      grantedScopes: parseGrantedScopes(account.scope),
    });
    kind.imported += 1;
  }
  await imports.record('google_connection', account.id, userId);
}

async function importSession(
  imports: LegacyImportQueries,
  report: ImportReport,
  userId: string,
  session: SourceSession,
) {
  const kind = report.sessions;
  if (await imports.mapped('session', session.id)) {
    kind.alreadyImported += 1;
    return;
  }
  if (!(session.expiresAt instanceof Date) || session.expiresAt.getTime() <= Date.now()) {
    countIn(kind.skipped, 'expired');
    return;
  }
  const insertedId = await imports.insertSession({
    userId,
    tokenHash: sessionTokenHash(session.token),
    expiresAt: session.expiresAt,
  });
  if (!insertedId) {
    countIn(kind.skipped, 'same session token as another imported session');
    return;
  }
  await imports.record('session', session.id, insertedId);
  kind.imported += 1;
}

async function importApiKey(
  imports: LegacyImportQueries,
  report: ImportReport,
  userId: string,
  key: SourceApiKey,
) {
  const kind = report.apiKeys;
  if (await imports.mapped('api_key', key.id)) {
    kind.alreadyImported += 1;
    return;
  }
  if (!BETTER_AUTH_KEY_HASH.test(key.key)) {
    countIn(
      kind.skipped,
      "not stored with Better Auth's default key hashing (SHA-256), so it cannot be verified",
    );
    return;
  }
  const exhausted = key.remaining === 0 && !key.refillAmount;
  const revokedAt = key.enabled === false || exhausted ? (key.updatedAt ?? new Date()) : null;
  if (exhausted && key.enabled !== false) countIn(kind.conflicts, 'no uses left: imported as revoked');
  const insertedId = await imports.insertApiKey({
    userId,
    name: keyName(key),
    displayPrefix: displayPrefix(key),
    legacyHash: key.key,
    scopes: scopesOf(key.permissions),
    createdAt: key.createdAt,
    expiresAt: key.expiresAt,
    revokedAt,
    lastUsedAt: key.lastRequest,
  });
  if (!insertedId) {
    countIn(kind.skipped, 'same key as another imported key');
    return;
  }
  await imports.record('api_key', key.id, insertedId);
  kind.imported += 1;
}

// Names follow the dashboard's rules (1–100 characters, no control or bidi-override characters).
function keyName(key: SourceApiKey): string {
  const cleaned = (key.name ?? '').replace(/[\p{Cc}\u202A-\u202E\u2066-\u2069]/gu, '').trim();
  return [...(cleaned || `Imported key ${key.start ?? ''}`.trim())].slice(0, 100).join('');
}

/** Better Auth keeps the key's first characters (`start`) for display, as Sheetgate does. */
function displayPrefix(key: SourceApiKey): string {
  const start = (key.start ?? key.prefix ?? '').replace(/[^\x21-\x7e]/g, '');
  return start.slice(0, 16) || 'imported';
}

/**
 * Better Auth key permissions are `{"resource": ["action", …]}`. The retired service gave keys
 * without permissions full access, so they stay read-write; with permissions, a key can write only
 * if some action says so.
 */
function scopesOf(permissions: string | null): ApiKeyScopes {
  if (!permissions) return ALL_SCOPES;
  let parsed: unknown;
  try {
    parsed = JSON.parse(permissions);
  } catch {
    return READ_ONLY;
  }
  if (!parsed || typeof parsed !== 'object') return READ_ONLY;
  const actions = Object.values(parsed as Record<string, unknown>).flatMap((value) =>
    Array.isArray(value) ? value.map(String) : [],
  );
  if (actions.length === 0) return ALL_SCOPES;
  return actions.some((action) => /write/i.test(action)) ? ALL_SCOPES : READ_ONLY;
}
