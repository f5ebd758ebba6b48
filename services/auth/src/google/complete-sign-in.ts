import type { Logger } from '@sheetgate/service-runtime';
import type { Credentials } from 'google-auth-library';
import type { UserLibrary } from '../users/user-library.ts';
import type { AccessTokenCache } from './access-token-cache.ts';
import type { GoogleConnection, GoogleConnectionLibrary } from './google-connections.ts';
import type { GoogleOAuthClient } from './google-oauth-client.ts';
import { parseGrantedScopes } from './google-scopes.ts';
import type { IdTokenVerifier } from './id-token.ts';
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

/**
 * The server side of Google's redirect back: exchanges the code (with the PKCE verifier), checks
 * the ID token against this browser's nonce, then records the user and their Google connection.
 * The access token that came with the code is cached so the first tool call need not refresh.
 */
export function createSignInCompletion(deps: {
  client: GoogleOAuthClient;
  verifyIdToken: IdTokenVerifier;
  users: UserLibrary;
  connections: GoogleConnectionLibrary;
  accessTokens: AccessTokenCache;
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

  return async function completeSignIn(
    code: string,
    pending: { codeVerifier: string; nonce: string },
  ): Promise<{ userId: string; googleSubject: string; connection: GoogleConnection }> {
    const tokens = await exchange(code, pending.codeVerifier);
    if (!tokens.id_token) throw new SignInError('invalid_id_token', 'Google sent no ID token');
    let identity: Awaited<ReturnType<IdTokenVerifier>>;
    try {
      identity = await verifyIdToken(tokens.id_token, pending.nonce);
    } catch (error) {
      logger.warn({ reason: (error as Error).message }, 'Google ID token refused');
      throw new SignInError('invalid_id_token', 'the Google ID token could not be verified');
    }
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
        { accessToken: tokens.access_token, expiresAt, scopes: grantedScopes, obtainedAt: now },
        expiresAt - now - refreshMarginSeconds(expiresAt - now),
      );
    }
    return { userId: user.id, googleSubject: identity.sub, connection };
  };
}

export type SignInCompletion = ReturnType<typeof createSignInCompletion>;
