import { describe, expect, it } from 'vitest';
import { createUserConcurrency } from '../src/google/user-concurrency.ts';

/** A piece of work that runs until released, recording that it started. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { open, work: () => opened };
}

describe('per-user Google slots', () => {
  it('runs `limit` calls of one user at once; the next waits for a slot; other users do not wait', async () => {
    const withSlot = createUserConcurrency({ limit: 2 });
    const signal = new AbortController().signal;
    const started: string[] = [];
    const gates = [gate(), gate(), gate()];
    const calls = gates.map((each, index) =>
      withSlot('alice', signal, async () => {
        started.push(`alice ${index}`);
        await each.work();
      }),
    );
    await withSlot('bob', signal, async () => void started.push('bob'));
    expect(started).toEqual(['alice 0', 'alice 1', 'bob']);
    gates[0]!.open();
    await calls[0];
    await new Promise((resolve) => setImmediate(resolve));
    expect(started).toEqual(['alice 0', 'alice 1', 'bob', 'alice 2']);
    gates[1]!.open();
    gates[2]!.open();
    await Promise.all(calls);
  });

  it('refuses a call at once when the queue is full', async () => {
    const withSlot = createUserConcurrency({ limit: 1, maxWaiting: 1 });
    const signal = new AbortController().signal;
    const running = gate();
    const first = withSlot('alice', signal, running.work);
    const second = withSlot('alice', signal, async () => 'second');
    await expect(withSlot('alice', signal, async () => 'third')).rejects.toThrow(/Too many Google calls/);
    running.open();
    await first;
    expect(await second).toBe('second');
  });

  it('refuses a call that waited too long, and one whose request was cancelled', async () => {
    const withSlot = createUserConcurrency({ limit: 1, maxWaitMs: 50 });
    const running = gate();
    const first = withSlot('alice', new AbortController().signal, running.work);
    await expect(withSlot('alice', new AbortController().signal, async () => 'late')).rejects.toThrow(
      /Too many Google calls/,
    );
    const cancel = new AbortController();
    const cancelled = withSlot('alice', cancel.signal, async () => 'never');
    cancel.abort();
    await expect(cancelled).rejects.toThrow(/cancelled/);
    running.open();
    await first;
    // Neither left a waiter behind: the next call gets the slot at once.
    expect(await withSlot('alice', new AbortController().signal, async () => 'free')).toBe('free');
  });
});
