import type { Middleware } from 'koa';

/**
 * Makes every URL the provider builds use the configured public origin. oidc-provider derives
 * endpoint URLs from the request (`ctx.href`, with `proxy` trusting X-Forwarded-*); instead of
 * trusting whatever forwarded headers arrive, we overwrite them with BASE_URL's host and scheme,
 * so a spoofed header can never change the issuer's advertised endpoints. X-Forwarded-For keeps
 * only the hop the ingress appended (the provider and rate limits read the client IP from it).
 */
export function publicOrigin(baseUrl: string): Middleware {
  const { host, protocol } = new URL(baseUrl);
  const proto = protocol.replace(/:$/, '');
  return async (ctx, next) => {
    ctx.req.headers['x-forwarded-host'] = host;
    ctx.req.headers['x-forwarded-proto'] = proto;
    const forwardedFor = ctx.req.headers['x-forwarded-for'];
    if (typeof forwardedFor === 'string') {
      const hops = forwardedFor.split(',').map((hop) => hop.trim());
      ctx.req.headers['x-forwarded-for'] = hops[hops.length - 1];
    }
    await next();
  };
}
