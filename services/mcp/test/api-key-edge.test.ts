import type { LeaseApiKeyAllowanceRequest, LeaseApiKeyAllowanceResponse, Revocation } from '@sheetgate/proto';
import { describe, expect, it } from 'vitest';
import { edgeApiKeyResolver } from '../src/auth/api-key-edge.ts';
import type { ApiKeyOutcome } from '../src/auth/broker-clients.ts';

// The edge's rules for a held key, against a scripted auth: what is kept and when it is
// forgotten, and how leases are shared. The same behaviour against real processes is in
// api-keys-at-the-edge.test.ts.

const KEY = `sg_live_${'k'.repeat(43)}`;
const live = (overrides: Partial<Extract<ApiKeyOutcome, { ok: true }>> = {}): ApiKeyOutcome => ({
  ok: true,
  userId: 'user-1',
  scopes: ['sheets:read'],
  keyId: 'key-1',
  expiresAtMs: null,
  toolsets: null,
  ...overrides,
});

function scriptedAuth(options: { answer?: () => ApiKeyOutcome; grant?: (requested: number) => number } = {}) {
  const revokedListeners: Array<(keyId: string) => void> = [];
  const snapshotListeners: Array<() => void> = [];
  const calls = { resolve: 0, lease: 0, leasesInFlight: 0, mostLeasesInFlight: 0 };
  let stale = false;
  let holdResolve: Promise<void> | undefined;
  const auth = {
    calls,
    resolver: {
      async resolve(apiKey: string): Promise<ApiKeyOutcome> {
        calls.resolve++;
        if (apiKey !== KEY) return { ok: false, reason: 'unknown' };
        await holdResolve;
        return options.answer?.() ?? live();
      },
    },
    broker: {
      async leaseApiKeyAllowance(
        request: LeaseApiKeyAllowanceRequest,
      ): Promise<LeaseApiKeyAllowanceResponse> {
        calls.lease++;
        calls.leasesInFlight++;
        calls.mostLeasesInFlight = Math.max(calls.mostLeasesInFlight, calls.leasesInFlight);
        await new Promise((resolve) => setTimeout(resolve, 5));
        calls.leasesInFlight--;
        const granted = options.grant?.(request.requested) ?? request.requested;
        return {
          granted,
          retryAfterSeconds: granted < request.requested ? 30 : 0,
          validForMs: 60_000,
        };
      },
    },
    revocations: {
      isCurrent: () => !stale,
      onEvent: (listener: (revocation: Revocation) => void) =>
        void revokedListeners.push((keyId) => listener({ kind: 'api_key', keyId })),
      onResync: (listener: () => void) => void snapshotListeners.push(listener),
    },
    revoke: (keyId: string) => {
      for (const listener of revokedListeners) listener(keyId);
    },
    snapshot: () => {
      for (const listener of snapshotListeners) listener();
    },
    setStale: (value: boolean) => {
      stale = value;
    },
    hold(): () => void {
      let release!: () => void;
      holdResolve = new Promise<void>((resolve) => {
        release = resolve;
      });
      return () => {
        holdResolve = undefined;
        release();
      };
    },
  };
  return auth;
}

const edge = (auth: ReturnType<typeof scriptedAuth>, leaseSize = 10) =>
  edgeApiKeyResolver({
    resolver: auth.resolver,
    broker: auth.broker,
    revocations: auth.revocations,
    leaseSize,
  });

describe('a key held at the edge', () => {
  it('is resolved once, then served from leases: one lease per `leaseSize` requests', async () => {
    const auth = scriptedAuth();
    const keys = edge(auth);
    for (let i = 0; i < 31; i++) expect(await keys.resolve(KEY, '192.0.2.1')).toMatchObject({ ok: true });
    // The first request spent its own point at auth; the next 30 are three leases of 10.
    expect(auth.calls).toMatchObject({ resolve: 1, lease: 3 });
  });

  it('spends the whole of a grant larger than asked (auth leases a key with a large limit more)', async () => {
    const auth = scriptedAuth({ grant: () => 1_000 });
    const keys = edge(auth);
    for (let i = 0; i < 1_002; i++) expect(await keys.resolve(KEY, '192.0.2.1')).toMatchObject({ ok: true });
    // 1 resolved, 1,000 from the first lease, the 1,002nd from a second.
    expect(auth.calls).toMatchObject({ resolve: 1, lease: 2 });
  });

  it('shares one lease request among the concurrent requests that find the allowance spent', async () => {
    const auth = scriptedAuth();
    const keys = edge(auth);
    await keys.resolve(KEY, '192.0.2.1');
    const answers = await Promise.all(Array.from({ length: 100 }, () => keys.resolve(KEY, '192.0.2.1')));
    expect(answers.every((answer) => answer.ok)).toBe(true);
    expect(auth.calls.mostLeasesInFlight).toBe(1);
    expect(auth.calls.lease).toBe(10);
    expect(auth.calls.resolve).toBe(1);
  });

  it('gets what is left of a nearly spent window, then answers 429 until it ends without asking again', async () => {
    let left = 14;
    const auth = scriptedAuth({
      grant: (requested) => {
        const granted = Math.min(left, requested);
        left -= granted;
        return granted;
      },
    });
    const keys = edge(auth);
    const answers: ApiKeyOutcome[] = [];
    for (let i = 0; i < 25; i++) answers.push(await keys.resolve(KEY, '192.0.2.1'));
    // 1 resolved at auth + 10 + 4 leased; then a lease of nothing.
    expect(answers.filter((answer) => answer.ok)).toHaveLength(15);
    expect(answers[15]).toEqual({ ok: false, reason: 'rate_limited', retryAfterSeconds: 30 });
    expect(answers.at(-1)).toMatchObject({ ok: false, reason: 'rate_limited' });
    expect(auth.calls.lease).toBe(3);
  });

  it('is forgotten when the stream says it was revoked, and all keys on a snapshot', async () => {
    const auth = scriptedAuth();
    const keys = edge(auth);
    await keys.resolve(KEY, '192.0.2.1');
    expect(keys.size).toBe(1);
    auth.revoke('key-2');
    expect(keys.size).toBe(1);
    auth.revoke('key-1');
    expect(keys.size).toBe(0);
    await keys.resolve(KEY, '192.0.2.1');
    expect(auth.calls.resolve).toBe(2);
    auth.snapshot();
    expect(keys.size).toBe(0);
  });

  it('does not keep an answer that crossed a revocation on its way from auth', async () => {
    const auth = scriptedAuth();
    const keys = edge(auth);
    const release = auth.hold();
    const pending = keys.resolve(KEY, '192.0.2.1');
    auth.revoke('key-1');
    release();
    expect(await pending).toMatchObject({ ok: true });
    expect(keys.size).toBe(0);
  });

  it('is asked of auth at every request while the stream cannot vouch, and served from leases again once it can', async () => {
    const auth = scriptedAuth();
    const keys = edge(auth);
    await keys.resolve(KEY, '192.0.2.1');
    auth.setStale(true);
    for (let i = 0; i < 3; i++) expect(await keys.resolve(KEY, '192.0.2.1')).toMatchObject({ ok: true });
    expect(auth.calls).toMatchObject({ resolve: 4, lease: 0 });
    auth.setStale(false);
    expect(await keys.resolve(KEY, '192.0.2.1')).toMatchObject({ ok: true });
    expect(auth.calls).toMatchObject({ resolve: 4, lease: 1 });
  });

  it('is forgotten when auth, asked while the stream cannot vouch, says it was revoked', async () => {
    let revoked = false;
    const auth = scriptedAuth({ answer: () => (revoked ? { ok: false, reason: 'revoked' } : live()) });
    const keys = edge(auth);
    await keys.resolve(KEY, '192.0.2.1');
    auth.setStale(true);
    revoked = true;
    expect(await keys.resolve(KEY, '192.0.2.1')).toEqual({ ok: false, reason: 'revoked' });
    expect(keys.size).toBe(0);
    // Current again, the key is asked about rather than served from what was held.
    auth.setStale(false);
    expect(await keys.resolve(KEY, '192.0.2.1')).toEqual({ ok: false, reason: 'revoked' });
    expect(auth.calls.resolve).toBe(3);
  });

  it('is served from its lease while the stream cannot vouch when auth finds the window spent by that lease', async () => {
    // A window of 12: one resolve, then a lease of the 11 left. Stale, the next request asks auth,
    // which finds the window spent (the replica holds it) but the key live: served from the lease.
    let left = 12;
    const auth = scriptedAuth({
      answer: () => (left-- > 0 ? live() : { ok: false, reason: 'rate_limited', retryAfterSeconds: 30 }),
      grant: (requested) => {
        const granted = Math.min(left, requested);
        left -= granted;
        return granted;
      },
    });
    const keys = edge(auth, 50);
    expect(await keys.resolve(KEY, '192.0.2.1')).toMatchObject({ ok: true });
    expect(await keys.resolve(KEY, '192.0.2.1')).toMatchObject({ ok: true });
    expect(auth.calls).toMatchObject({ resolve: 1, lease: 1 });
    auth.setStale(true);
    const answers: ApiKeyOutcome[] = [];
    for (let i = 0; i < 11; i++) answers.push(await keys.resolve(KEY, '192.0.2.1'));
    expect(answers.filter((answer) => answer.ok)).toHaveLength(10);
    expect(answers.at(-1)).toMatchObject({ ok: false, reason: 'rate_limited' });
    expect(auth.calls.resolve).toBe(12);
  });

  it('is answered 503 while the stream cannot vouch and auth cannot answer', async () => {
    let down = false;
    const auth = scriptedAuth({
      answer: () => (down ? { ok: false, reason: 'unavailable', retryAfterSeconds: 5 } : live()),
    });
    const keys = edge(auth);
    expect(await keys.resolve(KEY, '192.0.2.1')).toMatchObject({ ok: true });
    auth.setStale(true);
    down = true;
    expect(await keys.resolve(KEY, '192.0.2.1')).toEqual({
      ok: false,
      reason: 'unavailable',
      retryAfterSeconds: 5,
    });
    // Not a refusal of the key: it stays held for when the stream vouches again.
    expect(keys.size).toBe(1);
  });

  it('past its expiry is asked about again, every time', async () => {
    let expired = false;
    const expiresAtMs = Date.now() + 50;
    const auth = scriptedAuth({
      answer: () => (expired ? { ok: false, reason: 'expired' } : live({ expiresAtMs })),
    });
    const keys = edge(auth);
    await keys.resolve(KEY, '192.0.2.1');
    expect(await keys.resolve(KEY, '192.0.2.1')).toMatchObject({ ok: true });
    expect(auth.calls.resolve).toBe(1);
    while (Date.now() <= expiresAtMs) await new Promise((resolve) => setTimeout(resolve, 10));
    expired = true;
    for (let i = 0; i < 3; i++)
      expect(await keys.resolve(KEY, '192.0.2.1')).toEqual({ ok: false, reason: 'expired' });
    expect(auth.calls.resolve).toBe(4);
  });

  it('is asked about again once held for its maximum age, keeping no allowance from before', async () => {
    const auth = scriptedAuth();
    const keys = edgeApiKeyResolver({
      resolver: auth.resolver,
      broker: auth.broker,
      revocations: auth.revocations,
      leaseSize: 10,
      maxAgeMs: 30,
    });
    const heldAt = performance.now();
    await keys.resolve(KEY, '192.0.2.1');
    expect(await keys.resolve(KEY, '192.0.2.1')).toMatchObject({ ok: true });
    expect(auth.calls).toMatchObject({ resolve: 1, lease: 1 });
    while (performance.now() - heldAt < 40) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(await keys.resolve(KEY, '192.0.2.1')).toMatchObject({ ok: true });
    expect(auth.calls.resolve).toBe(2);
    // The next request leases anew: the old lease went with the old entry.
    expect(await keys.resolve(KEY, '192.0.2.1')).toMatchObject({ ok: true });
    expect(auth.calls.lease).toBe(2);
  });

  it('serves a request auth found over the limit from the allowance a concurrent request leased meanwhile', async () => {
    // A window of 12. Two requests reach the edge before it holds the key: the first is resolved
    // at once (1 point); the second is still on its way to auth when a third finds the key held
    // and leases the 11 points left. Auth then finds the window spent for the second, which the
    // replica serves from those leased points: 12 served in all, then 429.
    let left = 12;
    let releaseSecond!: () => void;
    const secondMayAnswer = new Promise<void>((resolve) => {
      releaseSecond = resolve;
    });
    let resolutions = 0;
    const auth = scriptedAuth({
      grant: (requested) => {
        const granted = Math.min(left, requested);
        left -= granted;
        return granted;
      },
    });
    const keys = edgeApiKeyResolver({
      resolver: {
        async resolve(): Promise<ApiKeyOutcome> {
          resolutions++;
          if (resolutions === 2) await secondMayAnswer;
          if (left === 0) return { ok: false, reason: 'rate_limited', retryAfterSeconds: 30 };
          left--;
          return live();
        },
      },
      broker: auth.broker,
      revocations: auth.revocations,
      leaseSize: 50,
    });
    const first = keys.resolve(KEY, '192.0.2.1');
    const second = keys.resolve(KEY, '192.0.2.1');
    expect(await first).toMatchObject({ ok: true });
    expect(await keys.resolve(KEY, '192.0.2.1')).toMatchObject({ ok: true });
    expect(left).toBe(0);
    releaseSecond();
    expect(await second).toMatchObject({ ok: true });
    const rest: ApiKeyOutcome[] = [];
    for (let i = 0; i < 10; i++) rest.push(await keys.resolve(KEY, '192.0.2.1'));
    expect(rest.filter((answer) => answer.ok)).toHaveLength(9);
    expect(rest.at(-1)).toMatchObject({ ok: false, reason: 'rate_limited' });
  });

  it('never keeps an unknown, revoked or rate-limited key', async () => {
    for (const refusal of [
      { ok: false, reason: 'revoked' },
      { ok: false, reason: 'rate_limited', retryAfterSeconds: 3 },
    ] as ApiKeyOutcome[]) {
      const auth = scriptedAuth({ answer: () => refusal });
      const keys = edge(auth);
      for (let i = 0; i < 3; i++) expect(await keys.resolve(KEY, '192.0.2.1')).toEqual(refusal);
      expect(auth.calls.resolve).toBe(3);
      expect(keys.size).toBe(0);
    }
    const auth = scriptedAuth();
    const keys = edge(auth);
    const unknown = `sg_live_${'u'.repeat(43)}`;
    for (let i = 0; i < 3; i++) expect(await keys.resolve(unknown, '192.0.2.1')).toMatchObject({ ok: false });
    expect(auth.calls.resolve).toBe(3);
  });
});
