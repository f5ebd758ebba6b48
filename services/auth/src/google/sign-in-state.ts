import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Cache } from '../cache/cache.ts';

/** A Google sign-in in progress lives this long: enough to pick an account and consent. */
export const SIGN_IN_TTL_SECONDS = 10 * 60;

export interface PendingSignIn {
  codeVerifier: string;
  nonce: string;
  returnTo: string;
  /** SHA-256 (base64url) of the browser-binding cookie's value. */
  browserHash: string;
}

const random = () => randomBytes(32).toString('base64url');
const sha256 = (value: string) => createHash('sha256').update(value).digest('base64url');
const pendingKey = (state: string) => `google-sign-in:${state}`;
const claimedKey = (state: string) => `google-sign-in-claimed:${state}`;
const STATE = /^[A-Za-z0-9_-]{43}$/;

/**
 * Pending Google sign-ins, kept server-side in the cache under their `state`, bound to the
 * browser that started them by a random cookie value whose hash is stored with the state (so a
 * `state` leaked from one browser is useless in another: login CSRF, RFC 6749 §10.12).
 */
export function createSignInStates(cache: Cache) {
  return {
    async begin(details: { codeVerifier: string; returnTo: string }) {
      const state = random();
      const nonce = random();
      const browserSecret = random();
      const pending: PendingSignIn = { ...details, nonce, browserHash: sha256(browserSecret) };
      await cache.set(pendingKey(state), JSON.stringify(pending), SIGN_IN_TTL_SECONDS);
      return { state, nonce, browserSecret };
    },

    /**
     * The pending sign-in for `state` if `browserSecret` is the one it was started with; each
     * state is honoured once, even when two callbacks race (the claim is atomic).
     */
    async finish(
      state: string | undefined,
      browserSecret: string | undefined,
    ): Promise<
      { ok: true; pending: PendingSignIn } | { ok: false; reason: 'unknown_state' | 'wrong_browser' }
    > {
      if (!state || !STATE.test(state)) return { ok: false, reason: 'unknown_state' };
      const stored = await cache.get(pendingKey(state));
      if (!stored) return { ok: false, reason: 'unknown_state' };
      const pending = JSON.parse(stored) as PendingSignIn;
      const expected = Buffer.from(pending.browserHash);
      const presented = Buffer.from(sha256(browserSecret ?? ''));
      // Checked before the claim, so a foreign request cannot burn the real browser's sign-in.
      if (!browserSecret || !timingSafeEqual(expected, presented))
        return { ok: false, reason: 'wrong_browser' };
      if (!(await cache.setIfAbsent(claimedKey(state), '1', SIGN_IN_TTL_SECONDS)))
        return { ok: false, reason: 'unknown_state' };
      await cache.delete(pendingKey(state));
      return { ok: true, pending };
    },
  };
}

export type SignInStates = ReturnType<typeof createSignInStates>;
