import {
  kindOfCallError,
  MAX_TOKENS_PER_REVOCATION_CHECK,
  type TokenBrokerClient,
  type TokenFacts,
  toAccessTokenFacts,
} from '@sheetgate/proto';
import type { RevocationCheck } from './access-token-verifier.ts';
import { JwksUnavailableError } from './jwks-cache.ts';
import type { RevocationWatch } from './revocation-watch.ts';

const RETRY_AFTER_SECONDS = 1;

/**
 * Neither the revocation stream nor auth can say whether a token is revoked. A JwksUnavailableError,
 * so the request authenticator answers it as it answers a missing key set: 503
 * `temporarily_unavailable` with Retry-After — the token may well be good.
 */
export class RevocationsUnknownError extends JwksUnavailableError {
  constructor(retryAfterSeconds: number) {
    super(retryAfterSeconds);
    this.message = 'revocations cannot be checked right now';
    this.name = 'RevocationsUnknownError';
  }
}

interface Waiting {
  token: TokenFacts;
  resolve: (revoked: boolean) => void;
  reject: (error: unknown) => void;
}

/**
 * What the access-token verifier asks of every token (docs/design.md §4.6): whether a revocation
 * refuses it. While the revocation stream vouches for this replica, from what the stream said, at
 * once; while it cannot (down, silent, not open yet), auth is asked (`CheckRevocations`, judged
 * against what it recorded), so a replica whose stream lags keeps serving, and a revocation made
 * meanwhile is refused at the next request all the same. Tokens of requests that arrive in the same
 * event-loop turn travel in one call, as API keys do (broker-clients.ts). Only when auth cannot
 * answer either does the check reject with RevocationsUnknownError (503); a wrong service
 * credential is a deployment mistake and fails loudly instead.
 */
export function revocationCheck(deps: {
  stream: Pick<RevocationWatch, 'knownRevoked' | 'isCurrent'>;
  broker: Pick<TokenBrokerClient, 'checkRevocations'>;
}): RevocationCheck {
  let waiting: Waiting[] = [];

  function send(batch: Waiting[]) {
    deps.broker.checkRevocations({ tokens: batch.map((entry) => toAccessTokenFacts(entry.token)) }).then(
      ({ revoked }) => {
        // One answer per token, in order, is the contract; anything else is not trusted.
        const complete = revoked.length === batch.length;
        batch.forEach((entry, index) => {
          if (complete) entry.resolve(revoked[index]!);
          else entry.reject(new RevocationsUnknownError(RETRY_AFTER_SECONDS));
        });
      },
      (error: unknown) => {
        const misconfigured = kindOfCallError(error) === 'unauthenticated';
        for (const entry of batch)
          entry.reject(misconfigured ? error : new RevocationsUnknownError(RETRY_AFTER_SECONDS));
      },
    );
  }

  function flush() {
    const all = waiting;
    waiting = [];
    for (let start = 0; start < all.length; start += MAX_TOKENS_PER_REVOCATION_CHECK)
      send(all.slice(start, start + MAX_TOKENS_PER_REVOCATION_CHECK));
  }

  return {
    refuses(token) {
      // Synchronous while the stream vouches: every bearer request asks, and nearly all find it so.
      if (deps.stream.knownRevoked(token)) return true;
      if (deps.stream.isCurrent()) return false;
      return new Promise((resolve, reject) => {
        if (waiting.length === 0) setImmediate(flush);
        waiting.push({ token, resolve, reject });
      });
    },
  };
}
