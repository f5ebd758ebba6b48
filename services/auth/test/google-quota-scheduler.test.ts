import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { createTestRedis, type TestRedis } from '@sheetgate/test-harness';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createMemoryQuotaScheduler,
  createRedisQuotaScheduler,
  GOOGLE_DEFAULT_QUOTAS,
  type GoogleQuotaScheduler,
  type GoogleQuotas,
  googleQuotas,
  type QuotaTurn,
} from '../src/google-quota/index.ts';

let redis: TestRedis;
beforeAll(async () => {
  redis = await createTestRedis();
});
afterAll(async () => {
  await redis?.close();
});

/** A scheduler under test and its clock: the in-process one's is fake, Redis's is real time. */
interface Subject {
  scheduler: GoogleQuotaScheduler;
  advance(ms: number): Promise<void>;
}

// Short enough for a test to wait out with Redis's real clock; the waiting hint's bound is long,
// so a waiter's place outlasts a slow machine's pauses between steps.
const WINDOW_MS = 400;
const MAX_HINT_MS = 10_000;

const quotasOf = (sheetsRead: { perProject: number; perUser: number }): GoogleQuotas => ({
  ...GOOGLE_DEFAULT_QUOTAS,
  sheets_read: sheetsRead,
});

const implementations: Array<[string, (quotas: GoogleQuotas) => Promise<Subject>]> = [
  [
    'in-process',
    async (quotas) => {
      let now = 1_000_000;
      return {
        scheduler: createMemoryQuotaScheduler(quotas, {
          now: () => now,
          windowMs: WINDOW_MS,
          maxProjectWaitHintMs: MAX_HINT_MS,
        }),
        advance: async (ms) => {
          now += ms;
        },
      };
    },
  ],
  [
    'redis',
    async (quotas) => {
      if (!redis.url) throw new Error('no Redis');
      return {
        scheduler: await createRedisQuotaScheduler({
          url: redis.url,
          quotas,
          keyPrefix: `test:${randomBytes(6).toString('hex')}`,
          windowMs: WINDOW_MS,
          maxProjectWaitHintMs: MAX_HINT_MS,
        }),
        advance: (ms) => sleep(ms),
      };
    },
  ],
];

const granted = (turn: QuotaTurn) => turn.granted;
const refusal = (turn: QuotaTurn) => (turn.granted ? 'granted' : turn.limitedBy);

async function take(scheduler: GoogleQuotaScheduler, person: string, times: number): Promise<QuotaTurn[]> {
  const turns: QuotaTurn[] = [];
  for (let i = 0; i < times; i++) turns.push(await scheduler.acquire(person, 'sheets_read'));
  return turns;
}

describe.each(implementations)('%s Google quota scheduler', (name, create) => {
  const subjects: Subject[] = [];
  const start = async (quotas: GoogleQuotas, skip: (note?: string) => void) => {
    if (name === 'redis' && !redis.url) skip('no Redis server for this run');
    const subject = await create(quotas);
    subjects.push(subject);
    return subject;
  };
  afterAll(async () => {
    for (const subject of subjects) await subject.scheduler.close();
  });

  it("grants a person's quota within the minute, then says when their oldest grant leaves it", async ({
    skip,
  }) => {
    const { scheduler, advance } = await start(quotasOf({ perProject: 100, perUser: 3 }), skip);
    expect((await take(scheduler, 'ada', 3)).every(granted)).toBe(true);
    const refused = await scheduler.acquire('ada', 'sheets_read');
    expect(refusal(refused)).toBe('person');
    expect(refused.granted === false && refused.retryAfterMs).toBeGreaterThan(0);
    expect(refused.granted === false && refused.retryAfterMs).toBeLessThanOrEqual(WINDOW_MS);
    // Another person, and another bucket of the same person, are not held back.
    expect(granted(await scheduler.acquire('bob', 'sheets_read'))).toBe(true);
    expect(granted(await scheduler.acquire('ada', 'sheets_write'))).toBe(true);
    // A refused request was not counted: once the minute has passed, the whole quota is back.
    await advance(WINDOW_MS + 50);
    expect((await take(scheduler, 'ada', 3)).every(granted)).toBe(true);
  });

  it("refuses everyone once the project's minute is spent", async ({ skip }) => {
    const { scheduler } = await start(quotasOf({ perProject: 4, perUser: 10 }), skip);
    expect((await take(scheduler, 'ada', 2)).every(granted)).toBe(true);
    expect((await take(scheduler, 'bob', 2)).every(granted)).toBe(true);
    const refused = await scheduler.acquire('cleo', 'sheets_read');
    expect(refusal(refused)).toBe('project');
    expect(refused.granted === false && refused.retryAfterMs).toBeLessThanOrEqual(WINDOW_MS);
  });

  it('lets a flood take only what others leave: a newcomer finds the reserve, a waiting person goes first', async ({
    skip,
  }) => {
    const { scheduler, advance } = await start(quotasOf({ perProject: 10, perUser: 10 }), skip);
    // Alone, the flood may take the minute but its last tenth (the newcomers' reserve).
    expect((await take(scheduler, 'flood', 9)).every(granted)).toBe(true);
    expect(refusal(await scheduler.acquire('flood', 'sheets_read'))).toBe('fair_share');
    // Someone arriving now gets the reserve at once.
    expect(granted(await scheduler.acquire('single', 'sheets_read'))).toBe(true);
    // The minute is full: the flood (past its share of 10 / 2 = 5) is refused; the single reader
    // (below it) is refused too, and now waits.
    expect(refusal(await scheduler.acquire('flood', 'sheets_read'))).toBe('project');
    expect(refusal(await scheduler.acquire('single', 'sheets_read'))).toBe('project');
    expect((await scheduler.people()).sheets_read).toEqual({ active: 2, waiting: 1 });
    expect((await scheduler.people()).sheets_write).toEqual({ active: 0, waiting: 0 });
    await advance(WINDOW_MS + 50);
    // Every grant has left the minute. The flood takes up to its share (the waiting reader counts)…
    expect((await take(scheduler, 'flood', 5)).every(granted)).toBe(true);
    // …and no further while someone below their share waits.
    expect(refusal(await scheduler.acquire('flood', 'sheets_read'))).toBe('fair_share');
    // The waiting reader gets their turn at once.
    expect(granted(await scheduler.acquire('single', 'sheets_read'))).toBe(true);
    // With nobody waiting, the flood uses what is left up to the reserve: no quota idles.
    expect((await take(scheduler, 'flood', 3)).every(granted)).toBe(true);
    expect(refusal(await scheduler.acquire('flood', 'sheets_read'))).toBe('fair_share');
    // The reserve is the single reader's (1 of 10 / 3 = 4 they would have if one more came).
    expect(granted(await scheduler.acquire('single', 'sheets_read'))).toBe(true);
    expect(refusal(await scheduler.acquire('flood', 'sheets_read'))).toBe('project');
  });

  it('when the minute is full, someone past their share is refused like anyone else', async ({ skip }) => {
    const { scheduler } = await start(quotasOf({ perProject: 6, perUser: 6 }), skip);
    // Both ask in the same minute, so the share is 3 each.
    expect(granted(await scheduler.acquire('one', 'sheets_read'))).toBe(true);
    expect(granted(await scheduler.acquire('two', 'sheets_read'))).toBe(true);
    expect((await take(scheduler, 'one', 3)).every(granted)).toBe(true);
    expect(granted(await scheduler.acquire('two', 'sheets_read'))).toBe(true);
    // The minute is full. `one` (4, past its share) is refused without waiting; `two` (2, below)
    // waits.
    expect(refusal(await scheduler.acquire('one', 'sheets_read'))).toBe('project');
    expect(refusal(await scheduler.acquire('two', 'sheets_read'))).toBe('project');
  });

  it('grants a lease of turns only while the person and the project use under half their minute; given-back turns count for nobody', async ({
    skip,
  }) => {
    const { scheduler } = await start(quotasOf({ perProject: 40, perUser: 20 }), skip);
    // Half the person's minute is 10, half the project's (less its reserve of 4) is 18.
    expect(await scheduler.acquire('ada', 'sheets_read', 5)).toEqual({ granted: true, turns: 5 });
    expect(await scheduler.acquire('ada', 'sheets_read', 5)).toEqual({ granted: true, turns: 5 });
    // A third lease would pass half the person's minute: one turn.
    expect(await scheduler.acquire('ada', 'sheets_read', 5)).toEqual({ granted: true, turns: 1 });
    // Giving back 10 leaves the person with 1 of 20: the whole minute but that one is theirs again.
    await scheduler.giveBack('ada', 'sheets_read', 10);
    expect((await take(scheduler, 'ada', 19)).every(granted)).toBe(true);
    expect(refusal(await scheduler.acquire('ada', 'sheets_read'))).toBe('person');
    // The project's count fell with the person's: bob finds 20 of its 40 turns.
    expect((await take(scheduler, 'bob', 20)).filter(granted)).toHaveLength(16);
  });

  it("closes a bucket for as long as Google's Retry-After says, for the project or one person", async ({
    skip,
  }) => {
    const { scheduler, advance } = await start(quotasOf({ perProject: 100, perUser: 100 }), skip);
    await scheduler.exhausted('ada', 'sheets_read', true, 1);
    const held = await scheduler.acquire('ada', 'sheets_read');
    expect(refusal(held)).toBe('google');
    expect(held.granted === false && held.retryAfterMs).toBeLessThanOrEqual(1_000);
    // Only that person's reads.
    expect(granted(await scheduler.acquire('bob', 'sheets_read'))).toBe(true);
    expect(granted(await scheduler.acquire('ada', 'sheets_write'))).toBe(true);
    await advance(1_050);
    expect(granted(await scheduler.acquire('ada', 'sheets_read'))).toBe(true);
    // The project's: everyone's reads, for Google's Retry-After; a shorter one reported after a
    // longer one does not shorten the hold.
    await scheduler.exhausted('bob', 'sheets_read', false, 30);
    await scheduler.exhausted('bob', 'sheets_read', false, 1);
    const projectHeld = await scheduler.acquire('cleo', 'sheets_read');
    expect(refusal(projectHeld)).toBe('google');
    expect(projectHeld.granted === false && projectHeld.retryAfterMs).toBeGreaterThan(1_000);
    expect(granted(await scheduler.acquire('cleo', 'sheets_write'))).toBe(true);
  });
});

describe('GOOGLE_QUOTAS', () => {
  it("starts from Google's documented defaults and takes the operator's overrides", () => {
    expect(googleQuotas()).toEqual({
      sheets_read: { perProject: 300, perUser: 60 },
      sheets_write: { perProject: 300, perUser: 60 },
      drive: { perProject: 12_000, perUser: 12_000 },
    });
    expect(
      googleQuotas({ sheetsReadsPerMinutePerProject: 1_200, driveRequestsPerMinutePerUser: 50 }),
    ).toEqual({
      sheets_read: { perProject: 1_200, perUser: 60 },
      sheets_write: { perProject: 300, perUser: 60 },
      drive: { perProject: 12_000, perUser: 50 },
    });
    // The defaults themselves are never changed by an override.
    expect(GOOGLE_DEFAULT_QUOTAS.sheets_read.perProject).toBe(300);
  });
});
