import type { Context, Middleware } from 'koa';
import { isDiscoveryPath, OIDC_ROUTES } from './routes.ts';

// The same preflight lifetime as oidc-provider's own CORS answers (lib/helpers/initialize_app.js).
const PREFLIGHT_MAX_AGE_SECONDS = 3600;
const CROSS_ORIGIN_ENDPOINTS = new Set<string>([
  OIDC_ROUTES.jwks,
  OIDC_ROUTES.registration,
  OIDC_ROUTES.token,
  OIDC_ROUTES.revocation,
  OIDC_ROUTES.userinfo,
]);

/**
 * The endpoints browser-based MCP clients call from their own origin (issue 4): discovery, JWKS,
 * registration, token, revocation (and userinfo). None of them reads cookies, so any origin may.
 */
export function isCrossOriginEndpoint(path: string): boolean {
  return isDiscoveryPath(path) || CROSS_ORIGIN_ENDPOINTS.has(path);
}

/** Lets the calling page read this answer (no credentials: these endpoints take none from cookies). */
export function allowCallingOrigin(ctx: Context): void {
  ctx.vary('Origin');
  const origin = ctx.get('origin');
  if (origin) ctx.set('Access-Control-Allow-Origin', origin);
}

/**
 * CORS for dynamic client registration, which oidc-provider mounts without it (it does answer
 * CORS itself on discovery, JWKS, token, revocation and userinfo): a browser-based client such as
 * the MCP Inspector registers from its own origin with a JSON body, so it sends a preflight first.
 */
export function registrationCors(): Middleware {
  return async (ctx, next) => {
    if (ctx.path !== OIDC_ROUTES.registration) return next();
    if (ctx.method === 'OPTIONS' && ctx.get('access-control-request-method')) {
      allowCallingOrigin(ctx);
      ctx.set('Access-Control-Allow-Methods', 'POST');
      ctx.set('Access-Control-Allow-Headers', 'content-type, authorization');
      ctx.set('Access-Control-Max-Age', String(PREFLIGHT_MAX_AGE_SECONDS));
      ctx.status = 204;
      return;
    }
    if (ctx.method === 'POST') allowCallingOrigin(ctx);
    return next();
  };
}
