import type { Middleware } from 'koa';

/** Headers every page carries (DESIGN §7.5): no framing, a strict CSP, no referrer leaks. */
export function securityHeaders(): Middleware {
  return async (ctx, next) => {
    await next();
    ctx.set({
      'content-security-policy':
        "default-src 'none'; style-src 'self'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
      'x-frame-options': 'DENY',
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
    });
  };
}
