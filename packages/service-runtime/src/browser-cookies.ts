import type { Context } from 'koa';

/** The dashboard session cookie: auth sets it on Google sign-in, web reads it; one origin, path /. */
export const SESSION_COOKIE = 'sg_session';

export interface BrowserCookieOptions {
  /** True when BASE_URL is https: browsers then never send the cookie over plain http. */
  secure: boolean;
  path?: string;
  expires?: Date;
  maxAge?: number;
}

/**
 * Sets (or, with an empty value and a past expiry, clears) one of Sheetgate's cookies. HttpOnly:
 * no script reads them; SameSite=Lax: sent on top-level navigations (the redirects back from
 * Google and from MCP clients) but not on cross-site posts (docs/design.md §7.5); never signed
 * by Koa.
 */
export function setBrowserCookie(
  ctx: Context,
  name: string,
  value: string,
  options: BrowserCookieOptions,
): void {
  // The `cookies` module refuses a Secure cookie on a request it thinks is plain http. Behind the
  // ingress TLS ends before the service; BASE_URL (not the hop) says whether the browser uses https.
  if (options.secure) (ctx.cookies as unknown as { secure: boolean }).secure = true;
  ctx.cookies.set(name, value, {
    httpOnly: true,
    sameSite: 'lax',
    path: '/',
    signed: false,
    overwrite: true,
    ...options,
  });
}

export function clearBrowserCookie(
  ctx: Context,
  name: string,
  options: Omit<BrowserCookieOptions, 'expires' | 'maxAge'>,
): void {
  setBrowserCookie(ctx, name, '', { ...options, expires: new Date(0), maxAge: 0 });
}

export function readBrowserCookie(ctx: Context, name: string): string | undefined {
  return ctx.cookies.get(name, { signed: false }) || undefined;
}

export const sessionCookie = {
  set: (ctx: Context, value: string, expiresAt: Date, secure: boolean) =>
    setBrowserCookie(ctx, SESSION_COOKIE, value, { secure, expires: expiresAt }),
  read: (ctx: Context) => readBrowserCookie(ctx, SESSION_COOKIE),
  clear: (ctx: Context, secure: boolean) => clearBrowserCookie(ctx, SESSION_COOKIE, { secure }),
};
