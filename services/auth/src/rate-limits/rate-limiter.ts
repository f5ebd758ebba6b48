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

/** What a lease of a key's window gives (`RateLimiter.lease`). */
export interface RateLimitLease {
  /** Requests granted, 0..requested: what was left of the window, at most what was asked. */
  granted: number;
  /** Whole seconds until the window resets (at least 1): the `Retry-After` of a short grant. */
  retryAfterSeconds: number;
  /** Milliseconds until the window the grant was counted in ends. */
  validForMs: number;
  /** True when the window's first refused request falls in this lease (audited once per window). */
  firstRefusal: boolean;
}

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
  /**
   * Takes up to `requested` requests of `key`'s window at once, for a caller that spends them
   * itself (an MCP replica's lease): what is left of the window, at most `requested`, in one store
   * operation. The whole request is counted even when less is granted; the window is spent then
   * anyway, so only its end matters.
   */
  lease(key: string, requested: number): Promise<RateLimitLease>;
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

  /** Adds `count` points for `key`: the window's total after this call, and the time to its end. */
  async function add(key: string, count: number): Promise<{ total: number; msBeforeNext: number }> {
    try {
      const result = await limiter.consume(storeKey(key), count);
      return { total: result.consumedPoints, msBeforeNext: result.msBeforeNext };
    } catch (refusal) {
      // Store errors never reach here as refusals: every store limiter has an in-memory
      // insurance limiter that answers while the store is down.
      if (!(refusal instanceof RateLimiterRes)) throw refusal;
      return { total: refusal.consumedPoints, msBeforeNext: refusal.msBeforeNext };
    }
  }

  async function consumeCount(key: string, count: number): Promise<RateLimitDecision[]> {
    const { total, msBeforeNext } = await add(key, count);
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
    async lease(key, requested) {
      const { total, msBeforeNext } = await add(key, requested);
      const before = total - requested;
      const granted = Math.max(0, Math.min(requested, rule.points - before));
      return {
        granted,
        retryAfterSeconds: secondsUntil(msBeforeNext),
        validForMs: Math.max(0, msBeforeNext),
        firstRefusal: before <= rule.points && total > rule.points,
      };
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
