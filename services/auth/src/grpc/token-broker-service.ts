import type {
  GetGoogleAccessTokenRequest,
  GetGoogleAccessTokenResponse,
  ResolveApiKeyRequest,
  ResolveApiKeyResponse,
} from '@sheetgate/proto';
import type { Logger } from '@sheetgate/service-runtime';
import type { GoogleAccessTokenResult } from '../google/index.ts';
import { unaryHandler } from './unary-handler.ts';

export type ApiKeyResolution =
  | { ok: true; userId: string; scopes: string[]; keyId: string }
  | { ok: false; reason: 'unknown' | 'expired' | 'revoked' | 'rate_limited'; retryAfterSeconds?: number };

const REFUSALS = {
  unknown: 'API_KEY_REFUSAL_UNKNOWN',
  expired: 'API_KEY_REFUSAL_EXPIRED',
  revoked: 'API_KEY_REFUSAL_REVOKED',
  rate_limited: 'API_KEY_REFUSAL_RATE_LIMITED',
} as const;

/** gRPC TokenBroker: the MCP service's two questions, answered from the libraries. */
export function tokenBrokerHandlers(deps: {
  logger: Logger;
  resolveApiKey: (secret: string) => Promise<ApiKeyResolution>;
  googleAccessToken: (userId: string, options: { forceRefresh: boolean }) => Promise<GoogleAccessTokenResult>;
}) {
  return {
    resolveApiKey: unaryHandler<ResolveApiKeyRequest, ResolveApiKeyResponse>(
      deps.logger,
      'ResolveApiKey',
      async (request) => {
        const result = await deps.resolveApiKey(request.apiKey);
        if (result.ok)
          return {
            resolved: { userId: result.userId, scopes: result.scopes, keyId: result.keyId },
            refused: undefined,
          };
        return {
          resolved: undefined,
          refused: {
            reason: REFUSALS[result.reason],
            retryAfterSeconds: Math.ceil(result.retryAfterSeconds ?? 0),
          },
        };
      },
    ),

    getGoogleAccessToken: unaryHandler<GetGoogleAccessTokenRequest, GetGoogleAccessTokenResponse>(
      deps.logger,
      'GetGoogleAccessToken',
      async (request) => {
        const result = await deps.googleAccessToken(request.userId, { forceRefresh: request.forceRefresh });
        if (result.ok) {
          return {
            token: { accessToken: result.accessToken, expiresAt: result.expiresAt, scopes: result.scopes },
            refused: undefined,
          };
        }
        return {
          token: undefined,
          refused:
            result.reason === 'NOT_CONNECTED'
              ? 'GOOGLE_TOKEN_REFUSAL_NOT_CONNECTED'
              : 'GOOGLE_TOKEN_REFUSAL_GOOGLE_AUTH_REQUIRED',
        };
      },
    ),
  };
}
