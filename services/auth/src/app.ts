import {
  clientAddressResolver,
  HttpError,
  healthRoutes,
  jsonErrors,
  type Logger,
  type ReadinessCheck,
  type Route,
  requestLog,
  routeMiddleware,
} from '@sheetgate/service-runtime';
import Koa, { type Middleware } from 'koa';
import type Provider from 'oidc-provider';
import { registrationCors } from './oidc/cors.ts';
import { publicOrigin } from './oidc/public-origin.ts';
import { isDiscoveryPath, OIDC_ROUTES, OPENID_DISCOVERY_PATH } from './oidc/routes.ts';
import { storeOutages } from './oidc/store-outage.ts';

const PROVIDER_ROUTES: string[] = Object.values(OIDC_ROUTES);
// The provider also answers below its routes (the authorization endpoint resumes at /authorize/<uid>).
const isProviderPath = (path: string) =>
  PROVIDER_ROUTES.some((route) => path === route || path.startsWith(`${route}/`));

export interface AuthAppOptions {
  logger: Logger;
  baseUrl: string;
  readiness: ReadinessCheck[];
  provider: Provider;
  /** Signs and verifies cookies (the same keys as the provider's). */
  cookieKeys: string[];
  /** Who may say who the client is through X-Forwarded-For (TRUSTED_PROXIES). */
  trustedProxies: readonly string[];
  /** Run on every request before any route (the per-IP rate limits, which cover the provider too). */
  limits: Middleware[];
  /** Sheetgate's own routes (Google sign-in, interactions, sign-out), tried before the provider. */
  routes: Route[];
}

/**
 * The auth service's HTTP app: health, Sheetgate's own /api/auth routes, then oidc-provider for
 * the OAuth endpoints, JWKS and discovery. RFC 8414 metadata and path-suffixed discovery variants
 * answer with the same document as OpenID discovery.
 */
export function createAuthApp(options: AuthAppOptions): Koa {
  // `proxy` lets Koa read the scheme from X-Forwarded-Proto, which publicOrigin pins to BASE_URL's;
  // the client address is never Koa's reading of X-Forwarded-For but the trusted-proxy rule's.
  const app = new Koa({ proxy: true, keys: options.cookieKeys });
  const providerCallback = options.provider.callback();
  const clientAddress = clientAddressResolver(options.trustedProxies);
  app.use(async (ctx, next) => {
    ctx.request.ip = clientAddress(ctx.req);
    await next();
  });
  app.use(healthRoutes(options.readiness));
  app.use(requestLog(options.logger));
  app.use(jsonErrors(options.logger));
  app.use(storeOutages());
  app.use(publicOrigin(options.baseUrl));
  for (const limit of options.limits) app.use(limit);
  app.use(routeMiddleware(options.routes));
  app.use(registrationCors());
  // The one catch-all: oidc-provider answers its own routes (OIDC_ROUTES and below them) and
  // discovery, which it routes itself; any other path is a 404 here.
  app.use(async (ctx) => {
    const path = ctx.path;
    if (isDiscoveryPath(path)) {
      ctx.req.url = `${OPENID_DISCOVERY_PATH}${ctx.search}`;
    } else if (!isProviderPath(path)) {
      throw new HttpError(404, 'not_found', 'no such route');
    }
    if (path === OIDC_ROUTES.jwks) ctx.res.setHeader('cache-control', 'public, max-age=300');
    ctx.respond = false;
    await providerCallback(ctx.req, ctx.res);
  });
  return app;
}
