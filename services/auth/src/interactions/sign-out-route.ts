import { HttpError, type Logger } from '@sheetgate/service-runtime';
import type { Middleware } from 'koa';
import type { DatabasePool } from '../db/pool.ts';
import { clearSessionCookie, readSessionCookie, type SessionStore } from '../sessions/index.ts';
import type { CsrfTokens } from './csrf.ts';
import { readFormBody } from './form-body.ts';

export const SIGN_OUT_PATH = '/api/auth/sign-out';
/** oidc-provider's session cookie (see cookies.names in oidc/provider.ts). */
const PROVIDER_SESSION_COOKIE = 'sg_oidc_session';

/**
 * `POST /api/auth/sign-out` (the dashboard's "Sign out" form, CSRF-protected): ends the dashboard
 * session and the provider session of this browser, so the next OAuth connection asks who is
 * signing in (the seed's "account switch"). Grants and tokens already issued are not touched.
 */
export function signOutRoute(deps: {
  pool: DatabasePool;
  sessions: SessionStore;
  csrf: CsrfTokens;
  secureCookies: boolean;
  logger: Logger;
}): Middleware {
  return async (ctx, next) => {
    if (ctx.path !== SIGN_OUT_PATH) return next();
    if (ctx.method !== 'POST') throw new HttpError(405, 'method_not_allowed', 'use POST', { allow: 'POST' });
    const form = await readFormBody(ctx);
    const cookieValue = readSessionCookie(ctx);
    const session = cookieValue ? await deps.sessions.findByCookieValue(cookieValue) : undefined;
    if (session) {
      if (!deps.csrf.verify('sign-out', session.id, form.csrf)) {
        throw new HttpError(403, 'invalid_csrf', 'the form has expired; reload the page');
      }
      await deps.sessions.revoke(session.id);
      deps.logger.info({ userId: session.userId }, 'signed out');
    }
    const providerSessionId = ctx.cookies.get(PROVIDER_SESSION_COOKIE, { signed: true });
    if (providerSessionId) {
      await deps.pool.query("DELETE FROM oidc_models WHERE model = 'Session' AND id = $1", [
        providerSessionId,
      ]);
    }
    ctx.cookies.set(PROVIDER_SESSION_COOKIE, '', {
      path: '/',
      expires: new Date(0),
      httpOnly: true,
      signed: true,
    });
    clearSessionCookie(ctx, deps.secureCookies);
    ctx.set('cache-control', 'no-store');
    ctx.status = 303;
    ctx.redirect('/login?signed_out=1');
  };
}
