import { sessionCookie } from '@sheetgate/service-runtime';
import type { Context } from 'koa';

/** The dashboard session cookie auth sets on Google sign-in; empty when there is none. */
export function sessionCookieOf(ctx: Context): string {
  return sessionCookie.read(ctx) ?? '';
}

export function sendPage(ctx: Context, markup: string, status = 200): void {
  ctx.status = status;
  ctx.type = 'html';
  // Pages show account data, CSRF tokens and once a key secret: never stored by a cache.
  ctx.set('cache-control', 'no-store');
  ctx.body = markup;
}
