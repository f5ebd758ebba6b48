import { violationIn } from '../errors/contract-violation.ts';
import { ToolError } from '../errors/tool-error.ts';
import { abortableSleep } from './abortable-sleep.ts';
import type { GoogleAccessTokens } from './google-access.ts';
import {
  authenticationRequired,
  classifyGoogleFailure,
  describeGoogleFailure,
  fileNotPicked,
  type GoogleFailureKind,
  isFileNotPicked,
  isRetryable,
  toToolError,
} from './google-errors.ts';
import { runForPerson } from './tool-attribution.ts';
import { createUserConcurrency } from './user-concurrency.ts';

export interface GoogleCallOptions {
  tokens: GoogleAccessTokens;
  /** The emulator's URL; googleapis builds media-upload URLs from a per-call rootUrl only. */
  rootUrl?: string;
  dashboardUrl: string;
  maxAttempts?: number;
  /** Longest pause honoured from a Retry-After header, in seconds. */
  maxRetryAfterSeconds?: number;
  /** Google calls one user may run at once on this replica (4; see user-concurrency.ts for the rest). */
  perUserConcurrency?: number;
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  /** Told of each retry and why (the metrics count them). */
  onRetry?: (kind: GoogleFailureKind) => void;
}

/**
 * Runs one Google API call for a user: takes a per-user slot, gets the user's access token from
 * the broker, and retries quota errors (429, and Drive's 403 rate-limit reasons) and 5xx with
 * jittered exponential backoff that honours Retry-After, bounded in attempts and wait. gaxios retries without reading Retry-After and cannot tell us
 * *why* it gave up, so retrying is ours; every other outcome becomes a clear ToolError.
 */
export function createGoogleCaller(options: GoogleCallOptions) {
  const maxAttempts = options.maxAttempts ?? 4;
  const maxRetryAfter = options.maxRetryAfterSeconds ?? 10;
  const withUserSlot = createUserConcurrency({ limit: options.perUserConcurrency ?? 4 });
  const sleep = options.sleep ?? abortableSleep;

  return function callGoogle<T>(
    userId: string,
    signal: AbortSignal,
    call: (request: GoogleRequestOptions) => Promise<T>,
  ): Promise<T> {
    return withUserSlot(userId, signal, async () => {
      let forceRefresh = false;
      for (let attempt = 1; ; attempt++) {
        const token = await options.tokens.get(userId, { forceRefresh });
        if (!token.ok) throw authenticationRequired(options.dashboardUrl, token.reason === 'NOT_CONNECTED');
        try {
          // The person travels with the call to the HTTP adapter, which takes their quota turn.
          return await runForPerson(userId, () =>
            call({
              headers: { Authorization: `Bearer ${token.accessToken}` },
              signal,
              // gaxios would retry on its own without reading Retry-After; the loop here does it.
              retry: false,
              ...(options.rootUrl ? { rootUrl: options.rootUrl } : {}),
            }),
          );
        } catch (error) {
          if (signal.aborted) throw new ToolError('the request was cancelled');
          // The HTTP adapter's own refusal (no turn at Google's quota in time) or a bug it found,
          // which gaxios wraps: neither is Google's answer to retry.
          if (error instanceof Error && error.cause instanceof ToolError) throw error.cause;
          const violation = violationIn(error);
          if (violation) throw violation;
          const failure = describeGoogleFailure(error);
          if (!failure) throw error;
          if (classifyGoogleFailure(failure) === 'unauthenticated' && !forceRefresh) {
            // The cached token was refused (revoked or expired early): one retry with a fresh one.
            forceRefresh = true;
            options.onRetry?.('unauthenticated');
            continue;
          }
          if (isFileNotPicked(failure, token.scopes)) throw fileNotPicked(options.dashboardUrl);
          if (!isRetryable(failure) || attempt >= maxAttempts)
            throw toToolError(failure, options.dashboardUrl);
          // A wait longer than a tool call should take is reported, with the wait, to the model.
          if (failure.retryAfterSeconds !== undefined && failure.retryAfterSeconds > maxRetryAfter) {
            throw toToolError(failure, options.dashboardUrl);
          }
          const pause =
            failure.retryAfterSeconds !== undefined
              ? failure.retryAfterSeconds * 1000
              : 200 * 2 ** (attempt - 1) * (0.5 + Math.random());
          options.onRetry?.(classifyGoogleFailure(failure));
          await sleep(pause, signal);
        }
      }
    });
  };
}

export type CallGoogle = ReturnType<typeof createGoogleCaller>;

/** Per-call options handed to a googleapis method (its second argument). */
export interface GoogleRequestOptions {
  headers: { Authorization: string };
  signal: AbortSignal;
  retry: false;
  rootUrl?: string;
}
