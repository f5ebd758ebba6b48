import type { drive_v3 } from 'googleapis';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { GoogleEmulator } from '../src/index.ts';
import {
  admin,
  driveFor,
  failureOf,
  oauthClientFor,
  SCOPES,
  sheetsFor,
  signIn,
  startTestEmulator,
  type TestClient,
} from './support/emulator.ts';

let emulator: GoogleEmulator;
let clientA: TestClient;
let clientB: TestClient;
let spreadsheetId: string;
let session: Awaited<ReturnType<typeof signIn>>;

beforeAll(async () => {
  ({ emulator, clientA, clientB } = await startTestEmulator());
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

describe('fault reasons (quota and server errors as Google answers them)', () => {
  type Body = {
    error: {
      code: number;
      status: string;
      message: string;
      errors: Array<{ reason: string; domain: string; message: string }>;
      details?: Array<{ '@type': string; reason: string; domain: string; metadata: Record<string, string> }>;
    };
  };
  const listFiles = () => driveFor(emulator, session.auth).files.list({}, NO_RETRY);

  it('answers Drive calls with 403 userRateLimitExceeded / rateLimitExceeded / dailyLimitExceeded, domain usageLimits', async () => {
    const cases = [
      ['userRateLimitExceeded', /^User Rate Limit Exceeded\./],
      ['rateLimitExceeded', /^Rate Limit Exceeded$/],
      ['dailyLimitExceeded', /^Daily Limit Exceeded$/],
    ] as const;
    for (const [reason, message] of cases) {
      const set = await admin(emulator, 'POST', '/faults', {
        match: 'drive.files.list',
        status: 403,
        reason,
      });
      expect(set.status).toBe(201);
      expect(set.body).toEqual({
        faults: [{ match: 'drive.files.list', status: 403, reason, remaining: 1 }],
      });
      const error = await failureOf<Body>(listFiles());
      expect(error.response?.status).toBe(403);
      expect(error.response?.headers.get('retry-after')).toBeNull();
      const body = error.response!.data.error;
      expect(body).toMatchObject({ code: 403, status: 'PERMISSION_DENIED' });
      expect(body.message).toMatch(message);
      expect(body.errors).toEqual([{ reason, domain: 'usageLimits', message: body.message }]);
      expect(body.details).toBeUndefined();
    }
    expect((await listFiles()).status).toBe(200);
  });

  it('sends Retry-After on a 403 quota error only when asked to', async () => {
    await admin(emulator, 'POST', '/faults', {
      match: 'drive.files',
      status: 403,
      reason: 'rateLimitExceeded',
      retryAfterSeconds: 5,
    });
    const error = await failureOf<Body>(listFiles());
    expect(error.response?.headers.get('retry-after')).toBe('5');
    expect(error.response?.data.error.errors[0]?.reason).toBe('rateLimitExceeded');
  });

  it('answers Drive with 429 rateLimitExceeded "Rate Limit Exceeded" and Retry-After 1 by default', async () => {
    await admin(emulator, 'POST', '/faults', { match: 'drive.files.list', status: 429 });
    const error = await failureOf<Body>(listFiles());
    expect(error.response?.status).toBe(429);
    expect(error.response?.headers.get('retry-after')).toBe('1');
    expect(error.response?.data.error).toMatchObject({
      code: 429,
      status: 'RESOURCE_EXHAUSTED',
      message: 'Rate Limit Exceeded',
      errors: [{ reason: 'rateLimitExceeded', domain: 'usageLimits' }],
    });
  });

  it('answers Sheets with 429 RESOURCE_EXHAUSTED naming the read or write quota, with an ErrorInfo detail', async () => {
    await admin(emulator, 'POST', '/faults', {
      match: 'sheets.spreadsheets.values',
      status: 429,
      reason: 'userRateLimitExceeded',
      count: 2,
    });
    const read = (await failureOf<Body>(readValues())).response!;
    expect(read.status).toBe(429);
    expect(read.data.error.message).toBe(
      "Quota exceeded for quota metric 'Read requests' and limit 'Read requests per minute per user' of service 'sheets.googleapis.com' for consumer 'project_number:0'.",
    );
    expect(read.data.error.errors[0]).toMatchObject({
      reason: 'userRateLimitExceeded',
      domain: 'usageLimits',
    });
    expect(read.data.error.details).toEqual([
      {
        '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
        reason: 'RATE_LIMIT_EXCEEDED',
        domain: 'googleapis.com',
        metadata: {
          service: 'sheets.googleapis.com',
          consumer: 'projects/0',
          quota_metric: 'sheets.googleapis.com/read_requests',
          quota_limit: 'ReadRequestsPerMinutePerUser',
        },
      },
    ]);
    const write = (
      await failureOf<Body>(
        sheetsFor(emulator, session.auth).spreadsheets.values.update(
          { spreadsheetId, range: 'Data!A1', valueInputOption: 'RAW', requestBody: { values: [['x']] } },
          NO_RETRY,
        ),
      )
    ).response!;
    expect(write.data.error.message).toContain("limit 'Write requests per minute per user'");
    expect(write.data.error.details?.[0]?.metadata.quota_limit).toBe('WriteRequestsPerMinutePerUser');
    expect(write.data.error.errors[0]?.reason).toBe('userRateLimitExceeded');
  });

  it('answers 500 backendError or internalError, 503 backendError, 403 insufficientPermissions', async () => {
    const cases = [
      [500, undefined, 'INTERNAL', 'backendError'],
      [500, 'internalError', 'INTERNAL', 'internalError'],
      [503, 'backendError', 'UNAVAILABLE', 'backendError'],
      [403, 'insufficientPermissions', 'PERMISSION_DENIED', 'insufficientPermissions'],
      [403, undefined, 'PERMISSION_DENIED', 'forbidden'],
      [401, 'authError', 'UNAUTHENTICATED', 'authError'],
    ] as const;
    for (const [status, reason, grpcStatus, expectedReason] of cases) {
      await admin(emulator, 'POST', '/faults', { match: 'sheets.spreadsheets.values.get', status, reason });
      const error = await failureOf<Body>(readValues());
      expect(error.response?.status, `${status} ${reason}`).toBe(status);
      expect(error.response?.data.error.status).toBe(grpcStatus);
      expect(error.response?.data.error.errors[0]?.reason).toBe(expectedReason);
    }
  });

  it('refuses a reason that does not go with the status, or without a status', async () => {
    const bad = [
      [
        { match: 'drive', status: 429, reason: 'dailyLimitExceeded' },
        /dailyLimitExceeded goes with status 403/,
      ],
      [{ match: 'drive', status: 503, reason: 'rateLimitExceeded' }, /goes with status 403 or 429/],
      [{ match: 'drive', reason: 'rateLimitExceeded', latencyMs: 10 }, /goes with status 403 or 429/],
      [{ match: 'drive', status: 403, reason: 'quotaSomething' }, /reason/],
      [{ match: 'drive', status: 500, reason: '' }, /reason/],
    ] as const;
    for (const [body, message] of bad) {
      const answer = await admin(emulator, 'POST', '/faults', body);
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(answer.body?.error_description).toMatch(message);
    }
    expect((await admin(emulator, 'GET', '/faults')).body).toEqual({ faults: [] });
  });
});

describe('GET /__emulator/stats', () => {
  interface Counters {
    attempts: number;
    responses: Record<string, number>;
    inFlight: number;
    maxInFlight: number;
  }
  interface Stats {
    methods: Record<string, Counters>;
    allMethods: Counters;
    tokenGrants: Record<string, { attempts: number; responses: Record<string, number> }>;
  }
  const stats = async () => {
    const answer = await admin(emulator, 'GET', '/stats');
    expect(answer.status).toBe(200);
    return answer.body as unknown as Stats;
  };
  const clearStats = async () => expect((await admin(emulator, 'DELETE', '/stats')).status).toBe(204);

  it('starts empty after a reset and counts the sign-in’s code grant', async () => {
    expect((await admin(emulator, 'POST', '/reset')).status).toBe(204);
    expect(await stats()).toEqual({
      methods: {},
      allMethods: { attempts: 0, responses: {}, inFlight: 0, maxInFlight: 0 },
      tokenGrants: {},
    });
    await signIn(emulator, clientA, { scopes: [SCOPES.driveReadonly] });
    expect((await stats()).tokenGrants).toEqual({
      authorization_code: { attempts: 1, responses: { '200': 1 } },
    });
  });

  it('counts each attempt and its status per method, retries included', async () => {
    await clearStats();
    await admin(emulator, 'POST', '/faults', {
      match: 'sheets.spreadsheets.values.get',
      status: 429,
      retryAfterSeconds: 0,
      count: 2,
    });
    // googleapis retries a 429 on a GET by itself: three attempts for one call.
    const retried = await sheetsFor(emulator, session.auth).spreadsheets.values.get({
      spreadsheetId,
      range: 'Data!A1:B1',
    });
    expect(retried.data.values).toEqual([['a', '1']]);
    await driveFor(emulator, session.auth).files.list();
    const seen = await stats();
    expect(seen.methods).toEqual({
      'drive.files.list': { attempts: 1, responses: { '200': 1 }, inFlight: 0, maxInFlight: 1 },
      'sheets.spreadsheets.values.get': {
        attempts: 3,
        responses: { '200': 1, '429': 2 },
        inFlight: 0,
        maxInFlight: 1,
      },
    });
    expect(seen.allMethods).toMatchObject({ attempts: 4, responses: { '200': 2, '429': 2 }, inFlight: 0 });
    expect(seen.tokenGrants).toEqual({});
  });

  it('shows how many calls were held at once, and none once they are answered', async () => {
    await clearStats();
    await admin(emulator, 'POST', '/faults', {
      match: 'sheets.spreadsheets.values.get',
      status: 503,
      latencyMs: 300,
      count: 3,
    });
    const held = [1, 2, 3].map(() => failureOf(readValues()));
    // While the latency holds them, the emulator reports all three in flight.
    let during: Counters | undefined;
    for (let i = 0; i < 50 && during?.inFlight !== 3; i += 1) {
      during = (await stats()).methods['sheets.spreadsheets.values.get'];
      if (during?.inFlight !== 3) await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(during).toMatchObject({ attempts: 3, inFlight: 3, maxInFlight: 3 });
    for (const error of await Promise.all(held)) expect(error.response?.status).toBe(503);
    expect((await stats()).methods['sheets.spreadsheets.values.get']).toEqual({
      attempts: 3,
      responses: { '503': 3 },
      inFlight: 0,
      maxInFlight: 3,
    });
  });

  it('shows that a 401 led to a real refresh-token grant (google-auth-library refreshes and retries)', async () => {
    await clearStats();
    await admin(emulator, 'POST', '/faults', { match: 'sheets.spreadsheets.values.get', status: 401 });
    // With an expiry date the library refreshes on a 401 only when told to.
    const auth = oauthClientFor(emulator, clientA, { forceRefreshOnFailure: true });
    auth.setCredentials(session.tokens);
    const { data } = await sheetsFor(emulator, auth).spreadsheets.values.get(
      { spreadsheetId, range: 'Data!A1:B1' },
      NO_RETRY,
    );
    expect(data.values).toEqual([['a', '1']]);
    expect(auth.credentials.access_token).not.toBe(session.tokens.access_token);
    const seen = await stats();
    expect(seen.methods['sheets.spreadsheets.values.get']?.responses).toEqual({ '200': 1, '401': 1 });
    expect(seen.tokenGrants).toEqual({ refresh_token: { attempts: 1, responses: { '200': 1 } } });
  });

  it('counts refused grants, unknown grant types and unknown API paths without new keys for hostile input', async () => {
    await clearStats();
    const token = (form: Record<string, string>) =>
      fetch(`${emulator.url}/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(form).toString(),
      });
    const client = { client_id: clientA.clientId, client_secret: clientA.clientSecret };
    expect((await token({ ...client, grant_type: 'refresh_token', refresh_token: 'nope' })).status).toBe(400);
    expect((await token({ ...client, grant_type: 'x'.repeat(10_000) })).status).toBe(400);
    expect((await token({ ...client })).status).toBe(400);
    expect((await token({ grant_type: 'refresh_token', client_id: 'who', client_secret: 'x' })).status).toBe(
      401,
    );
    expect((await fetch(`${emulator.url}/drive/v3/${'z'.repeat(500)}`)).status).toBe(404);
    const seen = await stats();
    expect(seen.tokenGrants).toEqual({
      refresh_token: { attempts: 2, responses: { '400': 1, '401': 1 } },
      other: { attempts: 2, responses: { '400': 2 } },
    });
    expect(Object.keys(seen.methods)).toEqual(['unknown']);
    expect(seen.methods.unknown?.responses).toEqual({ '404': 1 });
  });

  it('is cleared by POST /__emulator/reset and by DELETE /__emulator/stats', async () => {
    await readValues();
    expect((await stats()).allMethods.attempts).toBeGreaterThan(0);
    await clearStats();
    expect((await stats()).allMethods.attempts).toBe(0);
    await readValues();
    expect((await admin(emulator, 'POST', '/reset')).status).toBe(204);
    expect(await stats()).toMatchObject({ methods: {}, tokenGrants: {} });
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
        '/grants',
        { email: 'alice@example.com', clientId: 'nobody.apps.googleusercontent.com', scopes: ['openid'] },
      ],
      ['/grants', { email: 'nobody@example.com', clientId: 'x', scopes: ['openid'] }],
      ['/grants', { email: 'alice@example.com', clientId: 'x', scopes: [] }],
      ['/grants', { email: 'alice@example.com', clientId: 'x', scopes: ['has space'] }],
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

  it('seeds an earlier grant whose refresh token works like one from a code exchange', async () => {
    const seeded = await admin(emulator, 'POST', '/grants', {
      email: 'alice@example.com',
      clientId: clientA.clientId,
      scopes: ['openid', SCOPES.spreadsheets],
    });
    expect(seeded.status).toBe(201);
    const { refresh_token: refreshToken, scope, sub } = seeded.body as Record<string, string>;
    expect(refreshToken).toMatch(/^1\/\//);
    expect(sub).toMatch(/^1\d{20}$/);
    expect(scope).toBe(`openid ${SCOPES.spreadsheets}`);
    const client = oauthClientFor(emulator, clientA);
    client.setCredentials({ refresh_token: refreshToken });
    const values = await sheetsFor(emulator, client).spreadsheets.values.get({
      spreadsheetId,
      range: 'Data!A1:B1',
    });
    expect(values.data.values).toEqual([['a', '1']]);
    // Only what was granted: Drive is out of reach.
    expect((await failureOf(driveFor(emulator, client).files.list())).response?.status).toBe(403);
    // Another client cannot use it.
    const other = oauthClientFor(emulator, clientB);
    other.setCredentials({ refresh_token: refreshToken });
    expect((await failureOf(other.getAccessToken())).response?.data).toMatchObject({
      error: 'invalid_grant',
    });
  });

  it('answers /healthz', async () => {
    const response = await fetch(`${emulator.url}/healthz`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: 'ok' });
  });
});
