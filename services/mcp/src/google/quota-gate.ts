import {
  fromGoogleQuotaLimit,
  type GoogleQuotaBucketName,
  type GoogleQuotaClient,
  type GoogleQuotaLimitName,
  toGoogleQuotaBucket,
} from '@sheetgate/proto';
import type { Logger } from '@sheetgate/service-runtime';
import { ToolError } from '../errors/tool-error.ts';
import { abortableSleep } from './abortable-sleep.ts';

export type QuotaTurn =
  | {
      granted: true;
      /** Turns granted: this request's, and any more a lease for the person's next ones. */
      turns: number;
      /** How long the lease's other turns may be spent. */
      validForMs: number;
    }
  | { granted: false; retryAfterMs: number; limitedBy: GoogleQuotaLimitName };

/** Auth's GoogleQuotaService, seen from the MCP service. */
export interface GoogleQuotaAuthority {
  acquire(userId: string, bucket: GoogleQuotaBucketName, requested: number): Promise<QuotaTurn>;
  /** Gives back turns of a lease nobody spent in time. */
  giveBack(userId: string, bucket: GoogleQuotaBucketName, count: number): Promise<void>;
  exhausted(
    userId: string,
    bucket: GoogleQuotaBucketName,
    perUser: boolean,
    retryAfterSeconds: number | undefined,
  ): Promise<void>;
}

export function grpcGoogleQuota(client: GoogleQuotaClient): GoogleQuotaAuthority {
  return {
    async acquire(userId, bucket, requested) {
      const answer = await client.acquireGoogleQuota({
        userId,
        bucket: toGoogleQuotaBucket(bucket),
        requested,
      });
      return answer.granted
        ? { granted: true, turns: Math.max(1, answer.turns), validForMs: answer.validForMs }
        : {
            granted: false,
            retryAfterMs: Math.max(1, answer.retryAfterMs),
            limitedBy: fromGoogleQuotaLimit(answer.limitedBy),
          };
    },
    async giveBack(userId, bucket, count) {
      await client.returnGoogleQuota({ userId, bucket: toGoogleQuotaBucket(bucket), count });
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

/**
 * Turns asked for at once: auth grants them only while the person and the project use under half
 * their minute (else one), so a burst of one person's requests on this replica asks auth about
 * once in this many, not for each — the round trip is most of what a turn costs a request.
 */
const LEASE_TURNS = 5;

interface Lease {
  left: number;
  until: number;
  timer: ReturnType<typeof setTimeout>;
}

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
  const leases = new Map<string, Lease>();

  /** Gives back what is left of a lease (its time is up, or it is replaced). */
  function endLease(key: string, userId: string, bucket: GoogleQuotaBucketName): void {
    const lease = leases.get(key);
    if (!lease) return;
    leases.delete(key);
    clearTimeout(lease.timer);
    if (lease.left > 0) options.authority.giveBack(userId, bucket, lease.left).catch(unscheduled);
  }

  /** A turn from this replica's lease for the person, if one is left and still good. */
  function fromLease(key: string, userId: string, bucket: GoogleQuotaBucketName): boolean {
    const lease = leases.get(key);
    if (!lease) return false;
    if (lease.left > 0 && now() < lease.until) {
      lease.left--;
      if (lease.left === 0) endLease(key, userId, bucket);
      return true;
    }
    endLease(key, userId, bucket);
    return false;
  }

  function keepLease(
    key: string,
    userId: string,
    bucket: GoogleQuotaBucketName,
    turns: number,
    validForMs: number,
  ) {
    endLease(key, userId, bucket);
    const timer = setTimeout(() => endLease(key, userId, bucket), validForMs);
    timer.unref();
    leases.set(key, { left: turns, until: now() + validForMs, timer });
  }

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
      const key = `${userId}\n${bucket}`;
      if (fromLease(key, userId, bucket)) {
        options.onTurn?.(bucket, 'at_once', 0);
        return;
      }
      const started = now();
      let waiting = false;
      try {
        for (;;) {
          let turn: QuotaTurn;
          try {
            turn = await options.authority.acquire(userId, bucket, LEASE_TURNS);
          } catch (error) {
            if (signal.aborted) throw new ToolError('the request was cancelled');
            unscheduled(error);
            options.onTurn?.(bucket, 'unscheduled', now() - started);
            return;
          }
          const waited = now() - started;
          if (turn.granted) {
            if (turn.turns > 1) keepLease(key, userId, bucket, turn.turns - 1, turn.validForMs);
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

    /**
     * Google refused a request for quota: this replica's leases of the bucket Google named end, and
     * auth holds it (nobody waits on the answer).
     */
    googleRefused(
      userId: string,
      bucket: GoogleQuotaBucketName,
      perUser: boolean,
      retryAfterSeconds: number | undefined,
    ): void {
      // Turns this replica holds for that bucket would go to Google into the same refusal.
      for (const key of [...leases.keys()]) {
        const [holder, held] = key.split('\n') as [string, GoogleQuotaBucketName];
        if (held === bucket && (!perUser || holder === userId)) endLease(key, holder, held);
      }
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
