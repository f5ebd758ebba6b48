import type { Middleware } from 'koa';

/**
 * Makes every URL the provider builds use the configured public origin. oidc-provider derives
 * endpoint URLs from the request (`ctx.href`, with `proxy` trusting X-Forwarded-*); instead of
 * trusting whatever forwarded headers arrive, we overwrite them with BASE_URL's host and scheme,
 * so a spoofed header can never change the issuer's advertised endpoints. X-Forwarded-For becomes
 * the one client address the app derived (`ctx.ip`, by TRUSTED_PROXIES), so the provider sees the
 * same client as the rate limits and the audit trail.
 */
export function publicOrigin(baseUrl: string): Middleware {
  const { host, protocol } = new URL(baseUrl);
  const proto = protocol.replace(/:$/, '');
  return async (ctx, next) => {
    ctx.req.headers['x-forwarded-host'] = host;
    ctx.req.headers['x-forwarded-proto'] = proto;
    if (ctx.ip) ctx.req.headers['x-forwarded-for'] = ctx.ip;
    else delete ctx.req.headers['x-forwarded-for'];
    await next();
  };
}
