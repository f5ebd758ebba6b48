import type { Middleware } from 'koa';
import { apiMethodOf, isApiPath } from './api-methods.ts';

/** What one API method (or every API call together) has seen since the last reset. */
export interface MethodStats {
  /** Requests that reached the emulator, faulted ones and retries included. */
  attempts: number;
  /** Final HTTP status → how many responses had it. */
  responses: Record<string, number>;
  /** Requests being handled right now (held by an injected latency, for instance). */
  inFlight: number;
  /** The most requests handled at once. */
  maxInFlight: number;
}

export interface GrantStats {
  attempts: number;
  responses: Record<string, number>;
}

/** The JSON of `GET /__emulator/stats`. */
export interface StatsSnapshot {
  /** By method id (`sheets.spreadsheets.values.get`, …; `unknown` for an API path no method has). */
  methods: Record<string, MethodStats>;
  allMethods: MethodStats;
  /** Token-endpoint requests by `grant_type`; `other` for a missing or unsupported one. */
  tokenGrants: Record<string, GrantStats>;
}

/** Read by the middleware after the token route has set it from the form. */
export const GRANT_TYPE_STATE = 'grantType';
const COUNTED_GRANT_TYPES = new Set(['authorization_code', 'refresh_token']);

const emptyMethod = (): MethodStats => ({ attempts: 0, responses: {}, inFlight: 0, maxInFlight: 0 });

/**
 * Counts Sheets/Drive calls and token grants, so that tests of a client can see what the client
 * really sent: how many retries, how many at once, whether a 401 led to a refresh. Sits outside the
 * error middleware so that it counts final statuses, faults included.
 */
export class RequestStats {
  #methods = new Map<string, MethodStats>();
  #allMethods = emptyMethod();
  #grants = new Map<string, GrantStats>();

  middleware(): Middleware {
    return async (ctx, next) => {
      if (isApiPath(ctx.path)) {
        const id = apiMethodOf(ctx.method, ctx.path) ?? 'unknown';
        let method = this.#methods.get(id);
        if (!method) {
          method = emptyMethod();
          this.#methods.set(id, method);
        }
        // Counters captured here: a reset while the request runs does not make new ones negative.
        const counters = [method, this.#allMethods];
        for (const counter of counters) {
          counter.attempts += 1;
          counter.inFlight += 1;
          counter.maxInFlight = Math.max(counter.maxInFlight, counter.inFlight);
        }
        try {
          await next();
        } finally {
          for (const counter of counters) {
            counter.inFlight -= 1;
            countStatus(counter.responses, ctx.status);
          }
        }
        return;
      }
      if (ctx.method !== 'POST' || ctx.path !== '/token') return next();
      try {
        await next();
      } finally {
        const given = ctx.state[GRANT_TYPE_STATE];
        const type = typeof given === 'string' && COUNTED_GRANT_TYPES.has(given) ? given : 'other';
        let grant = this.#grants.get(type);
        if (!grant) {
          grant = { attempts: 0, responses: {} };
          this.#grants.set(type, grant);
        }
        grant.attempts += 1;
        countStatus(grant.responses, ctx.status);
      }
    };
  }

  snapshot(): StatsSnapshot {
    return structuredClone({
      methods: Object.fromEntries([...this.#methods].sort(([a], [b]) => a.localeCompare(b))),
      allMethods: this.#allMethods,
      tokenGrants: Object.fromEntries(this.#grants),
    });
  }

  clear(): void {
    this.#methods = new Map();
    this.#allMethods = emptyMethod();
    this.#grants = new Map();
  }
}

function countStatus(responses: Record<string, number>, status: number) {
  responses[status] = (responses[status] ?? 0) + 1;
}
