import { createHash, randomBytes } from 'node:crypto';
import type { DatabasePool } from '../db/pool.ts';
import { createSessionQueries, type StoredSession } from './session-queries.ts';

/** How long a dashboard session lasts; an absolute lifetime, so a stolen cookie cannot live forever. */
export const SESSION_TTL_SECONDS = 14 * 24 * 60 * 60;

// Cookie values are 256 random bits in base64url: 43 characters. Anything else is not ours, and is
// refused before it reaches the database.
const COOKIE_VALUE = /^[A-Za-z0-9_-]{43}$/;

const hashCookieValue = (value: string) => createHash('sha256').update(value).digest();

export interface NewSession {
  id: string;
  /** The secret for the browser's cookie; only its SHA-256 is stored. */
  cookieValue: string;
  expiresAt: Date;
}

/**
 * Dashboard sessions in PostgreSQL. The cookie value is a bearer secret with 256 bits of entropy;
 * looking it up by its hash needs no constant-time comparison (an attacker cannot steer the hash).
 */
export function createSessionStore(pool: DatabasePool, options: { ttlSeconds?: number } = {}) {
  const queries = createSessionQueries(pool);
  const ttlSeconds = options.ttlSeconds ?? SESSION_TTL_SECONDS;
  return {
    /**
     * A new session; `notAfter` caps its end (a session carried over keeps its old end), and
     * `signedInAt` is when the person signed in at Google (now, unless told otherwise).
     */
    async create(
      userId: string,
      context: { userAgent?: string; ip?: string; notAfter?: Date; signedInAt?: Date } = {},
    ): Promise<NewSession> {
      const cookieValue = randomBytes(32).toString('base64url');
      const fullTerm = Date.now() + ttlSeconds * 1000;
      const session = await queries.insert({
        userId,
        cookieHash: hashCookieValue(cookieValue),
        expiresAt: new Date(Math.min(fullTerm, context.notAfter?.getTime() ?? fullTerm)),
        signedInAt: context.signedInAt ?? new Date(),
        // Shown on the dashboard's session list; bounded so a client cannot bloat the row.
        userAgent: context.userAgent?.slice(0, 512) ?? null,
        ip: context.ip?.slice(0, 64) ?? null,
      });
      return { id: session.id, cookieValue, expiresAt: session.expiresAt };
    },

    /** The live session behind a cookie value; expired, revoked or malformed → undefined. */
    async findByCookieValue(value: string | undefined): Promise<StoredSession | undefined> {
      if (!value || !COOKIE_VALUE.test(value)) return undefined;
      return queries.findLiveByCookieHash(hashCookieValue(value));
    },

    revoke(id: string): Promise<void> {
      return queries.revoke(id);
    },

    /** Ends every session of the user (sign-out everywhere, account deletion). */
    revokeAllForUser(userId: string): Promise<number> {
      return queries.revokeAllForUser(userId);
    },

    /** Deletes rows of sessions that ended more than a day ago; for the periodic sweep. */
    sweepEnded(): Promise<number> {
      return queries.deleteEndedBefore(new Date(Date.now() - 24 * 60 * 60 * 1000));
    },
  };
}

export type SessionStore = ReturnType<typeof createSessionStore>;
export type { StoredSession };
