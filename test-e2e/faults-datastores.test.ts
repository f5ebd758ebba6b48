import { GrpcStatus, isServiceError } from '@sheetgate/proto';
import {
  type PrivateServer,
  privateServersMissing,
  type Stack,
  startPrivatePostgres,
  startPrivateRedis,
  startStack,
} from '@sheetgate/test-harness';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  accountEmails,
  type ConnectedPerson,
  connectPeople,
  credentialHeaders,
  MCP_HEADERS,
  refreshGrant,
  TOOLS_LIST,
  toolCall,
} from './support/connected-people.ts';
import { postToolsList } from './support/mcp-http.ts';
import { accountService, createApiKey, signIn } from './support/people.ts';
import {
  expectOnlyOutageFailures,
  type LoadTarget,
  type Outcome,
  throughOutage,
} from './support/steady-load.ts';

// The whole stack (`pnpm start`) on a PostgreSQL and a Redis of this file's own, which it stops
// and starts under a steady mixed load: the shared servers other test files use never go down.

const missing = privateServersMissing();
if (missing) console.warn(`faults-datastores: skipped (outside CI only): ${missing}`);

const EMAILS = accountEmails(2, 'faults');
let redis: PrivateServer | undefined;
let postgres: PrivateServer | undefined;
let stack: Stack;
let people: ConnectedPerson[];

/** Both kinds of client of each person, reads and writes, and the dashboard (sessions). */
function targets(): LoadTarget[] {
  const mcp = `${stack.baseUrl}/api/mcp`;
  return people.flatMap((person) => {
    const post = (as: 'jwt' | 'key', body: string) => () => ({
      method: 'POST',
      headers: { ...MCP_HEADERS, ...credentialHeaders(person, as) },
      body,
    });
    const read = toolCall('read_range', { spreadsheetId: person.spreadsheetId, range: 'Sheet1!A1:B1' });
    const write = toolCall('write_range', {
      spreadsheetId: person.spreadsheetId,
      range: 'Sheet1!C1',
      values: [['written under faults']],
    });
    return [
      { kind: 'jwt tools/list', url: mcp, init: post('jwt', TOOLS_LIST) },
      { kind: 'jwt read_range', url: mcp, init: post('jwt', read) },
      { kind: 'key read_range', url: mcp, init: post('key', read) },
      { kind: 'key write_range', url: mcp, init: post('key', write) },
      {
        kind: 'dashboard',
        url: `${stack.baseUrl}/dashboard`,
        init: () => ({
          headers: { cookie: `sg_session=${person.sessionCookie}` },
          redirect: 'manual' as const,
        }),
      },
    ];
  });
}

/** What every person holds still works: their key, their dashboard session, their OAuth grant. */
async function everythingStillWorks() {
  for (const person of people) {
    expect((await postToolsList(stack.baseUrl, credentialHeaders(person, 'key'))).status).toBe(200);
    const dashboard = await fetch(`${stack.baseUrl}/dashboard`, {
      headers: { cookie: `sg_session=${person.sessionCookie}` },
      redirect: 'manual',
    });
    expect(dashboard.status).toBe(200);
    expect(await dashboard.text()).toContain(person.email);
    const before = person.oauth.tokens()!.access_token;
    await refreshGrant(stack, person);
    expect(person.oauth.tokens()!.access_token).not.toBe(before);
    expect((await postToolsList(stack.baseUrl, credentialHeaders(person, 'jwt'))).status).toBe(200);
  }
  // And someone can still sign in (a new session is written).
  const again = await signIn(stack, EMAILS[0]!);
  expect(again.sessionCookie).toEqual(expect.any(String));
}

/** What AccountService answered: 'revoked', or the gRPC status it refused with. */
async function revokeKey(person: ConnectedPerson, keyId: string): Promise<string> {
  const accounts = accountService(stack);
  try {
    await accounts.revokeApiKey({ sessionCookie: person.sessionCookie, keyId });
    return 'revoked';
  } catch (error) {
    if (isServiceError(error)) return `refused: ${GrpcStatus[error.code]}`;
    throw error;
  } finally {
    accounts.close();
  }
}

async function revokedAtOf(person: ConnectedPerson, keyId: string): Promise<string | undefined> {
  const accounts = accountService(stack);
  try {
    const { keys } = await accounts.listApiKeys({ sessionCookie: person.sessionCookie });
    return keys.find((key) => key.id === keyId)?.revokedAt;
  } finally {
    accounts.close();
  }
}

/** The MCP error contract's answer when auth cannot decide (docs/design.md §8), or a tool error. */
const mcpRefusal = (outcome: Outcome) =>
  outcome.kind !== 'dashboard' &&
  ((outcome.status === 503 && Number(outcome.retryAfter) > 0) ||
    (outcome.status === 200 && outcome.toolError !== undefined));

describe.skipIf(missing !== undefined)('PostgreSQL and Redis go down under a steady mixed load', () => {
  beforeAll(async () => {
    [redis, postgres] = await Promise.all([startPrivateRedis(), startPrivatePostgres()]);
    stack = await startStack({
      DATABASE_URL: postgres.url,
      REDIS_URL: redis.url,
      GOOGLE_EMULATOR_ACCOUNTS: EMAILS.join(','),
      LOG_LEVEL: 'warn',
      RATE_LIMIT_OVERRIDES: JSON.stringify({
        apiKey: { points: 1_000_000, durationSeconds: 60 },
        register: { points: 500, durationSeconds: 3600 },
      }),
    });
    people = await connectPeople(stack, EMAILS);
  }, 120_000);
  afterAll(async () => {
    await stack?.stop();
    await Promise.all([redis?.close(), postgres?.close()]);
  });

  it('Redis stopped and started again', async () => {
    const spare = await createApiKey(stack, people[0]!.sessionCookie);
    let revocation = '';
    let spareDuringOutage = 0;
    const run = await throughOutage(targets(), async () => {
      await redis!.stop();
      // Long enough that requests meet the outage itself, not only a short wait for Redis.
      await new Promise((resolve) => setTimeout(resolve, 6_000));
      revocation = await revokeKey(people[0]!, spare.key!.id);
      spareDuringOutage = (await postToolsList(stack.baseUrl, { 'x-api-key': spare.secret })).status;
      await redis!.start();
    });
    // Redis holds only what may be lost (docs/design.md §5): no 5xx but the documented 503s; a tool
    // call whose Google token could not be read from the cache fails as a tool error.
    console.info('Redis outage, outcomes by kind:', expectOnlyOutageFailures(run, mcpRefusal));
    await everythingStillWorks();
    // A key revoked while Redis was down is refused at once and after: the revocation is
    // committed in PostgreSQL even though it could not be announced, and was reported as failed
    // (UNAVAILABLE: the dashboard says to try again) rather than as done.
    expect(revocation).toBe('refused: UNAVAILABLE');
    expect(spareDuringOutage).toBe(401);
    expect((await postToolsList(stack.baseUrl, { 'x-api-key': spare.secret })).status).toBe(401);
    expect(await revokedAtOf(people[0]!, spare.key!.id)).toMatch(/^\d{4}-\d\d-\d\dT/);
  }, 90_000);

  it('PostgreSQL restarted', async () => {
    const late = await createApiKey(stack, people[1]!.sessionCookie);
    const run = await throughOutage(targets(), async () => {
      await postgres!.stop();
      await new Promise((resolve) => setTimeout(resolve, 3_000));
      await postgres!.start();
    });
    // While PostgreSQL is down the dashboard cannot read sessions: auth's AccountService answers
    // UNAVAILABLE, and web its "unavailable, try again" page (503). MCP calls answer from what auth
    // and mcp cache, or refuse as the contract says.
    const summary = expectOnlyOutageFailures(
      run,
      (outcome) => mcpRefusal(outcome) || (outcome.kind === 'dashboard' && outcome.status === 503),
    );
    console.info('PostgreSQL restart, outcomes by kind:', summary);
    // The outage was felt: sessions could not be read while PostgreSQL was down.
    const unavailablePages = run.outcomes.filter(
      (outcome) =>
        outcome.kind === 'dashboard' &&
        outcome.status === 503 &&
        outcome.startedAt >= run.brokenAt &&
        outcome.startedAt < run.repairedAt,
    );
    expect(unavailablePages.length, JSON.stringify(summary)).toBeGreaterThan(0);
    await everythingStillWorks();
    // Nothing written before the restart was lost: the key made just before it still works.
    expect((await postToolsList(stack.baseUrl, { 'x-api-key': late.secret })).status).toBe(200);
  }, 90_000);
});
