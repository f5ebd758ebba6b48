import { clearBrowserCookie, readBrowserCookie, setBrowserCookie } from '@sheetgate/service-runtime';
import type { Context } from 'koa';
import { SIGN_IN_TTL_SECONDS } from './sign-in-state.ts';

const COOKIE = 'sg_google_sign_in';
// Only the callback needs it. SameSite=Lax still sends it on Google's top-level redirect back.
const PATH = '/api/auth/google/callback';

/** The cookie that ties a pending Google sign-in to the browser that started it. */
export const browserBindingCookie = {
  set(ctx: Context, value: string, secure: boolean) {
    setBrowserCookie(ctx, COOKIE, value, { secure, path: PATH, maxAge: SIGN_IN_TTL_SECONDS * 1000 });
  },
  read(ctx: Context): string | undefined {
    return readBrowserCookie(ctx, COOKIE);
  },
  clear(ctx: Context, secure: boolean) {
    clearBrowserCookie(ctx, COOKIE, { secure, path: PATH });
  },
};
