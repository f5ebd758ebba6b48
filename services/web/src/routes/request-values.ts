import type { Context } from 'koa';

/** The dashboard session cookie auth sets on Google sign-in (path /, HttpOnly, SameSite=Lax). */
export const SESSION_COOKIE = 'sg_session';

/**
 * Sets (or, with an empty value and a past expiry, clears) a cookie of the pages. Behind a
 * TLS-terminating ingress web sees plain http, and the cookies module refuses a Secure cookie
 * there unless told the browser's connection is secure (BASE_URL says whether it is).
 */
export function setPageCookie(
  ctx: Context,
  name: string,
  value: string,
  options: { secure: boolean; path?: string; expires?: Date; maxAge?: number },
): void {
  if (options.secure) (ctx.cookies as unknown as { secure: boolean }).secure = true;
  ctx.cookies.set(name, value, { httpOnly: true, sameSite: 'lax', path: '/', overwrite: true, ...options });
}

export function sessionCookieOf(ctx: Context): string {
  return ctx.cookies.get(SESSION_COOKIE) ?? '';
}

/** One query parameter; a repeated one counts as absent. */
export function queryValue(ctx: Context, name: string): string | undefined {
  const value = ctx.query[name];
  return typeof value === 'string' ? value : undefined;
}

/** The shape of an oidc-provider interaction uid (auth checks the same). */
export const isInteractionUid = (value: string | undefined): value is string =>
  value !== undefined && /^[A-Za-z0-9_-]{1,64}$/.test(value);

/**
 * A path on this site to return to after sign-in, else `/dashboard`. Auth checks `return_to`
 * again; refusing `//host` and `/\host` here keeps the login link from ever naming another site.
 */
export function safeReturnTo(value: string | undefined): string {
  if (!value || value.length > 2048 || !value.startsWith('/') || value[1] === '/' || value[1] === '\\')
    return '/dashboard';
  // biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point
  if (/[\u0000-\u001f\u007f\\]/.test(value)) return '/dashboard';
  const base = 'https://sheetgate.invalid';
  const resolved = new URL(value, base);
  return resolved.origin === base ? `${resolved.pathname}${resolved.search}` : '/dashboard';
}

export function sendPage(ctx: Context, markup: string, status = 200): void {
  ctx.status = status;
  ctx.type = 'html';
  // Pages show account data, CSRF tokens and once a key secret: never stored by a cache.
  ctx.set('cache-control', 'no-store');
  ctx.body = markup;
}
