import { isUuid } from '@sheetgate/service-runtime';
import type { Keyring } from '../crypto/keyring.ts';
import { type ResealCount, resealEach } from '../crypto/reseal-each.ts';
import type { Queryable } from '../db/pool.ts';
import { type ConnectionRow, type ConnectionStatus, createConnectionQueries } from './connection-queries.ts';
import { type GoogleScopeMode, isPartialGrant } from './google-scopes.ts';

/** A Google connection as the rest of auth sees it: never the refresh token itself. */
export interface GoogleConnection {
  userId: string;
  googleSubject: string;
  email: string;
  /**
   * The account's Workspace domain (the verified ID token's `hd`); empty for a consumer account,
   * null when not known (the person has not signed in since it was first kept).
   */
  hostedDomain: string | null;
  grantedScopes: string[];
  partial: boolean;
  status: ConnectionStatus;
  connectedAt: Date;
  updatedAt: Date;
}

/** A connection with its sealed refresh token, for the token broker only. */
export interface SealedConnection extends GoogleConnection {
  refreshTokenEncrypted: string | null;
}

/** `partial` is judged against the scopes the deployment's mode asks for now (a mode switch re-judges). */
const publicView = (
  { refreshTokenEncrypted: _, ...connection }: ConnectionRow,
  mode: GoogleScopeMode,
): GoogleConnection => ({ ...connection, partial: isPartialGrant(connection.grantedScopes, mode) });

/**
 * Users' Google connections. Refresh tokens are sealed with the auth key ring, with the user id
 * as associated data: a ciphertext moved onto another user's row does not decrypt.
 */
export function createGoogleConnectionLibrary(deps: {
  pool: Queryable;
  keyring: Keyring;
  /** GOOGLE_SCOPE_MODE; absent: `standard`. */
  scopeMode?: GoogleScopeMode;
}) {
  const mode = deps.scopeMode ?? 'standard';
  const queries = createConnectionQueries(deps.pool);
  const seal = (userId: string, refreshToken: string) => deps.keyring.encrypt(refreshToken, userId);
  return {
    /** Records the grant of a completed sign-in (first connection or reconnect). */
    async save(grant: {
      userId: string;
      googleSubject: string;
      email: string;
      refreshToken: string | null | undefined;
      grantedScopes: string[];
    }): Promise<GoogleConnection> {
      const row = await queries.upsert({
        userId: grant.userId,
        googleSubject: grant.googleSubject,
        email: grant.email,
        refreshTokenEncrypted: grant.refreshToken ? seal(grant.userId, grant.refreshToken) : null,
        grantedScopes: grant.grantedScopes,
        partial: isPartialGrant(grant.grantedScopes, mode),
      });
      return publicView(row, mode);
    },

    async find(userId: string): Promise<GoogleConnection | undefined> {
      if (!isUuid(userId)) return undefined;
      const row = await queries.findByUserId(userId);
      return row && publicView(row, mode);
    },

    /** The connection with its sealed refresh token (the broker unseals it only to call Google). */
    async findSealed(userId: string): Promise<SealedConnection | undefined> {
      // Ids arrive over gRPC; anything but a UUID is simply not connected.
      if (!isUuid(userId)) return undefined;
      return queries.findByUserId(userId);
    },

    unsealRefreshToken(connection: SealedConnection): string | undefined {
      if (!connection.refreshTokenEncrypted) return undefined;
      return deps.keyring.decrypt(connection.refreshTokenEncrypted, connection.userId);
    },

    markReauthRequired(connection: SealedConnection): Promise<boolean> {
      if (!connection.refreshTokenEncrypted) return Promise.resolve(false);
      return queries.markReauthRequired(connection.userId, connection.refreshTokenEncrypted);
    },

    async replaceRefreshToken(connection: SealedConnection, refreshToken: string): Promise<void> {
      if (!connection.refreshTokenEncrypted) return;
      await queries.replaceRefreshToken(
        connection.userId,
        connection.refreshTokenEncrypted,
        seal(connection.userId, refreshToken),
      );
    },

    delete(userId: string): Promise<boolean> {
      return queries.delete(userId);
    },

    /**
     * Key rotation: re-seals refresh tokens written with an older key under the ring's current
     * one, so the old key can then leave AUTH_ENCRYPTION_KEYS. Safe to run on several replicas at
     * once (each row is replaced only if unchanged). Rows no key in the ring opens (a key already
     * removed, a tampered row) are counted as unreadable and left alone: they need a reconnect.
     */
    async resealWithCurrentKey(): Promise<ResealCount> {
      const rows = await queries.listSealedWithOtherKey(deps.keyring.currentKeyId);
      const secrets = rows.map(({ userId, sealed }) => ({ userId, sealed, associatedData: userId }));
      return resealEach(deps.keyring, secrets, ({ userId, sealed }, resealed) =>
        queries.replaceRefreshToken(userId, sealed, resealed),
      );
    },
  };
}

export type GoogleConnectionLibrary = ReturnType<typeof createGoogleConnectionLibrary>;
export type { ConnectionStatus };
