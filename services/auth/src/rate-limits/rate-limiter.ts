import { createHash } from 'node:crypto';
import { type RateLimiterAbstract, RateLimiterRes } from 'rate-limiter-flexible';
import type { RateLimitName, RateLimitRule } from './rate-limit-rules.ts';

export type RateLimitDecision =
  | { allowed: true }
  | {
      allowed: false;
      /** Whole seconds until the window resets; at least 1 (the `Retry-After` value). */
      retryAfterSeconds: number;
      /** True for the first refusal of a window: callers audit that one, not every flooded request. */
      firstRefusal: boolean;
    };

export interface RateLimiter {
  readonly name: RateLimitName;
  readonly rule: RateLimitRule;
  /** Counts one request for `key` and says whether it is within the limit. */
  consume(key: string): Promise<RateLimitDecision>;
}

// Keys are IP addresses, ids and account names; anything longer (a hostile email) is hashed so
// store keys stay short whatever the caller passes.
const MAX_PLAIN_KEY_LENGTH = 128;
const storeKey = (key: string) =>
  key.length <= MAX_PLAIN_KEY_LENGTH ? key : `sha256:${createHash('sha256').update(key).digest('hex')}`;

/** Wraps a rate-limiter-flexible limiter, which rejects with a RateLimiterRes when over the limit. */
export function wrapLimiter(
  name: RateLimitName,
  rule: RateLimitRule,
  limiter: RateLimiterAbstract,
): RateLimiter {
  return {
    name,
    rule,
    async consume(key) {
      try {
        await limiter.consume(storeKey(key), 1);
        return { allowed: true };
      } catch (refusal) {
        // Store errors never reach here as refusals: every store limiter has an in-memory
        // insurance limiter that answers while the store is down.
        if (!(refusal instanceof RateLimiterRes)) throw refusal;
        return {
          allowed: false,
          retryAfterSeconds: Math.max(1, Math.ceil(refusal.msBeforeNext / 1000)),
          firstRefusal: refusal.consumedPoints === rule.points + 1,
        };
      }
    },
  };
}
