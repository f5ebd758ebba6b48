import { describe, expect, it, vi } from 'vitest';
import { ToolError } from '../src/errors/tool-error.ts';
import { quotaBucketOf } from '../src/google/quota-buckets.ts';
import { createQuotaGate, type GoogleQuotaAuthority, type QuotaTurn } from '../src/google/quota-gate.ts';

// The MCP side of Google's quota: how a request waits for its turn (auth's answers scripted here;
// the real service answers them in google-quota.test.ts and auth's google-quota-scheduler.test.ts),
// and which bucket a request spends.

/** Auth answering `turns` in order, on a clock the gate's sleeps advance. */
function scripted(turns: Array<QuotaTurn | Error>) {
  let now = 0;
  const asked: number[] = [];
  const givenBack: number[] = [];
  const authority: GoogleQuotaAuthority = {
    async acquire(_user, _bucket, requested) {
      expect(requested).toBe(5);
      asked.push(now);
      const next = turns.shift();
      if (!next) throw new Error('asked once too often');
      if (next instanceof Error) throw next;
      return next;
    },
    async giveBack(_user, _bucket, count) {
      givenBack.push(count);
    },
    async exhausted() {},
  };
  const events: string[] = [];
  const gate = createQuotaGate({
    authority,
    maxWaitMs: 10_000,
    now: () => now,
    sleep: async (ms, signal) => {
      if (signal.aborted) throw new ToolError('the request was cancelled');
      now += ms;
    },
    onTurn: (bucket, outcome, waited) => events.push(`${bucket} ${outcome} ${waited}`),
    onWaiting: (bucket, change) => events.push(`${bucket} waiting ${change > 0 ? '+1' : '-1'}`),
  });
  return {
    gate,
    asked,
    events,
    givenBack,
    advance: (ms: number) => {
      now += ms;
    },
  };
}

const refused = (
  retryAfterMs: number,
  limitedBy: 'person' | 'project' | 'fair_share' | 'google' = 'project',
) => ({ granted: false, retryAfterMs, limitedBy }) as const;
const NOT_CANCELLED = new AbortController().signal;
const ONE = { granted: true, turns: 1, validForMs: 0 } as const;

describe('waiting for a turn', () => {
  it('goes at once when granted, and after the waits auth names otherwise', async () => {
    const { gate, asked, events } = scripted([ONE, refused(300), refused(700), ONE]);
    await gate.waitForTurn('ada', 'sheets_read', NOT_CANCELLED);
    await gate.waitForTurn('ada', 'sheets_read', NOT_CANCELLED);
    expect(asked).toEqual([0, 0, 300, 1_000]);
    expect(events).toEqual([
      'sheets_read at_once 0',
      'sheets_read waiting +1',
      'sheets_read after_wait 1000',
      'sheets_read waiting -1',
    ]);
  });

  it("spends a lease's turns without asking, and gives back what is left when its time is up", async () => {
    vi.useFakeTimers();
    try {
      const { gate, asked, events, givenBack, advance } = scripted([
        { granted: true, turns: 5, validForMs: 1_000 },
        { granted: true, turns: 3, validForMs: 1_000 },
        ONE,
      ]);
      for (let i = 0; i < 3; i++) await gate.waitForTurn('ada', 'sheets_read', NOT_CANCELLED);
      expect(asked).toEqual([0]);
      expect(events).toEqual(['sheets_read at_once 0', 'sheets_read at_once 0', 'sheets_read at_once 0']);
      // Another person, and another bucket, have leases of their own.
      await gate.waitForTurn('ada', 'sheets_write', NOT_CANCELLED);
      expect(asked).toHaveLength(2);
      // Two turns are left of the first lease; when its time is up they go back to auth.
      advance(1_000);
      vi.advanceTimersByTime(1_000);
      expect(givenBack).toEqual([2, 2]);
      // A lease that has run out is never spent: the next request asks auth again.
      await gate.waitForTurn('ada', 'sheets_read', NOT_CANCELLED);
      expect(asked).toHaveLength(3);
    } finally {
      vi.useRealTimers();
    }
  });

  it('ends the leases of the bucket Google refused, so none of their turns go to Google', async () => {
    const { gate, asked, givenBack } = scripted([
      { granted: true, turns: 5, validForMs: 60_000 },
      { granted: true, turns: 5, validForMs: 60_000 },
      ONE,
      ONE,
    ]);
    await gate.waitForTurn('ada', 'sheets_read', NOT_CANCELLED);
    await gate.waitForTurn('bob', 'sheets_read', NOT_CANCELLED);
    // Google says ada's minute is spent: ada's lease ends, bob's stays.
    gate.googleRefused('ada', 'sheets_read', true, 30);
    expect(givenBack).toEqual([4]);
    await gate.waitForTurn('bob', 'sheets_read', NOT_CANCELLED);
    expect(asked).toHaveLength(2);
    await gate.waitForTurn('ada', 'sheets_read', NOT_CANCELLED);
    expect(asked).toHaveLength(3);
    // The project's minute: every lease of the bucket ends.
    gate.googleRefused('ada', 'sheets_read', false, 30);
    expect(givenBack).toEqual([4, 3]);
    await gate.waitForTurn('bob', 'sheets_read', NOT_CANCELLED);
    expect(asked).toHaveLength(4);
  });

  it('tells the client once that it waits, and why', async () => {
    const { gate } = scripted([refused(500, 'fair_share'), refused(500, 'fair_share'), ONE]);
    const notes: string[] = [];
    await gate.waitForTurn('ada', 'sheets_write', NOT_CANCELLED, (message) => notes.push(message));
    expect(notes).toEqual(["Waiting for a turn at Google's per-minute quota of Sheets writes (up to 10 s)"]);
  });

  it('does not wait past its deadline: it says at once when to try again, naming the limit', async () => {
    const cases: Array<[QuotaTurn, RegExp]> = [
      [
        refused(42_000, 'person'),
        /^Google's per-minute quota of Sheets reads for your account is used up\. Try again in 42 s\.$/,
      ],
      [refused(61_000, 'project'), /shares among everyone it serves is in use\. Try again in 61 s\.$/],
      [
        refused(30_000, 'google'),
        /^Google asked Sheetgate to slow down its Sheets reads\. Try again in 30 s\.$/,
      ],
    ];
    for (const [turn, message] of cases) {
      const { gate, asked, events } = scripted([turn]);
      await expect(gate.waitForTurn('ada', 'sheets_read', NOT_CANCELLED)).rejects.toThrow(message);
      expect(asked).toEqual([0]);
      expect(events).toEqual(['sheets_read gave_up 0']);
    }
  });

  it('gives up once the waits so far and the next would pass the deadline, saying how long it waited', async () => {
    const { gate, events } = scripted([refused(4_000), refused(4_000), refused(4_000)]);
    await expect(gate.waitForTurn('ada', 'drive', NOT_CANCELLED)).rejects.toThrow(
      /Drive requests .* in use\. Sheetgate waited 8 s for a turn\. Try again in 4 s\.$/,
    );
    expect(events.at(-2)).toBe('drive gave_up 8000');
    expect(events.filter((event) => event.includes('waiting'))).toEqual([
      'drive waiting +1',
      'drive waiting -1',
    ]);
  });

  it('lets the request go unscheduled when auth cannot be asked (Google stays the authority)', async () => {
    const { gate, events } = scripted([new Error('UNAVAILABLE: no connection established')]);
    await gate.waitForTurn('ada', 'sheets_read', NOT_CANCELLED);
    expect(events).toEqual(['sheets_read unscheduled 0']);
  });

  it('stops waiting when the call is cancelled', async () => {
    const { gate, events } = scripted([refused(500), ONE]);
    const cancelled = new AbortController();
    cancelled.abort();
    await expect(gate.waitForTurn('ada', 'sheets_read', cancelled.signal)).rejects.toThrow(
      'the request was cancelled',
    );
    expect(events).toEqual(['sheets_read waiting +1', 'sheets_read waiting -1']);
  });
});

describe('which quota a request spends', () => {
  it.each([
    ['GET', 'https://sheets.googleapis.com/v4/spreadsheets/abc/values/A1', 'sheets_read'],
    ['GET', 'https://sheets.googleapis.com/v4/spreadsheets/abc?fields=sheets', 'sheets_read'],
    ['POST', 'https://sheets.googleapis.com/v4/spreadsheets/abc/values:batchGetByDataFilter', 'sheets_read'],
    ['POST', 'https://sheets.googleapis.com/v4/spreadsheets/abc:getByDataFilter', 'sheets_read'],
    ['POST', 'https://sheets.googleapis.com/v4/spreadsheets/abc:batchUpdate', 'sheets_write'],
    ['PUT', 'https://sheets.googleapis.com/v4/spreadsheets/abc/values/A1', 'sheets_write'],
    ['POST', 'https://sheets.googleapis.com/v4/spreadsheets', 'sheets_write'],
    ['GET', 'https://www.googleapis.com/drive/v3/files', 'drive'],
    ['POST', 'https://www.googleapis.com/upload/drive/v3/files?uploadType=multipart', 'drive'],
    ['GET', 'http://127.0.0.1:9999/drive/v3/files/abc/export', 'drive'],
    ['POST', 'https://oauth2.googleapis.com/token', undefined],
    ['GET', 'not a url', undefined],
  ])('%s %s → %s', (method, url, bucket) => {
    expect(quotaBucketOf(method, url)).toBe(bucket);
  });
});
