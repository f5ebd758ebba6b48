import { createHash, createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';
import type { Context } from 'koa';

/** Longer than any token `issue` returns (43 base64url characters): refused before any hashing. */
const MAX_TOKEN_LENGTH = 100;

/**
 * Stateless CSRF tokens for the forms a browser posts: an HMAC of the form's purpose and a hash of
 * what the form is bound to (an interaction, a session), under a key derived from `secret` with
 * HKDF and labelled per use, so the secret itself never signs anything a browser sees and one
 * service's tokens mean nothing to another's. Any replica checks any token; a token is useless for
 * another purpose or binding. SameSite=Lax cookies already stop cross-site posts: this is the
 * second lock.
 */
export function createCsrfTokens<Purpose extends string>(secret: string, label: string) {
  const key = Buffer.from(hkdfSync('sha256', secret, 'sheetgate csrf tokens', label, 32));
  const sign = (purpose: Purpose, binding: string) =>
    createHmac('sha256', key)
      .update(`${purpose}\n${createHash('sha256').update(binding).digest('base64url')}`)
      .digest('base64url');
  return {
    issue: sign,
    /** False for a missing binding (no session, no interaction): nothing to be bound to. */
    verify(purpose: Purpose, binding: string, presented: unknown): boolean {
      if (!binding || typeof presented !== 'string' || presented.length > MAX_TOKEN_LENGTH) return false;
      const expected = Buffer.from(sign(purpose, binding));
      const actual = Buffer.from(presented);
      return actual.length === expected.length && timingSafeEqual(actual, expected);
    },
  };
}

export type CsrfTokens<Purpose extends string> = ReturnType<typeof createCsrfTokens<Purpose>>;

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
