import { sessionCookie } from '@sheetgate/service-runtime';
import type { Context } from 'koa';

/** The dashboard session cookie auth sets on Google sign-in; empty when there is none. */
export function sessionCookieOf(ctx: Context): string {
  return sessionCookie.read(ctx) ?? '';
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
