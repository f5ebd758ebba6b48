import {
  type ApiKeyResolution,
  fromGetGoogleAccessTokenResponse,
  fromResolveApiKeyResponse,
  kindOfCallError,
  MAX_API_KEYS_PER_BATCH,
  type TokenBrokerClient,
} from '@sheetgate/proto';
import { ToolError } from '../errors/tool-error.ts';
import type { GoogleAccessTokens } from '../google/google-access.ts';

const UNAVAILABLE_RETRY_AFTER_SECONDS = 5;

/** What the MCP service makes of a presented key: the broker's answer, or "auth cannot be asked". */
export type ApiKeyOutcome =
  | ApiKeyResolution
  | { ok: false; reason: 'unavailable'; retryAfterSeconds: number };

/** The broker's `ResolveApiKeys`, seen from the MCP service. */
export interface ApiKeyResolver {
  /** `clientAddress`: who presented the key (auth limits unknown keys per address). */
  resolve(apiKey: string, clientAddress: string): Promise<ApiKeyOutcome>;
}

interface Waiting {
  apiKey: string;
  clientAddress: string;
  resolve: (outcome: ApiKeyOutcome) => void;
  reject: (error: unknown) => void;
}

/**
 * API keys resolved by the broker — those the edge does not hold (api-key-edge.ts) and every
 * refused one — with the gRPC round trip amortised: keys of requests that arrive in the same event-loop turn are sent together in
 * one `ResolveApiKeys` call (at most 256 per call), flushed by `setImmediate` so a lone request
 * waits for nothing but the loop turn it is already in. Auth judges and rate-counts each key as
 * if it had come alone.
 *
 * When auth cannot be reached the answer is `unavailable` (503 with Retry-After), never a guess.
 * A wrong service credential is a deployment mistake and fails loudly instead.
 */
export function brokerApiKeyResolver(broker: TokenBrokerClient): ApiKeyResolver {
  let waiting: Waiting[] = [];

  function send(batch: Waiting[]) {
    const unavailable: ApiKeyOutcome = {
      ok: false,
      reason: 'unavailable',
      retryAfterSeconds: UNAVAILABLE_RETRY_AFTER_SECONDS,
    };
    const request = {
      apiKeys: batch.map((entry) => entry.apiKey),
      clientAddresses: batch.map((entry) => entry.clientAddress),
    };
    broker.resolveApiKeys(request).then(
      ({ results }) => {
        // One answer per key, in order, is the contract; anything else is not trusted.
        const complete = results.length === batch.length;
        batch.forEach((entry, index) => {
          const result = results[index];
          entry.resolve(complete && result ? fromResolveApiKeyResponse(result) : unavailable);
        });
      },
      (error: unknown) => {
        const misconfigured = kindOfCallError(error) === 'unauthenticated';
        for (const entry of batch) {
          if (misconfigured) entry.reject(error);
          else entry.resolve(unavailable);
        }
      },
    );
  }

  function flush() {
    const all = waiting;
    waiting = [];
    for (let start = 0; start < all.length; start += MAX_API_KEYS_PER_BATCH)
      send(all.slice(start, start + MAX_API_KEYS_PER_BATCH));
  }

  return {
    resolve(apiKey, clientAddress) {
      return new Promise((resolve, reject) => {
        if (waiting.length === 0) setImmediate(flush);
        waiting.push({ apiKey, clientAddress, resolve, reject });
      });
    },
  };
}

/**
 * `GetGoogleAccessToken` over gRPC. Auth unreachable or answering UNAVAILABLE (Google or its own
 * stores down) is a tool error that says to try again; other failures propagate.
 */
export function brokerGoogleAccessTokens(broker: TokenBrokerClient): GoogleAccessTokens {
  return {
    async get(userId, options) {
      let response: Awaited<ReturnType<TokenBrokerClient['getGoogleAccessToken']>>;
      try {
        response = await broker.getGoogleAccessToken({
          userId,
          forceRefresh: options?.forceRefresh ?? false,
        });
      } catch (error) {
        if (kindOfCallError(error) === 'unavailable')
          throw new ToolError(
            `Sheetgate could not get your Google access right now (temporarily unavailable). Nothing was changed; try again in ${UNAVAILABLE_RETRY_AFTER_SECONDS} seconds.`,
          );
        throw error;
      }
      return fromGetGoogleAccessTokenResponse(response);
    },
  };
}
