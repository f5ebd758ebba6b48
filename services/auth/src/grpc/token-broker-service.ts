import {
  type CheckRevocationsRequest,
  type CheckRevocationsResponse,
  fromAccessTokenFacts,
  type GetGoogleAccessTokenRequest,
  type GetGoogleAccessTokenResponse,
  type LeaseApiKeyAllowanceRequest,
  type LeaseApiKeyAllowanceResponse,
  MAX_API_KEY_LEASE,
  MAX_API_KEYS_PER_BATCH,
  MAX_TOKENS_PER_REVOCATION_CHECK,
  type ResolveApiKeysRequest,
  type ResolveApiKeysResponse,
  toGetGoogleAccessTokenResponse,
  toResolveApiKeyResponse,
} from '@sheetgate/proto';
import { isUuid, type Logger, SheetgateError } from '@sheetgate/service-runtime';
import type { ApiKeyLibrary } from '../api-keys/index.ts';
import type { EdgeRevocations } from '../edge-revocations/index.ts';
import type { GoogleTokenBroker } from '../google/index.ts';
import { unaryHandler } from './unary-handler.ts';

/** gRPC TokenBroker: the MCP service's questions, answered from the libraries. */
export function tokenBrokerHandlers(deps: {
  logger: Logger;
  apiKeys: Pick<ApiKeyLibrary, 'resolveMany' | 'leaseAllowance'>;
  googleTokens: Pick<GoogleTokenBroker, 'getAccessToken'>;
  revocations: Pick<EdgeRevocations, 'refuses'>;
}) {
  const { logger, apiKeys, googleTokens, revocations } = deps;
  return {
    resolveApiKeys: unaryHandler<ResolveApiKeysRequest, ResolveApiKeysResponse>(
      logger,
      'ResolveApiKeys',
      async (request) => {
        if (request.apiKeys.length > MAX_API_KEYS_PER_BATCH) {
          throw new SheetgateError('invalid_argument', `at most ${MAX_API_KEYS_PER_BATCH} keys per call`);
        }
        if (request.clientAddresses.length > request.apiKeys.length) {
          throw new SheetgateError('invalid_argument', 'at most one client address per key');
        }
        const resolutions = await apiKeys.resolveMany(request.apiKeys, request.clientAddresses);
        return { results: resolutions.map(toResolveApiKeyResponse) };
      },
    ),

    leaseApiKeyAllowance: unaryHandler<LeaseApiKeyAllowanceRequest, LeaseApiKeyAllowanceResponse>(
      logger,
      'LeaseApiKeyAllowance',
      async (request) => {
        if (!isUuid(request.keyId)) throw new SheetgateError('invalid_argument', 'key_id must be a key id');
        if (!(request.requested >= 1 && request.requested <= MAX_API_KEY_LEASE)) {
          throw new SheetgateError('invalid_argument', `requested must be 1..${MAX_API_KEY_LEASE}`);
        }
        // A key whose limit is large is granted more than asked (apiKeyLeaseSize): the replica
        // spends what it is granted.
        const lease = await apiKeys.leaseAllowance(request.keyId, request.requested);
        return {
          granted: lease.granted,
          retryAfterSeconds: lease.granted < request.requested ? lease.retryAfterSeconds : 0,
          validForMs: Math.min(lease.validForMs, 2 ** 31 - 1),
        };
      },
    ),

    // PostgreSQL down is UNAVAILABLE (unaryHandler): the replica answers 503.
    checkRevocations: unaryHandler<CheckRevocationsRequest, CheckRevocationsResponse>(
      logger,
      'CheckRevocations',
      async (request) => {
        if (request.tokens.length > MAX_TOKENS_PER_REVOCATION_CHECK) {
          throw new SheetgateError(
            'invalid_argument',
            `at most ${MAX_TOKENS_PER_REVOCATION_CHECK} tokens per call`,
          );
        }
        if (request.tokens.some((token) => token.userId === '')) {
          throw new SheetgateError('invalid_argument', 'every token needs its user_id');
        }
        return { revoked: await revocations.refuses(request.tokens.map(fromAccessTokenFacts)) };
      },
    ),

    getGoogleAccessToken: unaryHandler<GetGoogleAccessTokenRequest, GetGoogleAccessTokenResponse>(
      logger,
      'GetGoogleAccessToken',
      // forceRefresh: Google refused the cached token (401); one refresh replaces it. A refresh
      // running past the caller's deadline is answered UNAVAILABLE (retryable) in time.
      async (request, { answerBy }) =>
        toGetGoogleAccessTokenResponse(
          await googleTokens.getAccessToken(request.userId, { forceRefresh: request.forceRefresh, answerBy }),
        ),
    ),
  };
}
