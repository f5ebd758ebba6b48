import pg from 'pg';

/**
 * Reads a Better Auth database (PostgreSQL, Better Auth's default schema: tables `user`,
 * `account`, `session`, `apikey` and the OAuth/MCP plugin tables, camelCase columns). It only ever
 * runs SELECTs, so the retired provider's data stays as it was (the operator may also connect with
 * a read-only role; nothing more is needed). A session-level `READ ONLY` is not used: an embedded
 * PGlite serves every connection from one session, where it would leak to Sheetgate's own writes.
 */

export interface SourceUser {
  id: string;
  email: string;
  name: string | null;
  createdAt: Date | null;
}

export interface SourceGoogleAccount {
  id: string;
  userId: string;
  /** Google's stable subject (`sub`). */
  accountId: string;
  refreshToken: string | null;
  /** What Google granted, comma-separated as Better Auth stores it. */
  scope: string | null;
  updatedAt: Date | null;
}

export interface SourceSession {
  id: string;
  userId: string;
  token: string;
  expiresAt: Date;
}

export interface SourceApiKey {
  id: string;
  ownerId: string;
  name: string | null;
  start: string | null;
  prefix: string | null;
  /** The stored hash of the key (Better Auth's default hashing). */
  key: string;
  enabled: boolean | null;
  remaining: number | null;
  refillAmount: number | null;
  permissions: string | null;
  expiresAt: Date | null;
  createdAt: Date | null;
  updatedAt: Date | null;
  lastRequest: Date | null;
}

/** OAuth tables of Better Auth's MCP / OIDC-provider / OAuth-provider plugins: never imported. */
const OAUTH_TABLES = {
  clients: ['oauthApplication', 'oauthClient'],
  tokens: ['oauthAccessToken', 'oauthRefreshToken'],
  consents: ['oauthConsent'],
} as const;

const REQUIRED_COLUMNS: Record<string, string[]> = {
  user: ['id', 'email', 'name', 'createdAt'],
  account: ['id', 'accountId', 'providerId', 'userId', 'refreshToken', 'scope'],
  session: ['id', 'token', 'userId', 'expiresAt'],
};

export class SourceSchemaError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SourceSchemaError';
  }
}

const quoted = (name: string) => `"${name.replaceAll('"', '""')}"`;

export async function openBetterAuthSource(connectionString: string, schema = 'public') {
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    const { rows } = await client.query<{ table_name: string; column_name: string }>(
      'SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = $1',
      [schema],
    );
    const columns = new Map<string, Set<string>>();
    for (const row of rows) {
      if (!columns.has(row.table_name)) columns.set(row.table_name, new Set());
      columns.get(row.table_name)!.add(row.column_name);
    }
    for (const [table, required] of Object.entries(REQUIRED_COLUMNS)) {
      const present = columns.get(table);
      if (!present) throw new SourceSchemaError(`the source has no "${table}" table in schema "${schema}"`);
      const missing = required.filter((column) => !present.has(column));
      if (missing.length > 0)
        throw new SourceSchemaError(`the source's "${table}" table lacks column(s) ${missing.join(', ')}`);
    }
    return createSource(client, schema, columns);
  } catch (error) {
    await client.end();
    throw error;
  }
}

function createSource(client: pg.Client, schema: string, columns: Map<string, Set<string>>) {
  const table = (name: string) => `${quoted(schema)}.${quoted(name)}`;
  const apiKeyColumns = columns.get('apikey');
  // Better Auth ≤ 1.3 names the owner `userId`; the standalone @better-auth/api-key names it
  // `referenceId` (a user, or an organisation when so configured).
  const apiKeyOwner = apiKeyColumns?.has('userId')
    ? 'userId'
    : apiKeyColumns?.has('referenceId')
      ? 'referenceId'
      : undefined;
  const apiKeyColumn = (name: string) =>
    apiKeyColumns?.has(name) ? `${quoted(name)} AS ${quoted(name)}` : `NULL AS ${quoted(name)}`;

  return {
    /** Tables found, for the report. */
    tables: [...columns.keys()].sort(),

    /** Users in id order, after `afterId`: the import's batches. */
    async usersAfter(afterId: string | null, limit: number): Promise<SourceUser[]> {
      const { rows } = await client.query<SourceUser>(
        `SELECT id::text AS id, email, name, "createdAt" AS "createdAt" FROM ${table('user')}
          WHERE $1::text IS NULL OR id::text > $1 ORDER BY id::text LIMIT $2`,
        [afterId, limit],
      );
      return rows;
    },

    async googleAccountsOf(userIds: string[]): Promise<SourceGoogleAccount[]> {
      const updatedAt = columns.get('account')?.has('updatedAt') ? '"updatedAt"' : 'NULL::timestamptz';
      const { rows } = await client.query<SourceGoogleAccount>(
        `SELECT id::text AS id, "userId"::text AS "userId", "accountId" AS "accountId",
                "refreshToken" AS "refreshToken", scope, ${updatedAt} AS "updatedAt"
           FROM ${table('account')} WHERE "providerId" = 'google' AND "userId"::text = ANY($1::text[])
          ORDER BY ${updatedAt} DESC NULLS LAST, id::text`,
        [userIds],
      );
      return rows;
    },

    async sessionsOf(userIds: string[]): Promise<SourceSession[]> {
      const { rows } = await client.query<SourceSession>(
        `SELECT id::text AS id, "userId"::text AS "userId", token, "expiresAt" AS "expiresAt"
           FROM ${table('session')} WHERE "userId"::text = ANY($1::text[]) ORDER BY id::text`,
        [userIds],
      );
      return rows;
    },

    async apiKeysOf(userIds: string[]): Promise<SourceApiKey[]> {
      if (!apiKeyOwner || !apiKeyColumns?.has('key')) return [];
      const { rows } = await client.query<SourceApiKey>(
        `SELECT id::text AS id, ${quoted(apiKeyOwner)}::text AS "ownerId", key,
                ${['name', 'start', 'prefix', 'enabled', 'remaining', 'refillAmount', 'permissions', 'expiresAt', 'createdAt', 'updatedAt', 'lastRequest'].map(apiKeyColumn).join(', ')}
           FROM ${table('apikey')} WHERE ${quoted(apiKeyOwner)}::text = ANY($1::text[]) ORDER BY id::text`,
        [userIds],
      );
      return rows;
    },

    async count(tableName: string): Promise<number> {
      if (!columns.has(tableName)) return 0;
      const { rows } = await client.query<{ count: string }>(
        `SELECT count(*) AS count FROM ${table(tableName)}`,
      );
      return Number(rows[0]!.count);
    },

    /** Rows of the OAuth plugins' tables, which the import leaves behind by design. */
    async oauthRowCounts(): Promise<{ clients: number; tokens: number; consents: number }> {
      const sum = async (names: readonly string[]) => {
        let total = 0;
        for (const name of names) total += await this.count(name);
        return total;
      };
      return {
        clients: await sum(OAUTH_TABLES.clients),
        tokens: await sum(OAUTH_TABLES.tokens),
        consents: await sum(OAUTH_TABLES.consents),
      };
    },

    close: () => client.end(),
  };
}

export type BetterAuthSource = Awaited<ReturnType<typeof openBetterAuthSource>>;
