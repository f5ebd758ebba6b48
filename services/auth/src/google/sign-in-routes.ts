import {
  HttpError,
  type Logger,
  type Route,
  route,
  safeReturnTo,
  sessionCookie,
  singleQueryValue,
} from '@sheetgate/service-runtime';
import { CodeChallengeMethod } from 'google-auth-library';
import type { Context } from 'koa';
import { z } from 'zod';
import type { AuditLog } from '../audit/index.ts';
import type { Cache } from '../cache/cache.ts';
import type { Keyring } from '../crypto/keyring.ts';
import type { RateLimiter } from '../rate-limits/index.ts';
import type { SessionStore } from '../sessions/session-store.ts';
import type { UserLibrary } from '../users/user-library.ts';
import { createAccessTokenCache } from './access-token-cache.ts';
import { browserBindingCookie } from './browser-binding-cookie.ts';
import { createSignInCompletion, SignInError, type VerifiedGoogleSignIn } from './complete-sign-in.ts';
import type { ConnectionChangeAnnouncer } from './connection-changes.ts';
import type { GoogleConnectionLibrary } from './google-connections.ts';
import { googleEndpoints } from './google-endpoints.ts';
import { GoogleOAuthClient } from './google-oauth-client.ts';
import { googleRequestedScopes } from './google-scopes.ts';
import type { GoogleSettings } from './google-settings.ts';
import { createIdTokenVerifier } from './id-token.ts';
import { loginPageWithError } from './return-to.ts';
import { createSignInStates } from './sign-in-state.ts';

const SIGN_IN_PATH = '/api/auth/google';
const MAX_AGE = /^\d{1,9}$/;

/**
 * Google sign-in for people (dashboard and OAuth interactions):
 * - `GET /api/auth/google/start?return_to=/path[&max_age=N]` sends the browser to Google with
 *   state, PKCE (S256) and a nonce, kept server-side and bound to this browser; `max_age` (from an
 *   app's `prompt=login` or `max_age`) asks Google to authenticate the person again;
 * - `GET /api/auth/google/callback` checks all three, records the user and their Google
 *   connection, starts a dashboard session and returns the browser to `return_to`.
 */
export function createGoogleSignIn(deps: {
  cache: Cache;
  settings: GoogleSettings;
  /** Seals the Google access tokens it caches (the key ring service.ts parsed once). */
  keyring: Keyring;
  logger: Logger;
  users: UserLibrary;
  sessions: SessionStore;
  connections: GoogleConnectionLibrary;
  /** Records `sign_in` and `rate_limit.hit` in the audit log. */
  audit: AuditLog;
  /** Limits sign-ins per Google account (the `signIn` rule), checked before anything is stored. */
  signInLimiter: RateLimiter;
  /** Told of every recorded sign-in, so the MCP replicas forget the person's previous Google token. */
  edgeRevocations: ConnectionChangeAnnouncer;
}): Route[] {
  const { cache, settings, logger, sessions, audit, signInLimiter } = deps;
  const endpoints = googleEndpoints(settings);
  const client = new GoogleOAuthClient(settings, endpoints);
  const states = createSignInStates(cache);
  const secure = new URL(settings.BASE_URL).protocol === 'https:';
  const signIn = createSignInCompletion({
    client,
    verifyIdToken: createIdTokenVerifier(endpoints, settings.GOOGLE_CLIENT_ID),
    users: deps.users,
    connections: deps.connections,
    accessTokens: createAccessTokenCache(cache, deps.keyring),
    edgeRevocations: deps.edgeRevocations,
    logger,
  });

  const redirect = (ctx: Context, location: string) => {
    ctx.status = 303;
    ctx.redirect(location);
  };

  const start = route({
    method: 'GET',
    path: `${SIGN_IN_PATH}/start`,
    query: z.object({ return_to: singleQueryValue, max_age: singleQueryValue }),
    async handle(ctx, { query }) {
      ctx.set('cache-control', 'no-store');
      const returnTo = safeReturnTo(query.return_to);
      if (!returnTo) throw new HttpError(400, 'invalid_request', 'return_to must be a path on this site');
      if (query.max_age !== undefined && !MAX_AGE.test(query.max_age))
        throw new HttpError(400, 'invalid_request', 'max_age must be a number of seconds');
      const { codeVerifier, codeChallenge } = await client.generateCodeVerifierAsync();
      const { state, nonce, browserSecret } = await states.begin({ codeVerifier, returnTo });
      browserBindingCookie.set(ctx, browserSecret, secure);
      redirect(
        ctx,
        client.generateAuthUrl({
          scope: googleRequestedScopes(settings.GOOGLE_SCOPE_MODE),
          access_type: 'offline',
          // Google issues a refresh token only with consent; asking every time means a reconnect
          // always yields a working one.
          prompt: query.max_age === undefined ? 'consent' : 'consent select_account',
          // An app asked for a recent sign-in (prompt=login, max_age): Google has no prompt=login,
          // so its own session is held to the same age (OpenID Connect Core §3.1.2.1).
          ...(query.max_age === undefined ? {} : { max_age: query.max_age }),
          include_granted_scopes: true,
          state,
          nonce,
          code_challenge: codeChallenge!,
          code_challenge_method: CodeChallengeMethod.S256,
        }),
      );
    },
  });

  const callback = route({
    method: 'GET',
    path: `${SIGN_IN_PATH}/callback`,
    query: z.object({ state: singleQueryValue, error: singleQueryValue, code: singleQueryValue }),
    async handle(ctx, { query }) {
      ctx.set('cache-control', 'no-store');
      const result = await states.finish(query.state, browserBindingCookie.read(ctx));
      if (!result.ok) {
        logger.warn({ reason: result.reason }, 'Google sign-in callback refused');
        throw new HttpError(
          400,
          'invalid_request',
          'this sign-in has expired, was already used, or was started in another browser: sign in again',
        );
      }
      browserBindingCookie.clear(ctx, secure);
      const { pending } = result;

      const { error } = query;
      if (error) {
        logger.info({ error }, 'Google sign-in not completed');
        return redirect(
          ctx,
          loginPageWithError(
            pending.returnTo,
            error === 'access_denied' ? 'google_cancelled' : 'google_failed',
          ),
        );
      }
      const { code } = query;
      if (!code) throw new HttpError(400, 'invalid_request', 'Google sent neither a code nor an error');

      // The person has just authenticated at Google: the time ID tokens give as `auth_time`.
      const signedInAt = new Date();
      let verified: VerifiedGoogleSignIn;
      try {
        verified = await signIn.verify(code, pending);
      } catch (failure) {
        if (failure instanceof SignInError && failure.kind === 'exchange_failed')
          return redirect(ctx, loginPageWithError(pending.returnTo, 'google_failed'));
        if (failure instanceof SignInError)
          throw new HttpError(400, 'invalid_request', 'Google sign-in could not be verified');
        throw failure;
      }

      // Before the user, the Google token or a session is written: a refused sign-in changes nothing.
      const decision = await signInLimiter.consume(`google:${verified.identity.sub}`);
      if (!decision.allowed) {
        if (decision.firstRefusal) {
          const known = await deps.users.findByGoogleSubject(verified.identity.sub);
          await audit.record('rate_limit.hit', {
            userId: known?.id ?? null,
            details: { limit: signInLimiter.name, ip: ctx.ip },
          });
        }
        throw new HttpError(429, 'rate_limited', 'too many sign-ins for this account: try again later', {
          'retry-after': String(decision.retryAfterSeconds),
        });
      }
      const signedIn = await signIn.record(verified);

      // A browser switching accounts ends its previous dashboard session instead of leaving it live.
      const previous = await sessions.findByCookieValue(sessionCookie.read(ctx));
      if (previous) await sessions.revoke(previous.id);
      const session = await sessions.create(signedIn.userId, {
        userAgent: ctx.get('user-agent') || undefined,
        ip: ctx.ip,
        signedInAt,
      });
      sessionCookie.set(ctx, session.cookieValue, session.expiresAt, secure);
      await audit.record('sign_in', {
        userId: signedIn.userId,
        details: {
          method: 'google',
          sessionId: session.id,
          ip: ctx.ip,
          partialGrant: signedIn.connection.partial,
          connection: signedIn.connection.status,
        },
      });
      logger.info(
        { userId: signedIn.userId, partial: signedIn.connection.partial, status: signedIn.connection.status },
        'signed in with Google',
      );
      redirect(ctx, pending.returnTo);
    },
  });

  return [start, callback];
}
