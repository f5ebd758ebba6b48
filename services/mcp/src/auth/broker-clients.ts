import { GrpcStatus, type TokenBrokerClient } from '@sheetgate/proto';
import type { GoogleAccessTokens } from '../google/google-access.ts';
import type { ApiKeyResolver } from './authenticate-request.ts';

const UNAVAILABLE_RETRY_AFTER_SECONDS = 5;

/**
 * `ResolveApiKey` over gRPC. When auth cannot be reached the answer is `unavailable` (503 with
 * Retry-After) — never a guess: a key is only accepted on the broker's word, every request.
 */
export function brokerApiKeyResolver(broker: TokenBrokerClient): ApiKeyResolver {
  return {
    async resolve(apiKey) {
      let response: Awaited<ReturnType<TokenBrokerClient['resolveApiKey']>>;
      try {
        response = await broker.resolveApiKey({ apiKey });
      } catch (error) {
        const code = (error as { code?: number }).code;
        if (code === GrpcStatus.UNAUTHENTICATED) throw error; // misconfiguration: fail loudly
        return { ok: false, reason: 'unavailable', retryAfterSeconds: UNAVAILABLE_RETRY_AFTER_SECONDS };
      }
      if (response.resolved) {
        return {
          ok: true,
          authInfo: {
            userId: response.resolved.userId,
            scopes: new Set(response.resolved.scopes),
            credential: 'api_key',
            apiKeyId: response.resolved.keyId,
          },
        };
      }
      switch (response.refused?.reason) {
        case 'API_KEY_REFUSAL_EXPIRED':
          return { ok: false, reason: 'expired' };
        case 'API_KEY_REFUSAL_REVOKED':
          return { ok: false, reason: 'revoked' };
        case 'API_KEY_REFUSAL_RATE_LIMITED':
          return {
            ok: false,
            reason: 'rate_limited',
            retryAfterSeconds: Math.max(1, response.refused.retryAfterSeconds),
          };
        default:
          return { ok: false, reason: 'unknown' };
      }
    },
  };
}

/** `GetGoogleAccessToken` over gRPC. Transport failures propagate (the tool call fails, retryable). */
export function brokerGoogleAccessTokens(broker: TokenBrokerClient): GoogleAccessTokens {
  return {
    async get(userId, options) {
      const response = await broker.getGoogleAccessToken({
        userId,
        forceRefresh: options?.forceRefresh ?? false,
      });
      if (response.token) {
        return {
          ok: true,
          accessToken: response.token.accessToken,
          expiresAt: response.token.expiresAt,
          scopes: response.token.scopes,
        };
      }
      return {
        ok: false,
        reason:
          response.refused === 'GOOGLE_TOKEN_REFUSAL_NOT_CONNECTED'
            ? 'NOT_CONNECTED'
            : 'GOOGLE_AUTH_REQUIRED',
      };
    },
  };
}
