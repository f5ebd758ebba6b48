import { HttpError } from '@sheetgate/service-runtime';
import type { Middleware } from 'koa';
import { errors, type KoaContextWithOIDC } from 'oidc-provider';
import { isStoreOutage } from '../cache/store-unavailable.ts';
import { isDatabaseUnavailable, type Queryable } from '../db/pool.ts';

// What auth answers on every HTTP route when Redis (the cache or the provider's short-lived
// models) or PostgreSQL (users, sessions, clients, grants, refresh tokens) is down: 503
// `temporarily_unavailable`, JSON, with a Retry-After — never a hang or a 500.
const ERROR = 'temporarily_unavailable';
const DESCRIPTION = 'the authorization server cannot reach a store it needs; try again shortly';
const RETRY_AFTER_SECONDS = '5';

/**
 * Thrown by the provider's Redis model store: oidc-provider's own `temporarily_unavailable`
 * (RFC 6749 §4.1.2.1), with status 503 instead of its 400, answered to whoever asked rather than
 * redirected to the client, so the person can retry the same page once Redis is back.
 */
export class ProviderStoreUnavailable extends errors.TemporarilyUnavailable {
  constructor(cause: unknown) {
    super(DESCRIPTION, { cause });
    this.status = 503;
    this.statusCode = 503;
    this.expose = true;
    this.allow_redirect = false;
  }
}

/**
 * `pool` as the provider's adapter and hooks use it: PostgreSQL being down becomes
 * ProviderStoreUnavailable, which the provider answers as 503 like a Redis outage; without it the
 * provider's own error handling turns the pg error into a 500 `server_error`.
 */
export function providerQueryable(pool: Queryable): Queryable {
  const query = (...args: unknown[]) =>
    (pool.query as (...args: unknown[]) => Promise<unknown>)(...args).catch((error: unknown) => {
      if (isDatabaseUnavailable(error)) throw new ProviderStoreUnavailable(error);
      throw error;
    });
  return { query: query as Queryable['query'] };
}

/**
 * The provider's first middleware: a store failure outside its endpoints' own error handling (the
 * refresh retry window's cache, before the token endpoint runs) answers the same 503, and every
 * 503 says when to retry.
 */
export function providerStoreOutages() {
  return async (ctx: KoaContextWithOIDC, next: () => Promise<void>) => {
    try {
      await next();
    } catch (error) {
      if (!isStoreOutage(error)) throw error;
      ctx.status = 503;
      ctx.set('cache-control', 'no-store');
      ctx.body = { error: ERROR, error_description: DESCRIPTION };
    }
    if (ctx.status === 503) ctx.set('retry-after', RETRY_AFTER_SECONDS);
  };
}

/** The same answer on auth's own routes (interactions and consent, Google sign-in). */
export function storeOutages(): Middleware {
  return async (_ctx, next) => {
    try {
      await next();
    } catch (error) {
      if (!isStoreOutage(error)) throw error;
      throw new HttpError(503, ERROR, DESCRIPTION, {
        'retry-after': RETRY_AFTER_SECONDS,
        'cache-control': 'no-store',
      });
    }
  };
}
