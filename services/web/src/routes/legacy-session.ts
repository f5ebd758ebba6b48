import type { AccountServiceClientApi } from '@sheetgate/proto';
import {
  clearBrowserCookie,
  DEFAULT_RETURN_TO,
  safeReturnTo,
  sessionCookie,
} from '@sheetgate/service-runtime';
import type { Middleware } from 'koa';
import { sessionCookieOf } from './request-values.ts';

/**
 * The retired provider's session cookies (Better Auth's default name, and its https variant). After
 * `migrate:import` its sessions carry over: auth holds their hashes, waiting for the browser.
 */
export const LEGACY_SESSION_COOKIES = [
  '__Secure-better-auth.session_token',
  'better-auth.session_token',
] as const;

/**
 * A person who was signed in before the provider migration stays signed in: a page request that
 * has no Sheetgate session but the retired provider's cookie is exchanged (once; auth spends the old
 * session whatever happens) for a Sheetgate session. The old cookie is cleared either way. After a
 * successful exchange the browser asks for the same page again, now with its Sheetgate cookie;
 * otherwise the request goes on as one without a session (never a redirect back to itself, which
 * would loop for a cookie the browser keeps, such as a `__Secure-` one over plain http).
 */
export function legacySessionExchange(deps: {
  accounts: AccountServiceClientApi;
  baseUrl: string;
}): Middleware {
  const secure = new URL(deps.baseUrl).protocol === 'https:';
  return async (ctx, next) => {
    if ((ctx.method !== 'GET' && ctx.method !== 'HEAD') || sessionCookieOf(ctx)) return next();
    const present = LEGACY_SESSION_COOKIES.filter((name) => ctx.cookies.get(name));
    if (present.length === 0) return next();
    const exchanged = await deps.accounts.exchangeLegacySession({
      legacySessionCookie: ctx.cookies.get(present[0]!) ?? '',
      userAgent: (ctx.get('user-agent') ?? '').slice(0, 512),
      ip: '',
    });
    for (const name of present) {
      // A `__Secure-` cookie can only be replaced over https; elsewhere it stays, already spent.
      if (name.startsWith('__Secure-') && !secure) continue;
      clearBrowserCookie(ctx, name, { secure });
    }
    if (!exchanged.sessionCookie) return next();
    sessionCookie.set(ctx, exchanged.sessionCookie, new Date(exchanged.expiresAt), secure);
    ctx.set('cache-control', 'no-store');
    ctx.status = 303;
    ctx.redirect(safeReturnTo(ctx.originalUrl) ?? DEFAULT_RETURN_TO);
  };
}
