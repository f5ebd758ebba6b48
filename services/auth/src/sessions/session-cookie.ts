import type { Context } from 'koa';

/** The dashboard session cookie, shared by every path of the one origin (auth, web). */
export const SESSION_COOKIE = 'sg_session';

// HttpOnly: no script reads it; SameSite=Lax: sent on top-level navigations (the OAuth redirect
// back from Google and from MCP clients) but not on cross-site posts (DESIGN §7.5).
const attributes = (secure: boolean) =>
  ({ httpOnly: true, sameSite: 'lax', path: '/', secure, signed: false, overwrite: true }) as const;

/** `secure` is true when BASE_URL is https; browsers then never send the cookie over plain http. */
export function setSessionCookie(ctx: Context, value: string, expiresAt: Date, secure: boolean): void {
  forceSecureWhenAsked(ctx, secure);
  ctx.cookies.set(SESSION_COOKIE, value, { ...attributes(secure), expires: expiresAt });
}

export function readSessionCookie(ctx: Context): string | undefined {
  return ctx.cookies.get(SESSION_COOKIE, { signed: false }) || undefined;
}

export function clearSessionCookie(ctx: Context, secure: boolean): void {
  forceSecureWhenAsked(ctx, secure);
  ctx.cookies.set(SESSION_COOKIE, '', { ...attributes(secure), expires: new Date(0), maxAge: 0 });
}

/**
 * The `cookies` module refuses a Secure cookie on a request it thinks is plain http. Behind the
 * ingress TLS ends before auth; BASE_URL (not the hop) says whether the browser uses https.
 */
export function forceSecureWhenAsked(ctx: Context, secure: boolean): void {
  if (secure) (ctx.cookies as unknown as { secure: boolean }).secure = true;
}
