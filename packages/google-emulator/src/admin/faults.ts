import type { Middleware } from 'koa';
import { type GoogleApiError, googleErrors } from '../google-error.ts';
import { apiMethodOf, isApiPath } from './api-methods.ts';

export interface FaultSpec {
  /** A method id or id prefix (`sheets.spreadsheets.values.get`, `drive.files`) or a path regex. */
  match: string;
  status?: 401 | 403 | 429 | 500 | 503 | undefined;
  retryAfterSeconds?: number | undefined;
  latencyMs?: number | undefined;
  /** How many matching calls the fault answers; 1 unless given. */
  count?: number | undefined;
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
      throw faultError(fault.spec);
    };
  }
}

function faultError(spec: FaultSpec): GoogleApiError {
  // 401 and 403 let clients' token-refresh and permission paths be tested without revoking grants.
  const byStatus: Record<number, () => GoogleApiError> = {
    401: googleErrors.unauthenticated,
    403: () => googleErrors.permissionDenied(),
    429: () => googleErrors.rateLimited(spec.retryAfterSeconds ?? 1),
    500: googleErrors.internal,
    503: googleErrors.unavailable,
  };
  const error = (byStatus[spec.status ?? 503] ?? googleErrors.unavailable)();
  if (spec.status !== 429 && spec.retryAfterSeconds !== undefined) {
    error.headers['retry-after'] = String(spec.retryAfterSeconds);
  }
  return error;
}
