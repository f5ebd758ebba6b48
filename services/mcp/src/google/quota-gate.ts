import {
  fromGoogleQuotaLimit,
  type GoogleQuotaBucketName,
  type GoogleQuotaClient,
  type GoogleQuotaLimitName,
  toGoogleQuotaBucket,
} from '@sheetgate/proto';
import type { Logger } from '@sheetgate/service-runtime';
import { ToolError } from '../tools/tool-definition.ts';
import { abortableSleep } from './abortable-sleep.ts';

export type QuotaTurn =
  | { granted: true }
  | { granted: false; retryAfterMs: number; limitedBy: GoogleQuotaLimitName };

/** Auth's GoogleQuotaService, seen from the MCP service. */
export interface GoogleQuotaAuthority {
  acquire(userId: string, bucket: GoogleQuotaBucketName): Promise<QuotaTurn>;
  exhausted(
    userId: string,
    bucket: GoogleQuotaBucketName,
    perUser: boolean,
    retryAfterSeconds: number | undefined,
  ): Promise<void>;
}

export function grpcGoogleQuota(client: GoogleQuotaClient): GoogleQuotaAuthority {
  return {
    async acquire(userId, bucket) {
      const answer = await client.acquireGoogleQuota({ userId, bucket: toGoogleQuotaBucket(bucket) });
      return answer.granted
        ? { granted: true }
        : {
            granted: false,
            retryAfterMs: Math.max(1, answer.retryAfterMs),
            limitedBy: fromGoogleQuotaLimit(answer.limitedBy),
          };
    },
    async exhausted(userId, bucket, perUser, retryAfterSeconds) {
      await client.reportGoogleQuotaExhausted({
        userId,
        bucket: toGoogleQuotaBucket(bucket),
        perUser,
        retryAfterSeconds: Math.min(Math.max(0, Math.ceil(retryAfterSeconds ?? 0)), 3_600),
      });
    },
  };
}

/** How a Google request got its turn: at once, after waiting, not at all, or without asking (auth unreachable). */
export type QuotaTurnOutcome = 'at_once' | 'after_wait' | 'gave_up' | 'unscheduled';

export interface QuotaGateOptions {
  authority: GoogleQuotaAuthority;
  /** The longest a Google request waits for its turn before the tool says when to try again. */
  maxWaitMs: number;
  logger?: Logger;
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  now?: () => number;
  /** Told how each request's turn went and how long it waited (the metrics). */
  onTurn?: (bucket: GoogleQuotaBucketName, outcome: QuotaTurnOutcome, waitedMs: number) => void;
  /** Told when a request starts (+1) and stops (-1) waiting: the queue's length. */
  onWaiting?: (bucket: GoogleQuotaBucketName, change: 1 | -1) => void;
}

const BUCKET_WORDS: Record<GoogleQuotaBucketName, string> = {
  sheets_read: 'Sheets reads',
  sheets_write: 'Sheets writes',
  drive: 'Drive requests',
};

/** While auth cannot be asked, one line per this interval says so. */
const UNSCHEDULED_LOG_INTERVAL_MS = 30_000;

/**
 * Waits for a Google request's turn at Google's per-minute quotas (docs/design.md §11.6): asks auth,
 * and while refused sleeps as long as auth says and asks again, up to `maxWaitMs`. Past that the
 * request is not sent and the tool answers when to try again. When auth cannot be asked (down,
 * Redis down) the request goes to Google unscheduled: Google stays the authority, and a tool call
 * already needs auth for the person's Google token.
 */
export function createQuotaGate(options: QuotaGateOptions) {
  const sleep = options.sleep ?? abortableSleep;
  const now = options.now ?? Date.now;
  let lastUnscheduledLog = -Infinity;

  function unscheduled(error: unknown) {
    if (now() - lastUnscheduledLog < UNSCHEDULED_LOG_INTERVAL_MS) return;
    lastUnscheduledLog = now();
    options.logger?.warn(
      { err: error },
      "Google requests are sent without a turn at Google's quota: auth could not be asked",
    );
  }

  return {
    /** `note` tells the client, once, that the request waits and about how long. */
    async waitForTurn(
      userId: string,
      bucket: GoogleQuotaBucketName,
      signal: AbortSignal,
      note?: (message: string) => void,
    ): Promise<void> {
      const started = now();
      let waiting = false;
      try {
        for (;;) {
          let turn: QuotaTurn;
          try {
            turn = await options.authority.acquire(userId, bucket);
          } catch (error) {
            if (signal.aborted) throw new ToolError('the request was cancelled');
            unscheduled(error);
            options.onTurn?.(bucket, 'unscheduled', now() - started);
            return;
          }
          const waited = now() - started;
          if (turn.granted) {
            options.onTurn?.(bucket, waited === 0 && !waiting ? 'at_once' : 'after_wait', waited);
            return;
          }
          if (waited + turn.retryAfterMs > options.maxWaitMs) {
            options.onTurn?.(bucket, 'gave_up', waited);
            throw quotaSpent(bucket, turn, waited);
          }
          if (!waiting) {
            waiting = true;
            options.onWaiting?.(bucket, 1);
            note?.(
              `Waiting for a turn at Google's per-minute quota of ${BUCKET_WORDS[bucket]} (up to ${Math.ceil((options.maxWaitMs - waited) / 1000)} s)`,
            );
          }
          await sleep(turn.retryAfterMs, signal);
        }
      } finally {
        if (waiting) options.onWaiting?.(bucket, -1);
      }
    },

    /** Google refused a request for quota: auth holds the bucket it named (nobody waits on the answer). */
    googleRefused(
      userId: string,
      bucket: GoogleQuotaBucketName,
      perUser: boolean,
      retryAfterSeconds: number | undefined,
    ): void {
      options.authority.exhausted(userId, bucket, perUser, retryAfterSeconds).catch(unscheduled);
    },
  };
}

export type QuotaGate = ReturnType<typeof createQuotaGate>;

function quotaSpent(
  bucket: GoogleQuotaBucketName,
  turn: { retryAfterMs: number; limitedBy: GoogleQuotaLimitName },
  waitedMs: number,
): ToolError {
  const words = BUCKET_WORDS[bucket];
  const retry = `Try again in ${Math.max(1, Math.ceil(turn.retryAfterMs / 1000))} s.`;
  const waited = waitedMs >= 1_000 ? ` Sheetgate waited ${Math.round(waitedMs / 1000)} s for a turn.` : '';
  switch (turn.limitedBy) {
    case 'person':
      return new ToolError(
        `Google's per-minute quota of ${words} for your account is used up.${waited} ${retry}`,
      );
    case 'google':
      return new ToolError(`Google asked Sheetgate to slow down its ${words}.${waited} ${retry}`);
    default:
      return new ToolError(
        `Google's per-minute quota of ${words} that Sheetgate shares among everyone it serves is in use.${waited} ${retry}`,
      );
  }
}
