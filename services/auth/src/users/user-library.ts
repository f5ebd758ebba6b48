import { isUuid } from '@sheetgate/service-runtime';
import type { DatabasePool } from '../db/pool.ts';
import { createUserQueries, type User } from './user-queries.ts';

/** Service users: one per Google account, found by the account's stable subject, never by email. */
export function createUserLibrary(pool: DatabasePool) {
  const queries = createUserQueries(pool);
  return {
    /**
     * The user for a verified Google identity, created on first sign-in. Email, name and Workspace
     * domain follow Google's current values (people rename themselves, change addresses, and an
     * account can join or leave an organisation; the subject stays). No `hostedDomain`: a consumer
     * account, stored as empty (null is kept for "not known").
     */
    upsertFromGoogle(identity: {
      sub: string;
      email: string;
      name?: string | null;
      hostedDomain?: string | null;
    }): Promise<User> {
      return queries.upsertByGoogleSubject(
        identity.sub,
        identity.email,
        identity.name ?? null,
        identity.hostedDomain ?? '',
      );
    },

    /** The user of a Google account (its stable subject), or undefined before its first sign-in. */
    findByGoogleSubject(subject: string): Promise<User | undefined> {
      return queries.findByGoogleSubject(subject);
    },

    /** The user, or undefined; ids that are not UUIDs (a tampered token subject) are simply unknown. */
    async findById(id: string): Promise<User | undefined> {
      if (!isUuid(id)) return undefined;
      return queries.findById(id);
    },
  };
}

export type UserLibrary = ReturnType<typeof createUserLibrary>;
export type { User };
