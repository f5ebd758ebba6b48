import { ToolError } from '../tools/tool-definition.ts';
import type { GoogleAccessTokens } from './google-access.ts';
import { authenticationRequired, describeGoogleFailure, isRetryable, toToolError } from './google-errors.ts';
import { createUserConcurrency } from './user-concurrency.ts';

export interface GoogleCallOptions {
  tokens: GoogleAccessTokens;
  /** The emulator's URL; googleapis builds media-upload URLs from a per-call rootUrl only. */
  rootUrl?: string;
  dashboardUrl: string;
  maxAttempts?: number;
  /** Longest pause honoured from a Retry-After header, in seconds. */
  maxRetryAfterSeconds?: number;
  perUserConcurrency?: number;
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
}

/**
 * Runs one Google API call for a user: takes a per-user slot, gets the user's access token from
 * the broker, and retries 429 and 5xx with jittered exponential backoff that honours Retry-After,
 * bounded in attempts and wait. gaxios retries without reading Retry-After and cannot tell us
 * *why* it gave up, so retrying is ours; every other outcome becomes a clear ToolError.
 */
export function createGoogleCaller(options: GoogleCallOptions) {
  const maxAttempts = options.maxAttempts ?? 4;
  const maxRetryAfter = options.maxRetryAfterSeconds ?? 10;
  const withUserSlot = createUserConcurrency(options.perUserConcurrency ?? 4);
  const sleep = options.sleep ?? abortableSleep;

  return function callGoogle<T>(
    userId: string,
    signal: AbortSignal,
    call: (request: GoogleRequestOptions) => Promise<T>,
  ): Promise<T> {
    return withUserSlot(userId, async () => {
      let forceRefresh = false;
      for (let attempt = 1; ; attempt++) {
        const token = await options.tokens.get(userId, { forceRefresh });
        if (!token.ok) throw authenticationRequired(options.dashboardUrl);
        try {
          return await call({
            headers: { Authorization: `Bearer ${token.accessToken}` },
            signal,
            // gaxios would retry on its own without reading Retry-After; the loop here does it.
            retry: false,
            ...(options.rootUrl ? { rootUrl: options.rootUrl } : {}),
          });
        } catch (error) {
          if (signal.aborted) throw new ToolError('the request was cancelled');
          const failure = describeGoogleFailure(error);
          if (!failure) throw error;
          if (failure.status === 401 && !forceRefresh) {
            // The cached token was refused (revoked or expired early): one retry with a fresh one.
            forceRefresh = true;
            continue;
          }
          if (!isRetryable(failure) || attempt >= maxAttempts)
            throw toToolError(failure, options.dashboardUrl);
          const backoff = 200 * 2 ** (attempt - 1) * (0.5 + Math.random());
          const pause =
            failure.retryAfterSeconds !== undefined
              ? Math.min(failure.retryAfterSeconds, maxRetryAfter) * 1000
              : backoff;
          if (failure.retryAfterSeconds !== undefined && failure.retryAfterSeconds > maxRetryAfter) {
            throw toToolError(failure, options.dashboardUrl);
          }
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

function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        reject(new ToolError('the request was cancelled'));
      },
      { once: true },
    );
  });
}
