import type { drive_v3 } from 'googleapis';
import type { Context } from 'koa';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { QuotaEnforcer, type QuotaLimits } from '../src/admin/quotas.ts';
import type { GoogleEmulator } from '../src/index.ts';
import {
  admin,
  failureOf,
  SCOPES,
  sheetsFor,
  signIn,
  startTestEmulator,
  type TestClient,
} from './support/emulator.ts';

// The Sheets quotas the emulator enforces once set (POST /__emulator/quotas), seen through
// googleapis as a client of Google sees them: 429 RESOURCE_EXHAUSTED with Google's body and reason,
// per project and per person, reads and writes apart.

let emulator: GoogleEmulator;
let client: TestClient;
let alice: Awaited<ReturnType<typeof signIn>>;
let bob: Awaited<ReturnType<typeof signIn>>;
let alicesSheet: string;
let bobsSheet: string;

beforeAll(async () => {
  ({ emulator, clientA: client } = await startTestEmulator());
});
beforeEach(async () => {
  expect((await admin(emulator, 'POST', '/reset')).status).toBe(204);
  const scopes = ['openid', SCOPES.spreadsheets];
  alice = await signIn(emulator, client, { account: 'alice@example.com', scopes });
  bob = await signIn(emulator, client, { account: 'bob@example.com', scopes });
  const seed = async (email: string) =>
    (
      (await admin(emulator, 'POST', '/seed', { email, files: [{ name: 'Q', values: [['a', 1]] }] }))
        .body as { files: drive_v3.Schema$File[] }
    ).files[0]!.id!;
  [alicesSheet, bobsSheet] = [await seed('alice@example.com'), await seed('bob@example.com')];
});
afterAll(async () => {
  await emulator?.close();
});

// googleapis retries 429 by default; these tests look at each answer.
const NO_RETRY = { retry: false };
const read = (who: typeof alice, spreadsheetId: string) =>
  sheetsFor(emulator, who.auth).spreadsheets.values.get({ spreadsheetId, range: 'Sheet1!A1:B1' }, NO_RETRY);
const write = (who: typeof alice, spreadsheetId: string) =>
  sheetsFor(emulator, who.auth).spreadsheets.values.update(
    { spreadsheetId, range: 'Sheet1!A1', valueInputOption: 'RAW', requestBody: { values: [['b']] } },
    NO_RETRY,
  );

describe('Sheets quotas', () => {
  it('are unlimited until set; GET answers what was set', async () => {
    expect(await admin(emulator, 'GET', '/quotas')).toEqual({ status: 200, body: {} });
    for (let i = 0; i < 30; i += 1) expect((await read(alice, alicesSheet)).status).toBe(200);
    const set = await admin(emulator, 'POST', '/quotas', {
      readsPerMinutePerUser: 5,
      writesPerMinutePerProject: 9,
    });
    expect(set).toEqual({ status: 200, body: { readsPerMinutePerUser: 5, writesPerMinutePerProject: 9 } });
    expect((await admin(emulator, 'GET', '/quotas')).body).toEqual({
      readsPerMinutePerUser: 5,
      writesPerMinutePerProject: 9,
    });
  });

  it('refuse a person past their reads per minute with 429 userRateLimitExceeded; others still read', async () => {
    await admin(emulator, 'POST', '/quotas', { readsPerMinutePerUser: 3 });
    for (let i = 0; i < 3; i += 1) expect((await read(alice, alicesSheet)).status).toBe(200);
    const error = await failureOf(read(alice, alicesSheet));
    expect(error.response?.status).toBe(429);
    expect(error.response?.data.error).toMatchObject({
      code: 429,
      status: 'RESOURCE_EXHAUSTED',
      message: expect.stringContaining("limit 'Read requests per minute per user'"),
    });
    expect(error.response?.data.error.errors[0]?.reason).toBe('userRateLimitExceeded');
    const retryAfter = Number(error.response?.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    // Writes count apart, and bob has a minute of his own.
    expect((await write(alice, alicesSheet)).status).toBe(200);
    expect((await read(bob, bobsSheet)).status).toBe(200);
  });

  it('share the project minute between people: past it, everyone gets 429 rateLimitExceeded', async () => {
    await admin(emulator, 'POST', '/quotas', { writesPerMinutePerProject: 4, writesPerMinutePerUser: 3 });
    for (let i = 0; i < 3; i += 1) expect((await write(alice, alicesSheet)).status).toBe(200);
    expect((await failureOf(write(alice, alicesSheet))).response?.data.error.errors[0]?.reason).toBe(
      'userRateLimitExceeded',
    );
    expect((await write(bob, bobsSheet)).status).toBe(200);
    const error = await failureOf(write(bob, bobsSheet));
    expect(error.response?.status).toBe(429);
    expect(error.response?.data.error.message).toContain("limit 'Write requests per minute'");
    expect(error.response?.data.error.errors[0]?.reason).toBe('rateLimitExceeded');
    // A refused call is not counted, and reads are another quota.
    expect((await read(bob, bobsSheet)).status).toBe(200);
    // The write refused changed nothing.
    expect((await read(bob, bobsSheet)).data.values).toEqual([['b', '1']]);
  });

  it('start afresh when set again, and are lifted by null, by an empty body and by reset', async () => {
    await admin(emulator, 'POST', '/quotas', { readsPerMinutePerUser: 1 });
    await read(alice, alicesSheet);
    expect((await failureOf(read(alice, alicesSheet))).response?.status).toBe(429);
    await admin(emulator, 'POST', '/quotas', { readsPerMinutePerUser: 1 });
    expect((await read(alice, alicesSheet)).status).toBe(200);
    await admin(emulator, 'POST', '/quotas', { readsPerMinutePerUser: null });
    for (let i = 0; i < 5; i += 1) expect((await read(alice, alicesSheet)).status).toBe(200);
    await admin(emulator, 'POST', '/quotas', { readsPerMinutePerUser: 1 });
    await admin(emulator, 'POST', '/quotas', {});
    for (let i = 0; i < 3; i += 1) expect((await read(alice, alicesSheet)).status).toBe(200);
    await admin(emulator, 'POST', '/quotas', { readsPerMinutePerUser: 1 });
    await admin(emulator, 'POST', '/reset');
    expect((await admin(emulator, 'GET', '/quotas')).body).toEqual({});
  });

  it.each([
    ['an unknown quota', { readsPerDay: 5 }],
    ['zero', { readsPerMinutePerUser: 0 }],
    ['a negative count', { writesPerMinutePerProject: -1 }],
    ['a fraction', { readsPerMinutePerProject: 1.5 }],
    ['a string', { readsPerMinutePerUser: '5' }],
    ['an array', [5]],
    ['not JSON', '{"readsPerMinutePerUser":'],
  ])('refuse %s with 400 and keep what was set', async (_case, body) => {
    await admin(emulator, 'POST', '/quotas', { readsPerMinutePerUser: 7 });
    const refused = await admin(emulator, 'POST', '/quotas', body);
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ error: 'invalid_request' });
    expect((await admin(emulator, 'GET', '/quotas')).body).toEqual({ readsPerMinutePerUser: 7 });
  });
});

describe('the rolling minute', () => {
  /** The enforcer's middleware on a bare request of `method` to a Sheets path, at `clock.now`. */
  function harness(limits: QuotaLimits) {
    const clock = { now: 1_000_000 };
    const quotas = new QuotaEnforcer(
      { findAccessToken: () => ({ email: 'alice@example.com' }) as never },
      () => clock.now,
    );
    quotas.set(limits);
    const middleware = quotas.middleware();
    const call = async (method: string) => {
      const ctx = {
        path: '/v4/spreadsheets/s/values/A1',
        method,
        query: {},
        get: () => 'Bearer t',
      } as unknown as Context;
      try {
        await middleware(ctx, async () => {});
        return { ok: true as const };
      } catch (error) {
        return {
          ok: false as const,
          retryAfter: Number((error as { headers: Record<string, string> }).headers['retry-after']),
        };
      }
    };
    return { clock, call };
  }

  it('makes room as each request turns a minute old, saying how long to wait', async () => {
    const { clock, call } = harness({ readsPerMinutePerUser: 2 });
    expect(await call('GET')).toEqual({ ok: true });
    clock.now += 20_000;
    expect(await call('GET')).toEqual({ ok: true });
    clock.now += 10_000;
    // The first read leaves the minute 30 s from now.
    expect(await call('GET')).toEqual({ ok: false, retryAfter: 30 });
    clock.now += 30_001;
    expect(await call('GET')).toEqual({ ok: true });
    expect(await call('GET')).toEqual({ ok: false, retryAfter: 20 });
  });
});
