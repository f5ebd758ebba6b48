import type { GoogleQuotaLimitName } from '@sheetgate/proto';
import type { QuotaBucket } from './quota-rules.ts';

/** Which limit held a request back (see proto/sheetgate/v1/google_quota.proto). */
export type QuotaLimitName = GoogleQuotaLimitName;

export type QuotaTurn =
  | {
      granted: true;
      /** Turns granted and counted: 1, or a lease of `requested` (`mayLease`). */
      turns: number;
    }
  | {
      granted: false;
      /** Milliseconds until asking again may succeed (at least 1). */
      retryAfterMs: number;
      limitedBy: QuotaLimitName;
    };

/**
 * Turns at Google's per-minute quotas, shared by every MCP replica (docs/design.md §11.6, "Google's
 * quota"). Each bucket keeps, for the project and for each person, the requests granted within
 * the last minute (a sliding log: Google counts a rolling minute, and a fixed-window counter
 * would let twice the quota through across a window's edge). A request is granted when:
 *   - Google has not answered 429 for the bucket within its Retry-After;
 *   - the person's own minute has room;
 *   - the project's minute has room, and either the person is below their fair share of it (the
 *     project's quota divided among the people who asked within the minute, or wait) or nobody
 *     below their share is waiting;
 *   - the last tenth of the project's minute (the newcomers' reserve) goes only to people below
 *     the share they would have if one more person came.
 * So one person's flood takes only what others leave: someone who arrives after it took the
 * minute finds the reserve at once, and a person below their share waits at most for the next
 * request to leave the project's minute, never behind the flood. A person below their share who
 * is refused because the project's minute is full is recorded as waiting (for as long as they
 * keep asking), which holds back everyone past their share. Nothing is counted
 * for a refused request.
 */
export interface GoogleQuotaScheduler {
  acquire(userId: string, bucket: QuotaBucket, requested?: number): Promise<QuotaTurn>;
  /** Removes up to `count` of the person's newest grants: turns of a lease nobody spent. */
  giveBack(userId: string, bucket: QuotaBucket, count: number): Promise<void>;
  /**
   * Google answered 429 (or a rate-limit 403) for `bucket`: the project's minute, or the person's
   * when `perUser`. Nobody is granted that bucket until Google's Retry-After has passed (a short
   * hold when it sent none).
   */
  exhausted(userId: string, bucket: QuotaBucket, perUser: boolean, retryAfterSeconds?: number): Promise<void>;
  /** How many people share each bucket's minute now (asked within it, or wait) and how many wait below their share. */
  people(): Promise<Record<QuotaBucket, { active: number; waiting: number }>>;
  close(): Promise<void>;
}

/** The scheduler's times, shortened by tests only (a minute is long to wait for in a test). */
export interface SchedulerTimings {
  /** How long a grant counts (QUOTA_WINDOW_MS). */
  windowMs?: number;
  /** The longest wait hint for the project's minute (MAX_PROJECT_WAIT_HINT_MS). */
  maxProjectWaitHintMs?: number;
}
