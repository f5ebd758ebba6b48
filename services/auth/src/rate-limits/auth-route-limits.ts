import { addressLimitKey, type Logger } from '@sheetgate/service-runtime';
import type { Middleware } from 'koa';
import type { AuditLog } from '../audit/index.ts';
import { allowCallingOrigin, isCrossOriginEndpoint } from '../oidc/cors.ts';
import { OIDC_ROUTES } from '../oidc/routes.ts';
import type { RateLimiter } from './rate-limiter.ts';
import type { RateLimits } from './rate-limits.ts';

const AUTH_SCOPE = '/api/auth/';

export interface AuthRouteLimitOptions {
  /** Records the first refusal of each window as `rate_limit.hit`. */
  audit?: AuditLog;
  logger?: Logger;
}

/** The limiters that apply to one request, all keyed by the client address (an IPv6 one by its /64). */
function limitersFor(method: string, path: string, limits: RateLimits): RateLimiter[] {
  if (!path.startsWith(AUTH_SCOPE)) return [];
  const applicable = [limits.authIp];
  if (method === 'POST' && path === OIDC_ROUTES.registration) applicable.push(limits.register);
  if (method === 'POST' && path === OIDC_ROUTES.token) applicable.push(limits.token);
  return applicable;
}

/**
 * Koa middleware for the per-IP limits on `/api/auth/*` (tighter on registration and token):
 * over a limit it answers 429 with `Retry-After` and an OAuth-style JSON error (readable
 * cross-origin on the endpoints browser-based clients call). Keyed by `ctx.ip`, which the app
 * derives from X-Forwarded-For only when the peer is a trusted proxy (TRUSTED_PROXIES), so a
 * client cannot pick its own key with a forged header; an IPv6 client counts by its /64.
 */
export function rateLimitAuthRoutes(limits: RateLimits, options: AuthRouteLimitOptions = {}): Middleware {
  return async (ctx, next) => {
    const applicable = limitersFor(ctx.method, ctx.path, limits);
    if (applicable.length === 0) return next();
    const ip = ctx.ip || 'unknown';
    const key = addressLimitKey(ip);
    const decisions = await Promise.all(applicable.map((limiter) => limiter.consume(key)));
    let retryAfterSeconds = 0;
    decisions.forEach((decision, index) => {
      if (decision.allowed) return;
      retryAfterSeconds = Math.max(retryAfterSeconds, decision.retryAfterSeconds);
      if (decision.firstRefusal && options.audit) {
        const limit = applicable[index]!.name;
        options.audit
          .record('rate_limit.hit', { details: { limit, ip, method: ctx.method, path: ctx.path } })
          .catch((error: unknown) =>
            options.logger?.warn({ err: error }, 'could not audit a rate-limit hit'),
          );
      }
    });
    if (retryAfterSeconds === 0) return next();
    ctx.status = 429;
    // A browser-based client must be able to read the refusal (and its Retry-After) too.
    if (isCrossOriginEndpoint(ctx.path)) {
      allowCallingOrigin(ctx);
      ctx.set('Access-Control-Expose-Headers', 'Retry-After');
    }
    ctx.set('Retry-After', String(retryAfterSeconds));
    ctx.set('Cache-Control', 'no-store');
    ctx.body = {
      error: 'rate_limited',
      error_description: `Too many requests from this address; retry after ${retryAfterSeconds} seconds.`,
    };
  };
}
