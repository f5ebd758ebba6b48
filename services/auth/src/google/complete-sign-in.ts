import type { Logger } from '@sheetgate/service-runtime';
import type { Credentials } from 'google-auth-library';
import type { UserLibrary } from '../users/user-library.ts';
import type { AccessTokenCache } from './access-token-cache.ts';
import { announceConnectionChanged, type ConnectionChangeAnnouncer } from './connection-changes.ts';
import type { GoogleConnection, GoogleConnectionLibrary } from './google-connections.ts';
import type { GoogleOAuthClient } from './google-oauth-client.ts';
import { parseGrantedScopes } from './google-scopes.ts';
import type { GoogleIdentity, IdTokenVerifier } from './id-token.ts';
import { refreshMarginSeconds } from './token-broker.ts';

export class SignInError extends Error {
  /** `exchange_failed`: Google refused or failed the code exchange; `invalid_id_token`: forged or wrong. */
  readonly kind: 'exchange_failed' | 'invalid_id_token';
  constructor(kind: SignInError['kind'], message: string) {
    super(message);
    this.name = 'SignInError';
    this.kind = kind;
  }
}

/** Google's answer to the code, checked: the tokens and the verified identity they belong to. */
export interface VerifiedGoogleSignIn {
  tokens: Credentials;
  identity: GoogleIdentity;
}

/**
 * The server side of Google's redirect back, in two steps so that the caller can refuse a sign-in
 * (the per-account limit) after learning who signs in and before anything is written:
 * `verify` exchanges the code (with the PKCE verifier) and checks the ID token against this
 * browser's nonce; `record` then stores the user and their Google connection, caches the
 * access token that came with the code so the first tool call need not refresh, and has the MCP
 * replicas forget the Google access token they kept for the person (a reconnect replaces it).
 */
export function createSignInCompletion(deps: {
  client: GoogleOAuthClient;
  verifyIdToken: IdTokenVerifier;
  users: UserLibrary;
  connections: GoogleConnectionLibrary;
  accessTokens: AccessTokenCache;
  /** Told of every recorded sign-in: the MCP replicas forget the previous grant's access token. */
  edgeRevocations: ConnectionChangeAnnouncer;
  logger: Logger;
}) {
  const { client, verifyIdToken, users, connections, accessTokens, logger } = deps;

  async function exchange(code: string, codeVerifier: string): Promise<Credentials> {
    try {
      return (await client.getToken({ code, codeVerifier })).tokens;
    } catch (error) {
      // The error holds the request (code, verifier, client secret): log only its status.
      const status = (error as { status?: number }).status;
      logger.warn({ status }, 'Google code exchange failed');
      throw new SignInError('exchange_failed', `Google code exchange failed (${status ?? 'no answer'})`);
    }
  }

  return {
    async verify(
      code: string,
      pending: { codeVerifier: string; nonce: string },
    ): Promise<VerifiedGoogleSignIn> {
      const tokens = await exchange(code, pending.codeVerifier);
      if (!tokens.id_token) throw new SignInError('invalid_id_token', 'Google sent no ID token');
      try {
        return { tokens, identity: await verifyIdToken(tokens.id_token, pending.nonce) };
      } catch (error) {
        logger.warn({ reason: (error as Error).message }, 'Google ID token refused');
        throw new SignInError('invalid_id_token', 'the Google ID token could not be verified');
      }
    },

    async record({
      tokens,
      identity,
    }: VerifiedGoogleSignIn): Promise<{ userId: string; connection: GoogleConnection }> {
      const user = await users.upsertFromGoogle(identity);
      const grantedScopes = parseGrantedScopes(tokens.scope);
      const connection = await connections.save({
        userId: user.id,
        googleSubject: identity.sub,
        email: identity.email,
        refreshToken: tokens.refresh_token,
        grantedScopes,
      });
      // The previous grant's token (other scopes, maybe revoked) must not be served after a reconnect.
      await accessTokens.forget(user.id);
      if (tokens.access_token && tokens.expiry_date) {
        const now = Date.now() / 1000;
        const expiresAt = Math.floor(tokens.expiry_date / 1000);
        await accessTokens.set(
          user.id,
          {
            accessToken: tokens.access_token,
            expiresAt,
            scopes: grantedScopes,
            obtainedAt: now,
            account: { email: connection.email, hostedDomain: connection.hostedDomain },
          },
          expiresAt - now - refreshMarginSeconds(expiresAt - now),
        );
      }
      // …nor by an MCP replica that kept it: the browser goes on once every replica forgot it.
      await announceConnectionChanged(deps.edgeRevocations, user.id, logger);
      return { userId: user.id, connection };
    },
  };
}

export type SignInCompletion = ReturnType<typeof createSignInCompletion>;
