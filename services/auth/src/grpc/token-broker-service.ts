import {
  type ApiKeyResolution,
  type GetGoogleAccessTokenRequest,
  type GetGoogleAccessTokenResponse,
  GrpcStatus,
  MAX_API_KEYS_PER_BATCH,
  type ResolveApiKeyRequest,
  type ResolveApiKeyResponse,
  type ResolveApiKeysRequest,
  type ResolveApiKeysResponse,
  toResolveApiKeyResponse,
} from '@sheetgate/proto';
import type { Logger } from '@sheetgate/service-runtime';
import type { GoogleAccessTokenResult } from '../google/index.ts';
import { GrpcError, unaryHandler } from './unary-handler.ts';

/** gRPC TokenBroker: the MCP service's questions, answered from the libraries. */
export function tokenBrokerHandlers(deps: {
  logger: Logger;
  resolveApiKey: (secret: string) => Promise<ApiKeyResolution>;
  resolveApiKeys: (secrets: readonly string[]) => Promise<ApiKeyResolution[]>;
  googleAccessToken: (
    userId: string,
    options: { forceRefresh: boolean; answerBy: number | undefined },
  ) => Promise<GoogleAccessTokenResult>;
}) {
  return {
    resolveApiKey: unaryHandler<ResolveApiKeyRequest, ResolveApiKeyResponse>(
      deps.logger,
      'ResolveApiKey',
      async (request) => toResolveApiKeyResponse(await deps.resolveApiKey(request.apiKey)),
    ),

    resolveApiKeys: unaryHandler<ResolveApiKeysRequest, ResolveApiKeysResponse>(
      deps.logger,
      'ResolveApiKeys',
      async (request) => {
        if (request.apiKeys.length > MAX_API_KEYS_PER_BATCH) {
          throw new GrpcError(GrpcStatus.INVALID_ARGUMENT, `at most ${MAX_API_KEYS_PER_BATCH} keys per call`);
        }
        const resolutions = await deps.resolveApiKeys(request.apiKeys);
        return { results: resolutions.map(toResolveApiKeyResponse) };
      },
    ),

    getGoogleAccessToken: unaryHandler<GetGoogleAccessTokenRequest, GetGoogleAccessTokenResponse>(
      deps.logger,
      'GetGoogleAccessToken',
      async (request, { answerBy }) => {
        // A refresh running past the caller's deadline is answered UNAVAILABLE (retryable) in time.
        const result = await deps.googleAccessToken(request.userId, {
          forceRefresh: request.forceRefresh,
          answerBy,
        });
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
