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
  /**
   * Counts one request for each entry of `keys` (a key may repeat: each occurrence is a request)
   * and answers in the same order, as if `consume` had been called for each in turn. One store
   * operation per distinct key, all issued at once.
   */
  consumeMany(keys: readonly string[]): Promise<RateLimitDecision[]>;
  /**
   * Which of `keys` have spent their window already, without counting anything: each such key
   * with the whole seconds until its window resets (at least 1). One store read per distinct key,
   * all issued at once.
   */
  spent(keys: Iterable<string>): Promise<Map<string, number>>;
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
  /**
   * Adds `count` points for `key` in one store operation and returns the decision of each of those
   * requests in turn: with `total` points counted in the window after this call, the i-th of them
   * was request number `total - count + i + 1`, within the limit while that is at most `points`.
   */
  const secondsUntil = (msBeforeNext: number) => Math.max(1, Math.ceil(msBeforeNext / 1000));

  async function consumeCount(key: string, count: number): Promise<RateLimitDecision[]> {
    let total: number;
    let msBeforeNext: number;
    try {
      const result = await limiter.consume(storeKey(key), count);
      total = result.consumedPoints;
      msBeforeNext = result.msBeforeNext;
    } catch (refusal) {
      // Store errors never reach here as refusals: every store limiter has an in-memory
      // insurance limiter that answers while the store is down.
      if (!(refusal instanceof RateLimiterRes)) throw refusal;
      total = refusal.consumedPoints;
      msBeforeNext = refusal.msBeforeNext;
    }
    const retryAfterSeconds = secondsUntil(msBeforeNext);
    return Array.from({ length: count }, (_, index): RateLimitDecision => {
      const number = total - count + index + 1;
      if (number <= rule.points) return { allowed: true };
      return { allowed: false, retryAfterSeconds, firstRefusal: number === rule.points + 1 };
    });
  }

  return {
    name,
    rule,
    async consume(key) {
      return (await consumeCount(key, 1))[0]!;
    },
    async consumeMany(keys) {
      const counts = new Map<string, number>();
      for (const key of keys) counts.set(key, (counts.get(key) ?? 0) + 1);
      const perKey = new Map(
        await Promise.all(
          [...counts].map(async ([key, count]) => [key, await consumeCount(key, count)] as const),
        ),
      );
      const next = new Map<string, number>();
      return keys.map((key) => {
        const index = next.get(key) ?? 0;
        next.set(key, index + 1);
        return perKey.get(key)![index]!;
      });
    },
    async spent(keys) {
      const spentKeys = new Map<string, number>();
      await Promise.all(
        [...new Set(keys)].map(async (key) => {
          // Like consume, a store outage is answered by the insurance limiter, never thrown.
          const window = await limiter.get(storeKey(key));
          if (window && window.consumedPoints >= rule.points)
            spentKeys.set(key, secondsUntil(window.msBeforeNext));
        }),
      );
      return spentKeys;
    },
  };
}
