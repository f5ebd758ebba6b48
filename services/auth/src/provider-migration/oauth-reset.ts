import type { AuditLog } from '../audit/index.ts';
import { createAppChoiceQueries } from '../call-consent/app-choice-queries.ts';
import { createAppToolsetQueries } from '../connected-apps/app-toolset-queries.ts';
import type { Keyring } from '../crypto/keyring.ts';
import type { DatabasePool } from '../db/pool.ts';
import { withTransaction } from '../db/transaction.ts';
import { createEdgeRevocationQueries } from '../edge-revocations/edge-revocation-queries.ts';
import { createOidcModelQueries } from '../oidc/oidc-model-queries.ts';
import { replaceAllSigningKeys } from '../signing-keys/signing-key-store.ts';
import { createMigrationQueries } from './migration-queries.ts';

/** ACCESS_TOKEN_TTL_SECONDS's ceiling (15 minutes) and a minute for clocks: no token outlives it. */
const LONGEST_ACCESS_TOKEN_MS = (900 + 60) * 1000;

export interface OAuthResetReport {
  dryRun: boolean;
  /** The OAuth generation now current (or that would be). */
  generation: number;
  /** Provider models deleted, by model (Client, Grant, RefreshToken, Session, …). */
  deleted: Record<string, number>;
  /** People who had connected apps; their dashboard explains that apps need adding again. */
  peopleWithApps: number;
  /**
   * `replaced`: the stored signing keys were replaced by a new one, so access tokens already
   * issued stop verifying once auth restarts and resource servers refresh the JWKS.
   * `configured`: keys come from AUTH_SIGNING_KEYS, which the operator must replace.
   */
  signingKeys: 'replaced' | 'configured';
}

/**
 * Advances the OAuth generation: every provider model in PostgreSQL goes at once — clients,
 * grants, refresh tokens, provider sessions, and without REDIS_URL also authorization codes and
 * interactions — and the signing keys are replaced so no access token signed before survives. With
 * REDIS_URL, codes and interactions live in Redis and stay there until they expire (a minute, ten
 * minutes), unusable: a code's grant is gone, so it is never exchanged, and an interaction's
 * client is gone (one known by a metadata-document URL is fetched again, so its interaction can
 * only end in a new consent, under the new generation). Users, Google connections, dashboard
 * sessions and API keys are untouched; the toolsets and choices made for the deleted clients go
 * with them.
 * One transaction: either all of it happens or none.
 */
export async function resetOAuth(deps: {
  pool: DatabasePool;
  keyring: Keyring;
  audit: AuditLog;
  reason: string;
  /** True when AUTH_SIGNING_KEYS supplies the keys (they are not in the database to replace). */
  signingKeysConfigured: boolean;
  dryRun?: boolean;
}): Promise<OAuthResetReport> {
  const dryRun = deps.dryRun ?? false;
  const report = await withTransaction(
    deps.pool,
    async (client): Promise<OAuthResetReport> => {
      // Serialises concurrent resets: the second waits, then advances past the first.
      const migration = createMigrationQueries(client);
      await migration.lockOAuthGenerations();
      const models = createOidcModelQueries(client);
      const peopleWithApps = await models.markGrantHoldersReset();
      const deleted = await models.deleteAll();
      // The toolsets and choices made for apps whose clients are gone (a new registration is a new
      // client).
      await createAppToolsetQueries(client).deleteAll();
      await createAppChoiceQueries(client).deleteAll();
      const generation = await migration.advanceOAuthGeneration(deps.reason);
      // MCP replicas refuse every access token issued until now as soon as they next connect
      // (auth is restarted after a reset), before the old signing key leaves their JWKS cache.
      const resetAt = Date.now();
      await createEdgeRevocationQueries(client).record({
        kind: 'provider_reset',
        resetAt,
        coversUntil: resetAt + LONGEST_ACCESS_TOKEN_MS,
      });
      if (!deps.signingKeysConfigured) await replaceAllSigningKeys(client, deps.keyring);
      return {
        dryRun,
        generation,
        deleted,
        peopleWithApps,
        signingKeys: deps.signingKeysConfigured ? 'configured' : 'replaced',
      };
    },
    { dryRun },
  );
  if (!dryRun) {
    await deps.audit.record('oauth.reset', {
      details: { generation: report.generation, reason: deps.reason, deleted: report.deleted },
    });
  }
  return report;
}
