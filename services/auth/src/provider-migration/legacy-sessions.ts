import type { AuditLog } from '../audit/index.ts';
import type { DatabasePool } from '../db/pool.ts';
import type { NewSession, SessionStore } from '../sessions/index.ts';
import { betterAuthSessionToken, sessionTokenHash } from './better-auth-secrets.ts';
import { createMigrationQueries } from './migration-queries.ts';

/**
 * Imported sessions of the retired provider: a browser that comes back with the old session cookie
 * is signed in to Sheetgate once, for no longer than the old session had left. The old session is
 * spent by the first attempt, successful or not, so a copied cookie is worth one try at most.
 */
export function createLegacySessionExchange(deps: {
  pool: DatabasePool;
  sessions: SessionStore;
  audit: AuditLog;
}) {
  const queries = createMigrationQueries(deps.pool);
  return {
    async exchange(
      cookieValue: string,
      context: { userAgent?: string; ip?: string } = {},
    ): Promise<NewSession | undefined> {
      const token = betterAuthSessionToken(cookieValue);
      if (!token) return undefined;
      const imported = await queries.spendLegacySession(sessionTokenHash(token));
      if (!imported?.live) return undefined;
      const session = await deps.sessions.create(imported.user_id, {
        ...context,
        notAfter: imported.expires_at,
      });
      await deps.audit.record('sign_in', {
        userId: imported.user_id,
        details: { method: 'imported_session', sessionId: session.id },
      });
      return session;
    },

    /** Deletes imported sessions that expired or were spent more than a day ago; for the sweep. */
    sweep(): Promise<number> {
      return queries.sweepLegacySessions();
    },
  };
}

export type LegacySessionExchange = ReturnType<typeof createLegacySessionExchange>;
