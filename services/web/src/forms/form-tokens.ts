import { createHash, createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';
import type { Context } from 'koa';

/** What a dashboard form does; a token for one purpose is refused for any other. */
export type FormPurpose = 'create-api-key' | 'revoke-api-key' | 'disconnect-app';

/**
 * CSRF tokens for the forms web itself handles (the forms posting to auth carry auth's tokens):
 * an HMAC of the form's purpose and a hash of the browser's session cookie, under a key derived
 * from the internal service credential (HKDF, so the credential itself never signs anything a
 * browser sees). Stateless, so any web replica checks any token; useless without the session
 * cookie it was issued for, and dead once that session ends.
 */
export function createFormTokens(serviceToken: string) {
  const key = Buffer.from(hkdfSync('sha256', serviceToken, 'sheetgate-web', 'dashboard form tokens v1', 32));
  const sign = (purpose: FormPurpose, sessionCookie: string) =>
    createHmac('sha256', key)
      .update(`${purpose}\n${createHash('sha256').update(sessionCookie).digest('base64url')}`)
      .digest('base64url');
  return {
    issue: sign,
    verify(purpose: FormPurpose, sessionCookie: string, presented: unknown): boolean {
      if (!sessionCookie || typeof presented !== 'string' || presented.length > 100) return false;
      const expected = Buffer.from(sign(purpose, sessionCookie));
      const actual = Buffer.from(presented);
      return actual.length === expected.length && timingSafeEqual(actual, expected);
    },
  };
}

export type FormTokens = ReturnType<typeof createFormTokens>;

/**
 * The request comes from one of our own pages. Browsers send `Origin` on every POST and
 * `Sec-Fetch-Site` (Fetch Metadata) on every request; either naming another origin is refused. A
 * sibling port on the same host is "same-site" for cookies, so SameSite=Lax alone would not stop it.
 */
export function isSameOriginPost(ctx: Context, baseUrl: string): boolean {
  const origin = ctx.get('origin');
  if (origin && origin !== new URL(baseUrl).origin) return false;
  const site = ctx.get('sec-fetch-site');
  if (site && site !== 'same-origin' && site !== 'none') return false;
  return true;
}
