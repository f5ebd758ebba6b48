import type { Middleware } from 'koa';
import { type GoogleApiError, googleErrors, type QuotaReason } from '../google-error.ts';
import { apiMethodOf, isApiPath } from './api-methods.ts';

/**
 * The `reason`s a fault may answer with, per status; the first is the default. Quota reasons come
 * as Drive sends them (403, or 429) and as Sheets sends them (429); see the README's table.
 */
export const FAULT_REASONS = {
  401: ['authError'],
  403: [
    'forbidden',
    'insufficientPermissions',
    'rateLimitExceeded',
    'userRateLimitExceeded',
    'dailyLimitExceeded',
  ],
  429: ['rateLimitExceeded', 'userRateLimitExceeded'],
  500: ['backendError', 'internalError'],
  503: ['backendError'],
} as const;

export type FaultStatus = keyof typeof FAULT_REASONS;
export type FaultReason = (typeof FAULT_REASONS)[FaultStatus][number];
export const FAULT_STATUSES = Object.keys(FAULT_REASONS).map(Number) as FaultStatus[];

export interface FaultSpec {
  /** A method id or id prefix (`sheets.spreadsheets.values.get`, `drive.files`) or a path regex. */
  match: string;
  status?: FaultStatus | undefined;
  /** One of FAULT_REASONS[status]; the status's default when absent. */
  reason?: FaultReason | undefined;
  retryAfterSeconds?: number | undefined;
  latencyMs?: number | undefined;
  /** How many matching calls the fault answers; 1 unless given. */
  count?: number | undefined;
  /**
   * The call is carried out first, then answered with the fault: a change Google made whose answer
   * was lost (a 5xx after the commit, a dropped connection), which a client cannot tell from one
   * never made.
   */
  afterCall?: boolean | undefined;
}

interface Fault {
  spec: FaultSpec;
  matches: (method: string, path: string) => boolean;
  remaining: number;
}

const METHOD_ID = /^(sheets|drive)(\.[A-Za-z]+)*$/;

/** Whether `match` is usable: a method id (prefix) or a valid regular expression. */
export function validFaultMatch(match: string): boolean {
  if (METHOD_ID.test(match)) return true;
  try {
    new RegExp(match);
    return true;
  } catch {
    return false;
  }
}

/** Faults injected through the admin API, answered before the API's own handlers run. */
export class FaultInjector {
  #faults: Fault[] = [];

  add(spec: FaultSpec): void {
    const matches = METHOD_ID.test(spec.match)
      ? (method: string, path: string) => {
          const id = apiMethodOf(method, path);
          return id !== undefined && (id === spec.match || id.startsWith(`${spec.match}.`));
        }
      : (() => {
          const pattern = new RegExp(spec.match);
          return (_method: string, path: string) => pattern.test(path);
        })();
    this.#faults.push({ spec, matches, remaining: spec.count ?? 1 });
  }

  clear(): void {
    this.#faults = [];
  }

  list(): Array<FaultSpec & { remaining: number }> {
    return this.#faults.map((fault) => ({ ...fault.spec, remaining: fault.remaining }));
  }

  middleware(): Middleware {
    return async (ctx, next) => {
      if (!isApiPath(ctx.path)) return next();
      const fault = this.#faults.find((each) => each.remaining > 0 && each.matches(ctx.method, ctx.path));
      if (!fault) return next();
      fault.remaining -= 1;
      this.#faults = this.#faults.filter((each) => each.remaining > 0);
      if (fault.spec.latencyMs) await new Promise((resolve) => setTimeout(resolve, fault.spec.latencyMs));
      if (!fault.spec.status) return next();
      if (fault.spec.afterCall) await next();
      throw faultError(fault.spec, fault.spec.status, ctx.method, ctx.path);
    };
  }
}

function faultError(spec: FaultSpec, status: FaultStatus, method: string, path: string): GoogleApiError {
  const reason = spec.reason ?? FAULT_REASONS[status][0];
  // Only a 429 promises a Retry-After by default; other statuses send one when asked to.
  const retryAfterSeconds = spec.retryAfterSeconds ?? (status === 429 ? 1 : undefined);
  let error: GoogleApiError;
  if (
    reason === 'rateLimitExceeded' ||
    reason === 'userRateLimitExceeded' ||
    reason === 'dailyLimitExceeded'
  ) {
    error = googleErrors.quotaExceeded({
      code: status as 403 | 429,
      reason,
      api: path.startsWith('/v4/') ? 'sheets' : 'drive',
      read: method === 'GET' || /ByDataFilter$/.test(apiMethodOf(method, path) ?? ''),
      retryAfterSeconds,
    });
  } else {
    // 401 and 403 let clients' token-refresh and permission paths be tested without revoking grants.
    const byReason = {
      authError: googleErrors.unauthenticated,
      forbidden: () => googleErrors.permissionDenied(),
      insufficientPermissions: googleErrors.insufficientScopes,
      backendError: status === 503 ? googleErrors.unavailable : () => googleErrors.internal('backendError'),
      internalError: () => googleErrors.internal('internalError'),
    } satisfies Record<Exclude<FaultReason, QuotaReason>, () => GoogleApiError>;
    error = byReason[reason]();
    if (retryAfterSeconds !== undefined) error.headers['retry-after'] = String(retryAfterSeconds);
  }
  return error;
}
