import {
  type BucketQuota,
  fairSharePollMs,
  GOOGLE_HOLD_WITHOUT_RETRY_AFTER_MS,
  type GoogleQuotas,
  MAX_PROJECT_WAIT_HINT_MS,
  mayLease,
  newcomersReserve,
  QUOTA_BUCKETS,
  QUOTA_WINDOW_MS,
  type QuotaBucket,
} from './quota-rules.ts';
import type { GoogleQuotaScheduler, QuotaTurn, SchedulerTimings } from './quota-scheduler.ts';

/** Grant times, oldest first: the requests of one minute. */
class MinuteLog {
  readonly times: number[] = [];
  prune(since: number): void {
    let expired = 0;
    while (expired < this.times.length && this.times[expired]! <= since) expired++;
    if (expired > 0) this.times.splice(0, expired);
  }
  msUntilRoom(now: number, windowMs: number): number {
    return Math.max(1, this.times[0]! + windowMs - now);
  }
}

interface BucketState {
  project: MinuteLog;
  people: Map<string, MinuteLog>;
  /** Who asked within the minute (granted or not) or is waiting, and until when they count. */
  active: Map<string, number>;
  /** People below their share waiting for the project's minute, until when. */
  waiting: Map<string, number>;
  projectHeldUntil: number;
  personHeldUntil: Map<string, number>;
}

/**
 * The scheduler in this process, for a single auth replica without Redis (the embedded stack). The
 * same rules as `redis-quota-scheduler.ts`'s script, step for step; the two pass one test suite.
 */
export function createMemoryQuotaScheduler(
  quotas: GoogleQuotas,
  options: SchedulerTimings & { now?: () => number } = {},
): GoogleQuotaScheduler {
  const now = options.now ?? Date.now;
  const windowMs = options.windowMs ?? QUOTA_WINDOW_MS;
  const maxProjectWaitHintMs = options.maxProjectWaitHintMs ?? MAX_PROJECT_WAIT_HINT_MS;
  const buckets = new Map<QuotaBucket, BucketState>(
    QUOTA_BUCKETS.map((bucket) => [
      bucket,
      {
        project: new MinuteLog(),
        people: new Map(),
        active: new Map(),
        waiting: new Map(),
        projectHeldUntil: 0,
        personHeldUntil: new Map(),
      },
    ]),
  );

  function forgetOld(state: BucketState, person: string, at: number): void {
    const since = at - windowMs;
    state.project.prune(since);
    state.people.get(person)?.prune(since);
    // Someone no longer active has no grant within the minute either.
    for (const [someone, until] of state.active) {
      if (until > at) continue;
      state.active.delete(someone);
      state.people.delete(someone);
    }
    for (const [someone, until] of state.waiting) if (until <= at) state.waiting.delete(someone);
  }

  function turn(
    state: BucketState,
    quota: BucketQuota,
    person: string,
    at: number,
    requested: number,
  ): QuotaTurn {
    forgetOld(state, person, at);
    const personHeldUntil = state.personHeldUntil.get(person) ?? 0;
    if (personHeldUntil !== 0 && personHeldUntil <= at) state.personHeldUntil.delete(person);
    const held = Math.max(state.projectHeldUntil, personHeldUntil) - at;
    if (held > 0) return { granted: false, retryAfterMs: held, limitedBy: 'google' };
    const own = state.people.get(person) ?? new MinuteLog();
    if (own.times.length >= quota.perUser)
      return { granted: false, retryAfterMs: own.msUntilRoom(at, windowMs), limitedBy: 'person' };
    state.active.set(person, Math.max(at + windowMs, state.active.get(person) ?? 0));
    const underShare = own.times.length < Math.ceil(quota.perProject / state.active.size);
    if (state.project.times.length >= quota.perProject) {
      const wait = state.project.msUntilRoom(at, windowMs);
      if (!underShare) return { granted: false, retryAfterMs: wait, limitedBy: 'project' };
      const hint = Math.min(wait, maxProjectWaitHintMs);
      const until = at + hint + maxProjectWaitHintMs;
      state.waiting.set(person, until);
      // A waiting person counts among those who share the minute for as long as they wait.
      state.active.set(person, Math.max(until, state.active.get(person)!));
      return { granted: false, retryAfterMs: hint, limitedBy: 'project' };
    }
    if (!underShare && state.waiting.size - (state.waiting.has(person) ? 1 : 0) > 0)
      return { granted: false, retryAfterMs: fairSharePollMs(quota, windowMs), limitedBy: 'fair_share' };
    if (
      state.project.times.length >= quota.perProject - newcomersReserve(quota) &&
      own.times.length >= Math.ceil(quota.perProject / (state.active.size + 1))
    )
      return {
        granted: false,
        retryAfterMs: state.project.msUntilRoom(at, windowMs),
        limitedBy: 'fair_share',
      };
    const turns = mayLease(
      quota,
      requested,
      own.times.length,
      state.project.times.length,
      state.waiting.size > 0,
    )
      ? requested
      : 1;
    for (let i = 0; i < turns; i++) {
      state.project.times.push(at);
      own.times.push(at);
    }
    state.people.set(person, own);
    state.waiting.delete(person);
    return { granted: true, turns };
  }

  return {
    async acquire(userId, bucket, requested = 1) {
      return turn(buckets.get(bucket)!, quotas[bucket], userId, now(), requested);
    },
    async giveBack(userId, bucket, count) {
      const state = buckets.get(bucket)!;
      const own = state.people.get(userId);
      if (!own) return;
      for (const time of own.times.splice(Math.max(0, own.times.length - count))) {
        const index = state.project.times.lastIndexOf(time);
        if (index !== -1) state.project.times.splice(index, 1);
      }
    },
    async exhausted(userId, bucket, perUser, retryAfterSeconds) {
      const state = buckets.get(bucket)!;
      const until =
        now() + (retryAfterSeconds ? retryAfterSeconds * 1000 : GOOGLE_HOLD_WITHOUT_RETRY_AFTER_MS);
      if (perUser) state.personHeldUntil.set(userId, Math.max(until, state.personHeldUntil.get(userId) ?? 0));
      else state.projectHeldUntil = Math.max(until, state.projectHeldUntil);
    },
    async people() {
      const at = now();
      const live = (entries: Map<string, number>) =>
        [...entries.values()].filter((until) => until > at).length;
      return Object.fromEntries(
        QUOTA_BUCKETS.map((bucket) => {
          const state = buckets.get(bucket)!;
          return [bucket, { active: live(state.active), waiting: live(state.waiting) }];
        }),
      ) as Record<QuotaBucket, { active: number; waiting: number }>;
    },
    async close() {},
  };
}
