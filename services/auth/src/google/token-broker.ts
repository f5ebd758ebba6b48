import { randomBytes } from 'node:crypto';
import type { GoogleAccessTokenResult } from '@sheetgate/proto';
import { type Logger, withDeadline } from '@sheetgate/service-runtime';
import type { AuditLog } from '../audit/index.ts';
import type { Cache } from '../cache/cache.ts';
import { type Keyring, KeyringError } from '../crypto/keyring.ts';
import { type CachedAccessToken, createAccessTokenCache } from './access-token-cache.ts';
import { announceConnectionChanged, type ConnectionChangeAnnouncer } from './connection-changes.ts';
import type { GoogleConnectionLibrary, SealedConnection } from './google-connections.ts';
import { googleEndpoints } from './google-endpoints.ts';
import { GoogleUnavailableError, isTransientGoogleError, oauthErrorCode } from './google-errors.ts';
import { GoogleOAuthClient } from './google-oauth-client.ts';
import { parseGrantedScopes } from './google-scopes.ts';
import type { GoogleSettings } from './google-settings.ts';

export interface TokenBrokerTiming {
  /** How long one replica may hold a user's refresh lock (covers Google's timeout and retries). */
  lockTtlSeconds: number;
  /** How long a caller waits for another replica's refresh before giving up (retryable). */
  waitTimeoutMs: number;
  pollIntervalMs: number;
  /** After a transient failure, callers waiting on that refresh fail too for this long. */
  failureTtlSeconds: number;
}

/**
 * A forced refresh (Google just refused the token) is ignored for a token this young: when many
 * calls fail with one token at once, the first refreshes and the rest get its fresh token.
 */
const FORCED_REFRESH_MIN_AGE_SECONDS = 5;

const DEFAULT_TIMING: TokenBrokerTiming = {
  lockTtlSeconds: 30,
  // Inside the callers' deadline for GetGoogleAccessToken (12 s, proto/src/clients.ts); a caller
  // with a shorter one is answered by its own deadline (`answerBy`).
  waitTimeoutMs: 10_000,
  pollIntervalMs: 50,
  failureTtlSeconds: 2,
};

/** `attempt`, or GoogleUnavailableError at `answerBy` if it has not settled (it carries on). */
function beforeDeadline<T>(attempt: Promise<T>, answerBy: number): Promise<T> {
  return withDeadline(
    attempt,
    answerBy - Date.now(),
    () => new GoogleUnavailableError('the Google token refresh is still running; retry shortly'),
  );
}

const lockKey = (userId: string) => `google-refresh-lock:${userId}`;
const failureKey = (userId: string) => `google-refresh-failed:${userId}`;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * How long before expiry a token is refreshed: a tenth of its lifetime, at most five minutes, so a
 * tool call never starts with a token about to lapse.
 */
export function refreshMarginSeconds(lifetimeSeconds: number): number {
  return Math.min(300, lifetimeSeconds / 10);
}

/**
 * Users' Google access tokens for the MCP service's tool calls (gRPC `GetGoogleAccessToken`).
 * Tokens are cached until shortly before expiry; a refresh runs once per user at a time across
 * every replica (a lock in the shared cache; others wait for its result), and a refresh token
 * Google refuses (`invalid_grant`) turns the connection to `reauth_required`.
 *
 * Throws GoogleUnavailableError when Google is down or slow: the caller may retry.
 */
export function createGoogleTokenBroker(deps: {
  cache: Cache;
  settings: GoogleSettings;
  /** AUTH_ENCRYPTION_KEYS, parsed once by the service: cached access tokens are sealed with it. */
  keyring: Keyring;
  connections: GoogleConnectionLibrary;
  logger: Logger;
  /** Records `google.reauth_required` when Google refuses a refresh token. */
  audit?: AuditLog;
  /**
   * Told when Google refuses a refresh token and on disconnect, so the MCP replicas forget the
   * Google access token they kept for the person (docs/design.md §4.3).
   */
  edgeRevocations: ConnectionChangeAnnouncer;
  timing?: Partial<TokenBrokerTiming>;
  /** Told how each refresh-token grant at Google ended (the metrics count them). */
  onRefresh?: (outcome: 'ok' | 'invalid_grant' | 'unavailable' | 'refused') => void;
}) {
  const { cache, settings, connections, logger, audit, onRefresh } = deps;
  const timing = { ...DEFAULT_TIMING, ...deps.timing };
  const tokens = createAccessTokenCache(cache, deps.keyring);
  const client = new GoogleOAuthClient(settings, googleEndpoints(settings));
  // Concurrent calls for one user in this process share one attempt (and one lock poll).
  const inFlight = new Map<string, Promise<GoogleAccessTokenResult>>();

  const answer = ({
    accessToken,
    expiresAt,
    scopes,
    account,
  }: CachedAccessToken): GoogleAccessTokenResult => ({
    ok: true,
    accessToken,
    expiresAt,
    scopes,
    email: account.email,
    // Not known yet (no sign-in since it was first kept): judged as a consumer account, the side
    // on which every other address is outside.
    hostedDomain: account.hostedDomain ?? '',
  });
  const isYoung = ({ obtainedAt = 0, expiresAt }: CachedAccessToken) =>
    Date.now() / 1000 - obtainedAt < Math.min(FORCED_REFRESH_MIN_AGE_SECONDS, (expiresAt - obtainedAt) / 4);
  /** A cached token the caller may have: not the one a forced refresh is replacing. */
  const usable = (cached: CachedAccessToken | undefined, replacing: string | undefined) =>
    cached && cached.accessToken !== replacing ? cached : undefined;

  async function refresh(userId: string): Promise<GoogleAccessTokenResult> {
    const connection = await connections.findSealed(userId);
    if (!connection) return { ok: false, reason: 'NOT_CONNECTED' };
    if (connection.status !== 'connected') return { ok: false, reason: 'GOOGLE_AUTH_REQUIRED' };
    let refreshToken: string | undefined;
    try {
      refreshToken = connections.unsealRefreshToken(connection);
    } catch (error) {
      // Its key left AUTH_ENCRYPTION_KEYS before a re-seal: only a new sign-in can help.
      if (!(error instanceof KeyringError)) throw error;
      logger.error({ userId, reason: error.message }, 'stored Google refresh token cannot be decrypted');
    }
    if (!refreshToken) return { ok: false, reason: 'GOOGLE_AUTH_REQUIRED' };
    let granted: Awaited<ReturnType<GoogleOAuthClient['refreshGrant']>>['tokens'];
    try {
      ({ tokens: granted } = await client.refreshGrant(refreshToken));
    } catch (error) {
      return refreshFailed(connection, error);
    }
    onRefresh?.('ok');
    if (!granted.access_token)
      throw new GoogleUnavailableError('Google answered the refresh without a token');
    if (granted.refresh_token && granted.refresh_token !== refreshToken)
      await connections.replaceRefreshToken(connection, granted.refresh_token);
    const now = Date.now() / 1000;
    const expiresAt = Math.floor((granted.expiry_date ?? (now + 3600) * 1000) / 1000);
    const scopes = granted.scope ? parseGrantedScopes(granted.scope) : connection.grantedScopes;
    const account = { email: connection.email, hostedDomain: connection.hostedDomain };
    const token = { accessToken: granted.access_token, expiresAt, scopes, obtainedAt: now, account };
    await tokens.set(userId, token, expiresAt - now - refreshMarginSeconds(expiresAt - now));
    return answer(token);
  }

  async function refreshFailed(
    connection: SealedConnection,
    error: unknown,
  ): Promise<GoogleAccessTokenResult> {
    const code = oauthErrorCode(error);
    // RFC 6749 §5.2: the refresh token is invalid, expired or revoked. Only a new sign-in helps.
    if (code === 'invalid_grant') {
      onRefresh?.('invalid_grant');
      // Its access tokens die with the grant: a caller that did not force a refresh must not be
      // answered the cached one (an MCP replica told to forget it asks without forcing).
      await tokens.forget(connection.userId);
      // Only the call that marked it announces it (racing callers find it marked already); the
      // refusal is answered once every MCP replica has forgotten the token Google now refuses.
      if (await connections.markReauthRequired(connection)) {
        await audit?.record('google.reauth_required', {
          userId: connection.userId,
          details: { reason: code },
        });
        await announceConnectionChanged(deps.edgeRevocations, connection.userId, logger);
      }
      logger.info({ userId: connection.userId }, 'Google refused the refresh token; reconnect required');
      return { ok: false, reason: 'GOOGLE_AUTH_REQUIRED' };
    }
    // The error carries the request (with the refresh token): log only what classifies it.
    const status = (error as { status?: number }).status;
    if (isTransientGoogleError(error)) {
      onRefresh?.('unavailable');
      await cache.set(failureKey(connection.userId), '1', timing.failureTtlSeconds);
      logger.warn({ userId: connection.userId, status }, 'Google token refresh failed; retryable');
      throw new GoogleUnavailableError(`Google token endpoint unavailable (${status ?? 'no answer'})`);
    }
    onRefresh?.('refused');
    logger.error({ userId: connection.userId, status, oauthError: code }, 'Google token refresh refused');
    throw new Error(`Google refused the token refresh: ${code ?? status ?? 'unknown error'}`);
  }

  /** A token from another replica's refresh or our own; `replacing` is a token Google refused. */
  async function obtain(userId: string, replacing: string | undefined): Promise<GoogleAccessTokenResult> {
    const deadline = Date.now() + timing.waitTimeoutMs;
    for (;;) {
      const holder = randomBytes(8).toString('hex');
      if (await cache.setIfAbsent(lockKey(userId), holder, timing.lockTtlSeconds)) {
        try {
          // Another replica may have stored a token between our cache miss and taking the lock.
          const cached = usable(await tokens.get(userId), replacing);
          return cached ? answer(cached) : await refresh(userId);
        } finally {
          await cache.delete(lockKey(userId));
        }
      }
      // Someone else refreshes: wait for their token, their failure, or their lock to go.
      for (;;) {
        if (Date.now() >= deadline)
          throw new GoogleUnavailableError('timed out waiting for another Google token refresh');
        await sleep(timing.pollIntervalMs);
        const cached = usable(await tokens.get(userId), replacing);
        if (cached) return answer(cached);
        if (await cache.get(failureKey(userId)))
          throw new GoogleUnavailableError('Google token refresh failed; retry shortly');
        // Lock gone without a token: it ended in reauth_required (refresh() answers from the
        // database without calling Google), or its holder died. Take it ourselves.
        if (!(await cache.get(lockKey(userId)))) break;
      }
    }
  }

  return {
    /**
     * The user's Google access token. `forceRefresh`: Google refused the token it answered before
     * (401), so get a new one unless the cached one was obtained moments ago. `answerBy` (epoch
     * milliseconds): the caller's deadline; a refresh (ours at Google, or another replica's we wait
     * for) still running then is answered GoogleUnavailableError (retryable) and goes on, so the
     * token it gets is cached for the retry.
     */
    async getAccessToken(
      userId: string,
      options: { forceRefresh?: boolean; answerBy?: number } = {},
    ): Promise<GoogleAccessTokenResult> {
      const cached = await tokens.get(userId);
      const replacing = options.forceRefresh && cached && !isYoung(cached) ? cached.accessToken : undefined;
      if (cached && !replacing) return answer(cached);
      let attempt = inFlight.get(userId);
      if (!attempt) {
        attempt = obtain(userId, replacing).finally(() => inFlight.delete(userId));
        inFlight.set(userId, attempt);
      }
      return options.answerBy === undefined ? attempt : beforeDeadline(attempt, options.answerBy);
    },

    /**
     * Disconnects Google: revokes the grant at Google (RFC 7009; Google revokes the whole grant
     * for a refresh token), deletes the stored tokens and tells the MCP replicas to forget theirs.
     * False when there was no connection.
     */
    async disconnect(userId: string): Promise<boolean> {
      const connection = await connections.findSealed(userId);
      if (!connection) return false;
      const refreshToken = connections.unsealRefreshToken(connection);
      if (refreshToken) {
        try {
          await client.revokeToken(refreshToken);
        } catch (error) {
          // Already revoked or expired at Google (400 invalid_token) is what we wanted anyway;
          // anything else leaves the grant alive at Google, so keep the connection and say so.
          if ((error as { status?: number }).status !== 400) {
            logger.warn(
              { userId, status: (error as { status?: number }).status },
              'Google revocation failed',
            );
            throw new GoogleUnavailableError('Google revocation failed; retry shortly');
          }
        }
      }
      await tokens.forget(userId);
      const deleted = await connections.delete(userId);
      await announceConnectionChanged(deps.edgeRevocations, userId, logger);
      return deleted;
    },
  };
}

export type GoogleTokenBroker = ReturnType<typeof createGoogleTokenBroker>;
