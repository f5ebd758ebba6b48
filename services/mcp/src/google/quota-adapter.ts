import { classifyGoogleFailure, describeGoogleFailure } from './google-errors.ts';
import type { GoogleHttpAdapter } from './http-adapter.ts';
import { quotaBucketOf } from './quota-buckets.ts';
import type { QuotaGate } from './quota-gate.ts';
import { googleRequestOwner } from './tool-attribution.ts';

const NEVER = new AbortController().signal;

/**
 * Every Google request waits for its person's turn at Google's per-minute quota before it is sent
 * (`inner` — the metrics — times only Google's part), and a quota refusal from Google is reported
 * so auth holds the bucket Google named (for its Retry-After; a short hold without one): the
 * person's when Google says "per user" (`userRateLimitExceeded`, or a message naming a per-user
 * limit), else the project's.
 */
export function withQuotaTurns(gate: QuotaGate, inner: GoogleHttpAdapter): GoogleHttpAdapter {
  return async (options, defaultAdapter) => {
    const owner = googleRequestOwner();
    const userId = owner?.userId;
    const bucket = quotaBucketOf(options.method ?? 'GET', options.url);
    if (!userId || !bucket) return inner(options, defaultAdapter);
    await gate.waitForTurn(userId, bucket, options.signal ?? NEVER, owner.note);
    const response = await inner(options, defaultAdapter);
    if (response.status === 429 || response.status === 403) {
      const failure = describeGoogleFailure({ response });
      // `Retry-After: 0` is Google saying "again now": nothing to hold.
      if (failure && classifyGoogleFailure(failure) === 'quota' && failure.retryAfterSeconds !== 0) {
        const perUser = failure.reason === 'userRateLimitExceeded' || /per user/i.test(failure.message);
        gate.googleRefused(userId, bucket, perUser, failure.retryAfterSeconds);
      }
    }
    return response;
  };
}
