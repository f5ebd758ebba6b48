import type { Middleware } from 'koa';
import { googleErrors } from '../google-error.ts';
import type { GrantStore } from '../oauth/grant-store.ts';
import { apiMethodOf } from './api-methods.ts';

/**
 * The Sheets API's per-minute quotas (Google documents 300 read and 300 write requests per minute
 * per project, 60 of each per minute per user per project). Unset is unlimited, as before quotas.
 */
export interface QuotaLimits {
  readsPerMinutePerProject?: number | undefined;
  writesPerMinutePerProject?: number | undefined;
  readsPerMinutePerUser?: number | undefined;
  writesPerMinutePerUser?: number | undefined;
}

export const QUOTA_NAMES = [
  'readsPerMinutePerProject',
  'writesPerMinutePerProject',
  'readsPerMinutePerUser',
  'writesPerMinutePerUser',
] as const satisfies ReadonlyArray<keyof QuotaLimits>;

const WINDOW_MS = 60_000;

/**
 * The requests of the last minute in one bucket, oldest first: a rolling minute, so a burst at a
 * minute's end cannot be followed by a second one at the next minute's start.
 */
class RollingMinute {
  #times: number[] = [];

  /** How many requests the last minute holds, forgetting older ones. */
  count(now: number): number {
    const fresh = this.#times.findIndex((time) => time > now - WINDOW_MS);
    this.#times = fresh < 0 ? [] : this.#times.slice(fresh);
    return this.#times.length;
  }

  record(now: number): void {
    this.#times.push(now);
  }

  /** Seconds until the oldest request leaves the minute (at least 1). */
  secondsUntilRoom(now: number): number {
    const oldest = this.#times[0] ?? now;
    return Math.max(1, Math.ceil((oldest + WINDOW_MS - now) / 1000));
  }
}

/**
 * Enforces the Sheets quotas set through `POST /__emulator/quotas` on Sheets API calls, as Google
 * does: one project (every client of this emulator), each person within it, reads (GET and the
 * `…ByDataFilter` reads) and writes counted apart. A call over a quota is answered 429
 * RESOURCE_EXHAUSTED with Google's body (`rateLimitExceeded` for the project's minute,
 * `userRateLimitExceeded` for the person's) and a Retry-After, and is not counted. A call without
 * a valid token is left to the API's own 401. Drive has quotas of its own and is not limited here.
 */
export class QuotaEnforcer {
  #limits: QuotaLimits = {};
  #minutes = new Map<string, RollingMinute>();
  readonly #grants: Pick<GrantStore, 'findAccessToken'>;
  readonly #now: () => number;

  constructor(grants: Pick<GrantStore, 'findAccessToken'>, now: () => number = Date.now) {
    this.#grants = grants;
    this.#now = now;
  }

  /** Replaces every quota (unset ones become unlimited) and starts every minute afresh. */
  set(limits: QuotaLimits): void {
    this.#limits = Object.fromEntries(
      QUOTA_NAMES.filter((name) => limits[name] !== undefined).map((name) => [name, limits[name]]),
    );
    this.#minutes.clear();
  }

  get(): QuotaLimits {
    return { ...this.#limits };
  }

  middleware(): Middleware {
    return async (ctx, next) => {
      if (!ctx.path.startsWith('/v4/spreadsheets') || Object.keys(this.#limits).length === 0) return next();
      const header = ctx.get('authorization');
      const token = /^bearer\s/i.test(header) ? header.slice(7).trim() : ctx.query.access_token?.toString();
      const email = token ? this.#grants.findAccessToken(token)?.email : undefined;
      if (!email) return next();
      const read = ctx.method === 'GET' || /ByDataFilter$/.test(apiMethodOf(ctx.method, ctx.path) ?? '');
      const kind = read ? 'reads' : 'writes';
      const now = this.#now();
      const buckets = [
        {
          reason: 'userRateLimitExceeded' as const,
          key: `user:${email}:${kind}`,
          limit: this.#limits[`${kind}PerMinutePerUser`],
        },
        {
          reason: 'rateLimitExceeded' as const,
          key: `project:${kind}`,
          limit: this.#limits[`${kind}PerMinutePerProject`],
        },
      ].map((bucket) => ({ ...bucket, minute: this.#minute(bucket.key) }));
      const full = buckets.find(
        (bucket) => bucket.limit !== undefined && bucket.minute.count(now) >= bucket.limit,
      );
      if (full) {
        throw googleErrors.quotaExceeded({
          code: 429,
          reason: full.reason,
          api: 'sheets',
          read,
          retryAfterSeconds: full.minute.secondsUntilRoom(now),
        });
      }
      for (const bucket of buckets) bucket.minute.record(now);
      return next();
    };
  }

  #minute(key: string): RollingMinute {
    let minute = this.#minutes.get(key);
    if (!minute) {
      minute = new RollingMinute();
      this.#minutes.set(key, minute);
    }
    return minute;
  }
}
