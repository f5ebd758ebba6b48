import type { GoogleAccessTokenResult, Revocation } from '@sheetgate/proto';
import { describe, expect, it } from 'vitest';
import { edgeGoogleAccessTokens } from '../src/google/edge-google-tokens.ts';
import type { GoogleAccessTokens } from '../src/google/google-access.ts';

// The Google access tokens an MCP replica keeps (docs/design.md §4.3), against a
// broker that counts its calls and a revocation stream the test drives. The replica's end of the
// real stream, with auth and two replicas, is in google-tokens-at-edge.test.ts.

const T0 = 1_800_000_000_000;

function fakeStream() {
  const events: Array<(revocation: Revocation) => void> = [];
  const resyncs: Array<() => void> = [];
  return {
    current: true,
    isCurrent() {
      return this.current;
    },
    onEvent: (listener: (revocation: Revocation) => void) => void events.push(listener),
    onResync: (listener: () => void) => void resyncs.push(listener),
    emit: (revocation: Revocation) => {
      for (const listener of events) listener(revocation);
    },
    resync: () => {
      for (const listener of resyncs) listener();
    },
  };
}

/** A broker that answers a new token per call (`tok-N`), living `lifetimeSeconds` from the clock. */
function countingBroker(clock: { now: number }, lifetimeSeconds = 3600) {
  const calls: Array<{ userId: string; forceRefresh: boolean }> = [];
  let answer: ((userId: string) => GoogleAccessTokenResult) | undefined;
  const broker: GoogleAccessTokens & { calls: typeof calls; answerWith(f: typeof answer): void } = {
    calls,
    answerWith(f) {
      answer = f;
    },
    async get(userId, options) {
      calls.push({ userId, forceRefresh: options?.forceRefresh ?? false });
      return (
        answer?.(userId) ?? {
          ok: true,
          accessToken: `tok-${calls.length}`,
          expiresAt: Math.floor(clock.now / 1000) + lifetimeSeconds,
          scopes: ['https://www.googleapis.com/auth/spreadsheets'],
          email: `${userId}@example.com`,
          hostedDomain: 'example.com',
        }
      );
    },
  };
  return broker;
}

function setup(options: { lifetimeSeconds?: number; maxEntries?: number } = {}) {
  const clock = { now: T0 };
  const broker = countingBroker(clock, options.lifetimeSeconds);
  const stream = fakeStream();
  const tokens = edgeGoogleAccessTokens({
    broker,
    stream,
    marginSeconds: 60,
    now: () => clock.now,
    ...(options.maxEntries ? { maxEntries: options.maxEntries } : {}),
  });
  const tokenOf = async (userId: string, forceRefresh = false) => {
    const result = await tokens.get(userId, { forceRefresh });
    return result.ok ? result.accessToken : result.reason;
  };
  return { clock, broker, stream, tokens, tokenOf };
}

describe('Google access tokens kept at the edge', () => {
  it('asks the broker once for repeated calls of one person, and once per person', async () => {
    const { broker, tokenOf } = setup();
    expect([await tokenOf('alice'), await tokenOf('alice'), await tokenOf('alice')]).toEqual([
      'tok-1',
      'tok-1',
      'tok-1',
    ]);
    expect(await tokenOf('bob')).toBe('tok-2');
    expect(broker.calls).toEqual([
      { userId: 'alice', forceRefresh: false },
      { userId: 'bob', forceRefresh: false },
    ]);
  });

  it('does not hand out a token within 60 s of its expiry, nor keep one answered that close to it', async () => {
    const { clock, broker, tokenOf } = setup({ lifetimeSeconds: 120 });
    expect(await tokenOf('alice')).toBe('tok-1');
    clock.now = T0 + 59_000; // 61 s left: still handed out
    expect(await tokenOf('alice')).toBe('tok-1');
    clock.now = T0 + 60_000; // 60 s left: inside the margin
    expect(await tokenOf('alice')).toBe('tok-2');
    expect(broker.calls).toHaveLength(2);

    // The broker answers a token with 30 s left: used for this call, not kept for the next.
    broker.answerWith(() => ({
      ok: true,
      accessToken: `short-${broker.calls.length}`,
      expiresAt: Math.floor(clock.now / 1000) + 30,
      scopes: [],
      email: 'alice@example.com',
      hostedDomain: 'example.com',
    }));
    clock.now = T0 + 200_000;
    expect(await tokenOf('bob')).toBe('short-3');
    expect(await tokenOf('bob')).toBe('short-4');
  });

  it('coalesces concurrent misses for one person into one broker call', async () => {
    const { broker } = setup();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const slow: GoogleAccessTokens = {
      async get(userId, options) {
        await gate;
        return broker.get(userId, options);
      },
    };
    const stream = fakeStream();
    const coalescing = edgeGoogleAccessTokens({ broker: slow, stream });
    const answers = Promise.all(Array.from({ length: 8 }, () => coalescing.get('alice')));
    const other = coalescing.get('bob');
    release();
    const results = await answers;
    expect(new Set(results.map((result) => (result.ok ? result.accessToken : result.reason))).size).toBe(1);
    await other;
    expect(broker.calls.map((call) => call.userId).sort()).toEqual(['alice', 'bob']);
    expect(coalescing.size).toBe(2);
  });

  it('never keeps a refusal or a failure', async () => {
    const { broker, tokenOf } = setup();
    broker.answerWith(() => ({ ok: false, reason: 'GOOGLE_AUTH_REQUIRED' }));
    expect(await tokenOf('alice')).toBe('GOOGLE_AUTH_REQUIRED');
    broker.answerWith(() => ({ ok: false, reason: 'NOT_CONNECTED' }));
    expect(await tokenOf('alice')).toBe('NOT_CONNECTED');
    broker.answerWith(() => {
      throw new Error('auth unreachable');
    });
    await expect(tokenOf('alice')).rejects.toThrow('auth unreachable');
    broker.answerWith(undefined);
    expect(await tokenOf('alice')).toBe('tok-4');
    expect(await tokenOf('alice')).toBe('tok-4');
    expect(broker.calls).toHaveLength(4);
  });

  it('forceRefresh bypasses what is kept, reaches the broker, and its answer replaces the entry', async () => {
    const { broker, tokenOf } = setup();
    expect(await tokenOf('alice')).toBe('tok-1');
    expect(await tokenOf('alice', true)).toBe('tok-2');
    expect(broker.calls.at(-1)).toEqual({ userId: 'alice', forceRefresh: true });
    expect(await tokenOf('alice')).toBe('tok-2');
    // A forced refresh answered by a refusal leaves nothing behind: the refused token is not served.
    broker.answerWith(() => ({ ok: false, reason: 'GOOGLE_AUTH_REQUIRED' }));
    expect(await tokenOf('alice', true)).toBe('GOOGLE_AUTH_REQUIRED');
    expect(await tokenOf('alice')).toBe('GOOGLE_AUTH_REQUIRED');
    expect(broker.calls).toHaveLength(4);
  });

  it('forgets a person on their google_connection event, and everyone on a resync', async () => {
    const { broker, stream, tokenOf, tokens } = setup();
    await tokenOf('alice');
    await tokenOf('bob');
    await tokenOf('carol');
    stream.emit({ kind: 'api_key', keyId: 'key-1' });
    stream.emit({ kind: 'person', userId: 'alice', revokedAt: T0, coversUntil: T0 + 1 });
    expect(tokens.size).toBe(3);
    stream.emit({ kind: 'google_connection', userId: 'alice' });
    expect(tokens.size).toBe(2);
    expect(await tokenOf('alice')).toBe('tok-4');
    expect(await tokenOf('bob')).toBe('tok-2');
    stream.resync();
    expect(tokens.size).toBe(0);
    expect(await tokenOf('bob')).toBe('tok-5');
    expect(await tokenOf('carol')).toBe('tok-6');
    expect(broker.calls).toHaveLength(6);
  });

  it('does not keep a broker answer asked for before the person was forgotten', async () => {
    const { broker, stream } = setup();
    // Each broker call is answered when the test says, in the order it says.
    const gates: Array<() => void> = [];
    const slow: GoogleAccessTokens = {
      async get(userId, options) {
        const answer = broker.get(userId, options);
        await new Promise<void>((resolve) => gates.push(resolve));
        return answer;
      },
    };
    const edge = edgeGoogleAccessTokens({ broker: slow, stream });
    const before = edge.get('alice');
    stream.emit({ kind: 'google_connection', userId: 'alice' });
    // A call after the event does not join the one asked before it…
    const after = edge.get('alice');
    await new Promise((resolve) => setImmediate(resolve));
    expect(gates).toHaveLength(2);
    gates[1]!();
    expect(await after).toMatchObject({ accessToken: 'tok-2' });
    // …and the answer asked for before the event, arriving last, is handed out but not kept.
    gates[0]!();
    expect(await before).toMatchObject({ accessToken: 'tok-1' });
    expect(await edge.get('alice')).toMatchObject({ accessToken: 'tok-2' });
    expect(broker.calls).toHaveLength(2);
    expect(edge.size).toBe(1);
  });

  it('while the stream is not current, uses nothing kept and keeps nothing: every call asks the broker', async () => {
    const { broker, stream, tokenOf } = setup();
    expect(await tokenOf('alice')).toBe('tok-1');
    stream.current = false;
    expect(await tokenOf('alice')).toBe('tok-2');
    expect(await tokenOf('alice')).toBe('tok-3');
    stream.current = true;
    // Current again without a snapshot (a frozen stream let go): what it kept before still stands.
    expect(await tokenOf('alice')).toBe('tok-1');
    expect(broker.calls).toHaveLength(3);
  });

  it('tells how each lookup was answered: kept, joined, asked, forced', async () => {
    const { broker, stream } = setup();
    const outcomes: string[] = [];
    const edge = edgeGoogleAccessTokens({ broker, stream, onLookup: (outcome) => outcomes.push(outcome) });
    await Promise.all([edge.get('alice'), edge.get('alice')]);
    await edge.get('alice');
    await edge.get('alice', { forceRefresh: true });
    stream.current = false;
    await edge.get('alice');
    expect(outcomes).toEqual(['asked', 'joined', 'kept', 'forced', 'asked']);
  });

  it('is bounded: past maxEntries the oldest entry goes', async () => {
    const { broker, tokenOf, tokens } = setup({ maxEntries: 2 });
    await tokenOf('alice');
    await tokenOf('bob');
    await tokenOf('carol');
    expect(tokens.size).toBe(2);
    expect(await tokenOf('bob')).toBe('tok-2');
    expect(await tokenOf('carol')).toBe('tok-3');
    expect(await tokenOf('alice')).toBe('tok-4');
    expect(broker.calls).toHaveLength(4);
  });
});
