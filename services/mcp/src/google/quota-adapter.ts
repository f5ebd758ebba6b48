import type { ContractChecks } from '../errors/contract-violation.ts';
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
 *
 * A request made outside a person's context (`runForPerson`: every caller goes through
 * `callGoogle`, which sets it) could take no turn: a bug, reported to `contracts` — failing the
 * call outside production, logged and counted and sent without a turn in production.
 */
export function withQuotaTurns(
  gate: QuotaGate,
  inner: GoogleHttpAdapter,
  contracts: ContractChecks,
): GoogleHttpAdapter {
  return async (options, defaultAdapter) => {
    const bucket = quotaBucketOf(options.method ?? 'GET', options.url);
    // Nothing Sheetgate calls is outside the buckets; such a request would spend no Google quota.
    if (!bucket) return inner(options, defaultAdapter);
    const owner = googleRequestOwner();
    const userId = owner?.userId;
    if (!userId) {
      contracts.violated(
        'google_without_person',
        owner?.tool ?? 'none',
        `a Google request (${options.method ?? 'GET'}, ${bucket}) was made outside a person's context: it took no turn at Google's quota; make it through callGoogle`,
      );
      return inner(options, defaultAdapter);
    }
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
