import { decodeJwt } from 'jose';
import type { Middleware } from 'koa';
import type Provider from 'oidc-provider';
import { OIDC_ROUTES, PROVIDER_COOKIES } from './routes.ts';

const SESSION_COOKIE = PROVIDER_COOKIES.session;

/**
 * `GET /api/auth/oauth2/end-session` from a browser that is signed in to nobody. The provider
 * would create a Session (14 days) just to carry its logout form's token; here such a request is
 * answered without storing anything, with what the provider would end on: the app's registered
 * post-logout redirect (with its `state`) when the request names one the app registered, else the
 * signed-out page.
 */
export function anonymousEndSession(provider: Provider): Middleware {
  return async (ctx, next) => {
    if (ctx.method !== 'GET' || ctx.path !== OIDC_ROUTES.end_session) return next();
    const sessionId = ctx.cookies.get(SESSION_COOKIE, { signed: true });
    const session = sessionId ? await provider.Session.find(sessionId) : undefined;
    if (session?.accountId) return next();
    ctx.set('cache-control', 'no-store');
    ctx.status = 303;
    ctx.redirect(
      (await permittedPostLogoutRedirect(provider, ctx.query)) ?? `${OIDC_ROUTES.end_session}/success`,
    );
  };
}

const single = (value: unknown) => (typeof value === 'string' && value ? value : undefined);

/**
 * The request's `post_logout_redirect_uri` with its `state`, when the app named by `id_token_hint`
 * (a valid ID token of ours) or `client_id` registered it; undefined otherwise — as the provider
 * decides it (OpenID Connect RP-Initiated Logout 1.0 §2-3), without its session.
 */
async function permittedPostLogoutRedirect(
  provider: Provider,
  query: Record<string, unknown>,
): Promise<string | undefined> {
  const uri = single(query.post_logout_redirect_uri);
  if (!uri) return undefined;
  const hint = single(query.id_token_hint);
  const clientId = single(query.client_id);
  try {
    let client: Awaited<ReturnType<Provider['Client']['find']>>;
    if (hint) {
      const audience = decodeJwt(hint).aud;
      if (typeof audience !== 'string' || (clientId && clientId !== audience)) return undefined;
      client = await provider.Client.find(audience);
      if (!client) return undefined;
      await provider.IdToken.validate(hint, client);
    } else if (clientId) {
      client = await provider.Client.find(clientId);
    }
    if (!client?.postLogoutRedirectUriAllowed(uri)) return undefined;
  } catch {
    // An unreadable hint or an unknown client: no way back to an app, only the signed-out page.
    return undefined;
  }
  const target = new URL(uri);
  const state = single(query.state);
  if (state) target.searchParams.set('state', state);
  return target.href;
}
