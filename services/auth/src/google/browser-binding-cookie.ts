import type { Context } from 'koa';
import { forceSecureWhenAsked } from '../sessions/session-cookie.ts';
import { SIGN_IN_TTL_SECONDS } from './sign-in-state.ts';

const COOKIE = 'sg_google_sign_in';
// Only the callback needs it. SameSite=Lax still sends it on Google's top-level redirect back.
const PATH = '/api/auth/google/callback';

/** The cookie that ties a pending Google sign-in to the browser that started it. */
export const browserBindingCookie = {
  set(ctx: Context, value: string, secure: boolean) {
    forceSecureWhenAsked(ctx, secure);
    ctx.cookies.set(COOKIE, value, {
      httpOnly: true,
      sameSite: 'lax',
      path: PATH,
      secure,
      signed: false,
      overwrite: true,
      maxAge: SIGN_IN_TTL_SECONDS * 1000,
    });
  },
  read(ctx: Context): string | undefined {
    return ctx.cookies.get(COOKIE, { signed: false }) || undefined;
  },
  clear(ctx: Context, secure: boolean) {
    forceSecureWhenAsked(ctx, secure);
    ctx.cookies.set(COOKIE, '', {
      httpOnly: true,
      sameSite: 'lax',
      path: PATH,
      secure,
      signed: false,
      overwrite: true,
      expires: new Date(0),
    });
  },
};
