import type { drive_v3 } from 'googleapis';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { GoogleEmulator } from '../src/index.ts';
import {
  admin,
  driveFor,
  failureOf,
  SCOPES,
  sheetsFor,
  signIn,
  startTestEmulator,
  type TestClient,
} from './support/emulator.ts';

let emulator: GoogleEmulator;
let clientA: TestClient;
let spreadsheetId: string;
let session: Awaited<ReturnType<typeof signIn>>;

beforeAll(async () => {
  ({ emulator, clientA } = await startTestEmulator());
});
beforeEach(async () => {
  expect((await admin(emulator, 'POST', '/reset')).status).toBe(204);
  session = await signIn(emulator, clientA, {
    scopes: ['openid', SCOPES.spreadsheets, SCOPES.driveReadonly],
  });
  const seeded = await admin(emulator, 'POST', '/seed', {
    email: 'alice@example.com',
    files: [{ name: 'Sheet', sheets: [{ title: 'Data', values: [['a', 1]] }] }],
  });
  spreadsheetId = (seeded.body as { files: drive_v3.Schema$File[] }).files[0]!.id!;
});
afterAll(async () => {
  await emulator?.close();
});

// googleapis retries 429 and 5xx on idempotent calls by default; the fault tests look at each answer.
const NO_RETRY = { retry: false };
const readValues = () =>
  sheetsFor(emulator, session.auth).spreadsheets.values.get({ spreadsheetId, range: 'Data!A1:B1' }, NO_RETRY);

describe('fault injection', () => {
  it('answers the next matching calls with 429 RESOURCE_EXHAUSTED and Retry-After, then recovers', async () => {
    const set = await admin(emulator, 'POST', '/faults', {
      match: 'sheets.spreadsheets.values.get',
      status: 429,
      retryAfterSeconds: 7,
      count: 2,
    });
    expect(set.status).toBe(201);
    for (let i = 0; i < 2; i += 1) {
      const error = await failureOf(readValues());
      expect(error.response?.status).toBe(429);
      expect(error.response?.headers.get('retry-after')).toBe('7');
      expect(error.response?.data.error).toMatchObject({ code: 429, status: 'RESOURCE_EXHAUSTED' });
      expect(error.response?.data.error.errors[0]?.reason).toBe('rateLimitExceeded');
    }
    expect((await readValues()).data.values).toEqual([['a', '1']]);
  });

  it('aims at one method only', async () => {
    await admin(emulator, 'POST', '/faults', { match: 'drive.files.list', status: 503 });
    expect((await readValues()).status).toBe(200);
    const error = await failureOf(driveFor(emulator, session.auth).files.list({}, NO_RETRY));
    expect(error.response?.status).toBe(503);
    expect(error.response?.data.error.status).toBe('UNAVAILABLE');
    expect((await driveFor(emulator, session.auth).files.list({}, NO_RETRY)).status).toBe(200);
  });

  it('is ridden out by the client library’s own retry when the count runs out', async () => {
    await admin(emulator, 'POST', '/faults', {
      match: 'sheets.spreadsheets.values.get',
      status: 503,
      count: 1,
    });
    const retried = await sheetsFor(emulator, session.auth).spreadsheets.values.get({
      spreadsheetId,
      range: 'Data!A1:B1',
    });
    expect(retried.data.values).toEqual([['a', '1']]);
    expect((await admin(emulator, 'GET', '/faults')).body).toEqual({ faults: [] });
  });

  it('matches a path regex, adds latency, and is cleared by DELETE', async () => {
    await admin(emulator, 'POST', '/faults', { match: '^/v4/spreadsheets/[^/]+/values/', latencyMs: 300 });
    const started = performance.now();
    expect((await readValues()).status).toBe(200);
    expect(performance.now() - started).toBeGreaterThanOrEqual(290);

    await admin(emulator, 'POST', '/faults', { match: '^/v4/', status: 500, count: 100 });
    expect((await failureOf(readValues())).response?.status).toBe(500);
    expect((await admin(emulator, 'DELETE', '/faults')).status).toBe(204);
    expect((await readValues()).status).toBe(200);
  });
});

describe('admin API', () => {
  it('refuses bad input with a 400 JSON answer', async () => {
    const bad: Array<[string, unknown]> = [
      ['/faults', '{not json'],
      ['/faults', { match: 'drive.files.list', status: 418 }],
      ['/faults', { match: '(', status: 500 }],
      ['/faults', { match: 'drive.files.list' }],
      ['/faults', { match: 'drive.files.list', status: 429, count: 0 }],
      ['/faults', { match: 'drive.files.list', status: 429, surprise: true }],
      ['/revoke', {}],
      ['/revoke', { email: 'not-an-email' }],
      ['/revoke', { email: 'nobody@example.com' }],
      ['/seed', { email: 'alice@example.com', files: [] }],
      [
        '/seed',
        { email: 'alice@example.com', files: [{ name: 'x', mimeType: 'text/plain', values: [['a']] }] },
      ],
      [
        '/seed',
        {
          email: 'alice@example.com',
          files: [{ name: 'x', contentBase64: 'aGk=', mimeType: 'application/vnd.google-apps.spreadsheet' }],
        },
      ],
    ];
    for (const [path, body] of bad) {
      const answer = await admin(emulator, 'POST', path, body);
      expect(answer.status, `${path} ${JSON.stringify(body)}`).toBe(400);
      expect(answer.body).toMatchObject({ error: 'invalid_request' });
      expect(typeof answer.body?.error_description).toBe('string');
    }
  });

  it('seeds converted files from base64 bytes', async () => {
    const seeded = await admin(emulator, 'POST', '/seed', {
      email: 'alice@example.com',
      files: [
        {
          name: 'From csv',
          mimeType: 'application/vnd.google-apps.spreadsheet',
          contentBase64: Buffer.from('x,y\n1,2\n').toString('base64'),
          sourceMimeType: 'text/csv',
        },
      ],
    });
    expect(seeded.status).toBe(201);
    const id = (seeded.body as { files: drive_v3.Schema$File[] }).files[0]!.id!;
    const values = await sheetsFor(emulator, session.auth).spreadsheets.values.get({
      spreadsheetId: id,
      range: 'A1:B2',
    });
    expect(values.data.values).toEqual([
      ['x', 'y'],
      ['1', '2'],
    ]);
  });

  it('resets files, grants and faults', async () => {
    await admin(emulator, 'POST', '/faults', { match: 'drive', status: 500, count: 5 });
    expect((await admin(emulator, 'POST', '/reset')).status).toBe(204);
    expect((await failureOf(readValues())).response?.status).toBe(401);
    const fresh = await signIn(emulator, clientA, { scopes: [SCOPES.driveReadonly] });
    const { data } = await driveFor(emulator, fresh.auth).files.list();
    expect(data.files).toEqual([]);
  });

  it('answers /healthz', async () => {
    const response = await fetch(`${emulator.url}/healthz`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: 'ok' });
  });
});
