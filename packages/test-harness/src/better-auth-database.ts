import { createHash, randomBytes, randomInt } from 'node:crypto';
import { makeSignature, symmetricEncrypt } from 'better-auth/crypto';
import pg from 'pg';
import { createTestDatabase, type TestDatabase } from './databases.ts';

/**
 * Better Auth's PostgreSQL schema as `npx @better-auth/cli generate` writes it for the core tables,
 * the API-key plugin and the MCP/OIDC-provider plugin (camelCase columns, text ids), so the
 * provider-migration import is tested against the shape real deployments have.
 */
const SCHEMA = `
create table "user" ("id" text not null primary key, "name" text not null, "email" text not null unique,
  "emailVerified" boolean not null, "image" text, "createdAt" timestamp not null, "updatedAt" timestamp not null);
create table "session" ("id" text not null primary key, "expiresAt" timestamp not null, "token" text not null unique,
  "createdAt" timestamp not null, "updatedAt" timestamp not null, "ipAddress" text, "userAgent" text,
  "userId" text not null references "user" ("id") on delete cascade);
create table "account" ("id" text not null primary key, "accountId" text not null, "providerId" text not null,
  "userId" text not null references "user" ("id") on delete cascade, "accessToken" text, "refreshToken" text,
  "idToken" text, "accessTokenExpiresAt" timestamp, "refreshTokenExpiresAt" timestamp, "scope" text,
  "password" text, "createdAt" timestamp not null, "updatedAt" timestamp not null);
create table "verification" ("id" text not null primary key, "identifier" text not null, "value" text not null,
  "expiresAt" timestamp not null, "createdAt" timestamp, "updatedAt" timestamp);
create table "apikey" ("id" text not null primary key, "name" text, "start" text, "prefix" text, "key" text not null,
  "userId" text not null references "user" ("id") on delete cascade, "refillInterval" integer, "refillAmount" integer,
  "lastRefillAt" timestamp, "enabled" boolean, "rateLimitEnabled" boolean, "rateLimitTimeWindow" integer,
  "rateLimitMax" integer, "requestCount" integer, "remaining" integer, "lastRequest" timestamp, "expiresAt" timestamp,
  "createdAt" timestamp not null, "updatedAt" timestamp not null, "permissions" text, "metadata" text);
create table "oauthApplication" ("id" text not null primary key, "name" text, "icon" text, "metadata" text,
  "clientId" text unique, "clientSecret" text, "redirectURLs" text, "type" text, "disabled" boolean,
  "userId" text references "user" ("id") on delete cascade, "createdAt" timestamp, "updatedAt" timestamp);
create table "oauthAccessToken" ("id" text not null primary key, "accessToken" text unique, "refreshToken" text unique,
  "accessTokenExpiresAt" timestamp, "refreshTokenExpiresAt" timestamp,
  "clientId" text references "oauthApplication" ("clientId") on delete cascade,
  "userId" text references "user" ("id") on delete cascade, "scopes" text, "createdAt" timestamp, "updatedAt" timestamp);
create table "oauthConsent" ("id" text not null primary key,
  "clientId" text references "oauthApplication" ("clientId") on delete cascade,
  "userId" text references "user" ("id") on delete cascade, "scopes" text, "createdAt" timestamp,
  "updatedAt" timestamp, "consentGiven" boolean);
`;

const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
/** Better Auth's `generateId()`: 32 random alphanumeric characters. */
const betterAuthId = (length = 32) => Array.from({ length }, () => ALPHANUMERIC[randomInt(62)]).join('');
const DAY_MS = 86_400_000;

export interface BetterAuthGoogleAccount {
  /** Google's subject for the account (the emulator's, to be honoured there). */
  sub: string;
  refreshToken: string | null;
  scopes: string[];
  /** Store the tokens as Better Auth does with `account.encryptOAuthTokens` (its own code encrypts). */
  encrypted?: boolean;
}

/** A throwaway Better Auth database, and helpers that write rows as Better Auth does. */
export interface BetterAuthDatabase {
  url: string;
  /** The Better Auth secret its cookies are signed with. */
  secret: string;
  pool: pg.Pool;
  addUser(user: {
    email: string;
    name: string;
    google?: BetterAuthGoogleAccount;
    password?: boolean;
  }): Promise<string>;
  /** A session; `cookie` is the `better-auth.session_token` value a browser would send. */
  addSession(userId: string, options?: { expiresInMs?: number }): Promise<{ id: string; cookie: string }>;
  /** An API key stored as the plugin stores it (SHA-256, base64url); `key` is the secret. */
  addApiKey(
    userId: string,
    options?: {
      name?: string | null;
      enabled?: boolean;
      expiresAt?: Date | null;
      permissions?: Record<string, string[]> | null;
      remaining?: number | null;
    },
  ): Promise<{ id: string; key: string }>;
  /** An MCP client registered with the old provider, a consent, and live tokens it holds. */
  addOAuthClient(
    userId: string,
    redirectUri: string,
  ): Promise<{ clientId: string; accessToken: string; refreshToken: string }>;
  /** Row counts of every table, to show a second import changed nothing in the source either. */
  counts(): Promise<Record<string, number>>;
  close(): Promise<void>;
}

export async function createBetterAuthDatabase(): Promise<BetterAuthDatabase> {
  const database: TestDatabase = await createTestDatabase();
  const pool = new pg.Pool({ connectionString: database.url, max: 2 });
  // pg-pool's end() resolves once its clients are told to end, before their connections close;
  // close() then drops the database WITH (FORCE), and PostgreSQL's termination of a connection
  // still closing reaches the pool as an idle client's error. Without a listener that error would
  // be thrown out of the test file.
  pool.on('error', () => {});
  await pool.query(SCHEMA);
  const secret = randomBytes(32).toString('base64');
  const now = () => new Date();

  return {
    url: database.url,
    secret,
    pool,

    async addUser(user) {
      const id = betterAuthId();
      await pool.query(
        `INSERT INTO "user" (id, name, email, "emailVerified", "createdAt", "updatedAt") VALUES ($1, $2, $3, true, $4, $4)`,
        [id, user.name, user.email, new Date(Date.now() - 90 * DAY_MS)],
      );
      if (user.google) {
        await pool.query(
          `INSERT INTO account (id, "accountId", "providerId", "userId", "accessToken", "refreshToken", "idToken",
             "accessTokenExpiresAt", scope, "createdAt", "updatedAt")
           VALUES ($1, $2, 'google', $3, $4, $5, NULL, $6, $7, $8, $8)`,
          [
            betterAuthId(),
            user.google.sub,
            id,
            `ya29.${betterAuthId(40)}`,
            user.google.refreshToken && user.google.encrypted
              ? await symmetricEncrypt({ key: secret, data: user.google.refreshToken })
              : user.google.refreshToken,
            new Date(Date.now() - 3600_000),
            // Better Auth joins granted scopes with commas.
            user.google.scopes.join(','),
            new Date(Date.now() - 90 * DAY_MS),
          ],
        );
      }
      if (user.password) {
        await pool.query(
          `INSERT INTO account (id, "accountId", "providerId", "userId", password, "createdAt", "updatedAt")
           VALUES ($1, $2, 'credential', $2, $3, $4, $4)`,
          [
            betterAuthId(),
            id,
            `${randomBytes(16).toString('hex')}:${randomBytes(64).toString('hex')}`,
            now(),
          ],
        );
      }
      return id;
    },

    async addSession(userId, options = {}) {
      const id = betterAuthId();
      const token = betterAuthId();
      await pool.query(
        `INSERT INTO session (id, "expiresAt", token, "createdAt", "updatedAt", "ipAddress", "userAgent", "userId")
         VALUES ($1, $2, $3, $4, $4, '203.0.113.7', 'Mozilla/5.0', $5)`,
        [id, new Date(Date.now() + (options.expiresInMs ?? 7 * DAY_MS)), token, now(), userId],
      );
      // better-call's signCookieValue: `${token}.${signature}`, percent-encoded.
      return { id, cookie: encodeURIComponent(`${token}.${await makeSignature(token, secret)}`) };
    },

    async addApiKey(userId, options = {}) {
      const id = betterAuthId();
      const key = `sheets_${betterAuthId(64)}`;
      await pool.query(
        `INSERT INTO apikey (id, name, start, prefix, key, "userId", enabled, "rateLimitEnabled", "rateLimitTimeWindow",
           "rateLimitMax", "requestCount", remaining, "expiresAt", "createdAt", "updatedAt", permissions)
         VALUES ($1, $2, $3, 'sheets_', $4, $5, $6, true, 86400000, 10, 0, $7, $8, $9, $9, $10)`,
        [
          id,
          options.name === undefined ? 'build server' : options.name,
          key.slice(0, 6),
          // The API-key plugin's defaultKeyHasher: SHA-256, base64url without padding.
          createHash('sha256').update(key).digest('base64url'),
          userId,
          options.enabled ?? true,
          options.remaining ?? null,
          options.expiresAt ?? null,
          new Date(Date.now() - 30 * DAY_MS),
          options.permissions ? JSON.stringify(options.permissions) : null,
        ],
      );
      return { id, key };
    },

    async addOAuthClient(userId, redirectUri) {
      const clientId = betterAuthId();
      const accessToken = betterAuthId();
      const refreshToken = betterAuthId();
      await pool.query(
        `INSERT INTO "oauthApplication" (id, name, "clientId", "clientSecret", "redirectURLs", type, disabled, "userId", "createdAt", "updatedAt")
         VALUES ($1, 'Claude Code', $2, NULL, $3, 'public', false, $4, $5, $5)`,
        [betterAuthId(), clientId, redirectUri, userId, now()],
      );
      await pool.query(
        `INSERT INTO "oauthConsent" (id, "clientId", "userId", scopes, "createdAt", "updatedAt", "consentGiven")
         VALUES ($1, $2, $3, 'openid sheets:read sheets:write', $4, $4, true)`,
        [betterAuthId(), clientId, userId, now()],
      );
      await pool.query(
        `INSERT INTO "oauthAccessToken" (id, "accessToken", "refreshToken", "accessTokenExpiresAt", "refreshTokenExpiresAt",
           "clientId", "userId", scopes, "createdAt", "updatedAt")
         VALUES ($1, $2, $3, $4, $5, $6, $7, 'openid sheets:read sheets:write', $8, $8)`,
        [
          betterAuthId(),
          accessToken,
          refreshToken,
          new Date(Date.now() + 3600_000),
          new Date(Date.now() + 7 * DAY_MS),
          clientId,
          userId,
          now(),
        ],
      );
      return { clientId, accessToken, refreshToken };
    },

    async counts() {
      const tables = [
        'user',
        'session',
        'account',
        'apikey',
        'oauthApplication',
        'oauthAccessToken',
        'oauthConsent',
      ];
      const result: Record<string, number> = {};
      for (const table of tables) {
        const { rows } = await pool.query<{ count: string }>(`SELECT count(*) AS count FROM "${table}"`);
        result[table] = Number(rows[0]!.count);
      }
      return result;
    },

    async close() {
      await pool.end();
      await database.close();
    },
  };
}
