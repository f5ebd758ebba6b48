import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * CSRF tokens for the forms the browser posts to auth (consent, sign-out): an HMAC of what the
 * form acts on, under the cookie key. Stateless, bound to one interaction or one session, and
 * useless for any other. SameSite=Lax cookies already stop cross-site posts; this is the second
 * lock DESIGN §7.5 asks for.
 */
export function createCsrfTokens(secret: string) {
  const sign = (purpose: string, binding: string) =>
    createHmac('sha256', secret).update(`${purpose}\n${binding}`).digest('base64url');
  return {
    issue: sign,
    verify(purpose: string, binding: string, presented: unknown): boolean {
      if (typeof presented !== 'string' || presented.length > 100) return false;
      const expected = Buffer.from(sign(purpose, binding));
      const actual = Buffer.from(presented);
      return actual.length === expected.length && timingSafeEqual(actual, expected);
    },
  };
}

export type CsrfTokens = ReturnType<typeof createCsrfTokens>;
