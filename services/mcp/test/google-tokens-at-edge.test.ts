import { type RunningService, readJson } from '@sheetgate/test-harness';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type McpUnderTest, postReadRange, startMcpUnderTest } from './support/stack.ts';

// Google access tokens at the edge (docs/design.md §4.3): each MCP replica keeps a
// person's token and asks auth again only when it nears expiry, when Google refuses it, or when
// auth's revocation stream says the person's Google connection changed (or the stream reopens).
// Real auth, mcp and Google emulator processes; with Redis two auth replicas, each serving one of
// the two MCP replicas, so an announcement made on one auth reaches the other's replica through
// the relay. Auth is asked is counted by each replica's own metrics.

const withRedis = Boolean(process.env.REDIS_URL);
const GET_GOOGLE_TOKEN = 'sheetgate_mcp_broker_calls_total{method="GetGoogleAccessToken"';
const UNAUTHENTICATED_RETRIES = 'sheetgate_mcp_google_retries_total{reason="unauthenticated"';
const GOOGLE_READS = 'sheetgate_mcp_google_requests_total{method="sheets.spreadsheets.values.get"';
const KEPT_TOKENS_USED = 'sheetgate_mcp_google_token_lookups_total{outcome="kept"';

interface Replica {
  mcpUrl: string;
  metricsUrl: string;
}

/**
 * The sum of the series whose line starts with `prefix` (open-ended: every series also carries
 * the `service` label), at the replica's metrics port. Fails when there is none, so a prefix that
 * matches nothing cannot pass as a count of zero — unless the series appears only once counted
 * (`absentIsZero`).
 */
async function counter(replica: Replica, prefix: string, absentIsZero = false): Promise<number> {
  const text = await (await fetch(replica.metricsUrl)).text();
  const lines = text.split('\n').filter((line) => line.startsWith(prefix));
  if (lines.length === 0 && !absentIsZero) throw new Error(`no series ${prefix}… at ${replica.metricsUrl}`);
  return lines.reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(' ') + 1)), 0);
}

/** Polls until `check` answers true; fails past the deadline (generous: the machine is shared). */
async function eventually(check: () => Promise<boolean>, what: string, deadlineMs = 30_000): Promise<void> {
  const giveUpAt = Date.now() + deadlineMs;
  while (!(await check())) {
    if (Date.now() > giveUpAt) throw new Error(`not within ${deadlineMs} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

let stack: McpUnderTest;
let secondAuth: RunningService | undefined;
let replicas: Replica[];
const people: Record<string, { userId: string; token: string; spreadsheetId: string }> = {};

async function seed(email: string): Promise<string> {
  const response = await fetch(`${stack.emulatorUrl}/__emulator/seed`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, files: [{ name: `${email} sheet`, values: [['hello']] }] }),
  });
  return ((await response.json()) as { files: Array<{ id: string }> }).files[0]!.id;
}

/** One `read_range` tool call at the replica: the values read, or the tool error's text. */
async function readAt(replica: Replica, who: string): Promise<unknown> {
  const person = people[who]!;
  const response = await postReadRange(replica.mcpUrl, person.token, {
    spreadsheetId: person.spreadsheetId,
    range: 'Sheet1!A1',
  });
  if (response.status !== 200) return `HTTP ${response.status}`;
  const reply = await readJson(response);
  return reply.result?.isError ? reply.result.content[0].text : reply.result?.structuredContent?.values;
}

const brokerAsks = (replica: Replica) => counter(replica, GET_GOOGLE_TOKEN, true);

/**
 * Whether the replica vouches for its revocation stream (a 200 does not say it: a lagging replica
 * asks auth of every credential and answers all the same).
 */
const vouches = async (replica: Replica) =>
  (await counter(replica, 'sheetgate_mcp_revocations_current{')) === 1;

beforeAll(async () => {
  // Auth's staleness bound far beyond any test: from its first snapshot on a replica trusts its
  // stream, so a heartbeat late on a loaded machine never makes it bypass its kept tokens and the
  // counts below are the same however slow the machine. (Every replica acknowledges each
  // revocation, so none waits for the bound.)
  stack = await startMcpUnderTest({}, { REVOCATION_STALE_AFTER_MS: String(10 * 60_000) });
  const overrides: Record<string, string> = {};
  if (withRedis) {
    const authReplica = await stack.startAuth();
    secondAuth = authReplica;
    overrides.AUTH_GRPC_ADDRESS = authReplica.grpcAddress;
  }
  const second = await stack.startMcp(overrides);
  replicas = [
    { mcpUrl: stack.mcpUrl, metricsUrl: stack.mcpMetricsUrl },
    { mcpUrl: second.mcpUrl, metricsUrl: second.metricsUrl },
  ];
  for (const who of ['alice', 'bob']) {
    const email = `${who}@example.com`;
    const { userId } = await stack.signIn(email);
    people[who] = { userId, token: await stack.sign({ sub: userId }), spreadsheetId: await seed(email) };
  }
  // Both replicas vouch for their revocations (the stream is open) before anything is counted.
  for (const replica of replicas) await eventually(() => vouches(replica), `${replica.mcpUrl} vouches`);
}, 180_000);
afterAll(async () => {
  await secondAuth?.stop();
  await stack?.stop();
});

describe('Google access tokens at two MCP replicas (each on its own auth replica when REDIS_URL is set)', () => {
  it('repeated tool calls for one person ask auth once per replica', async () => {
    const kept = (replica: Replica) => counter(replica, KEPT_TOKENS_USED);
    const before = await Promise.all(replicas.map(brokerAsks));
    const keptBefore = await Promise.all(replicas.map(kept));
    for (let round = 0; round < 3; round++)
      for (const replica of replicas) expect(await readAt(replica, 'alice')).toEqual([['hello']]);
    const after = await Promise.all(replicas.map(brokerAsks));
    expect(after.map((count, index) => count - before[index]!)).toEqual([1, 1]);
    // The other two calls on each replica used the token it kept.
    const keptAfter = await Promise.all(replicas.map(kept));
    expect(keptAfter.map((count, index) => count - keptBefore[index]!)).toEqual([2, 2]);
  });

  it('a reconnect (a new Google sign-in) makes every replica ask auth again', async () => {
    for (const replica of replicas) expect(await readAt(replica, 'alice')).toEqual([['hello']]);
    const before = await Promise.all(replicas.map(brokerAsks));
    // Sign-in returns once every replica has forgotten alice's previous token.
    await stack.signIn('alice@example.com');
    for (const replica of replicas) {
      expect(await readAt(replica, 'alice')).toEqual([['hello']]);
      expect(await readAt(replica, 'alice')).toEqual([['hello']]);
    }
    const after = await Promise.all(replicas.map(brokerAsks));
    expect(after.map((count, index) => count - before[index]!)).toEqual([1, 1]);
  });

  it('a grant revoked at Google: once auth learns it, the other replica asks auth instead of using its kept token', async () => {
    const [first, other] = replicas as [Replica, Replica];
    for (const replica of replicas) expect(await readAt(replica, 'bob')).toEqual([['hello']]);
    const revoked = await fetch(`${stack.emulatorUrl}/__emulator/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'bob@example.com' }),
    });
    expect(revoked.status).toBe(200);
    const otherBefore = {
      asks: await brokerAsks(other),
      retried: await counter(other, UNAUTHENTICATED_RETRIES),
      reads: await counter(other, GOOGLE_READS, true),
    };
    // At the first replica Google answers 401, and the forced refresh makes auth try Google's
    // refresh token, which Google refuses (invalid_grant): "Authentication required". Auth answers
    // a forced refresh of a token it obtained moments ago with that same token (and the tool says
    // the same), so the replica is asked until auth has learned it.
    await eventually(
      async () =>
        String(await readAt(first, 'bob')).startsWith('Authentication required') &&
        (await stack.googleAccessToken(people.bob!.userId)) === undefined,
      'auth learns from the first replica that bob must reconnect',
    );
    // The other replica kept bob's token; told by the stream, it asks auth, which refuses, and
    // never sends the revoked token to Google.
    expect(await readAt(other, 'bob')).toMatch(/^Authentication required/);
    expect(await brokerAsks(other)).toBe(otherBefore.asks + 1);
    expect(await counter(other, UNAUTHENTICATED_RETRIES)).toBe(otherBefore.retried);
    expect(await counter(other, GOOGLE_READS, true)).toBe(otherBefore.reads);
  });

  it('a replica whose stream reopens (auth restarted) forgets every kept token', async () => {
    const [first] = replicas as [Replica];
    expect(await readAt(first, 'alice')).toEqual([['hello']]);
    expect(await readAt(first, 'alice')).toEqual([['hello']]);
    const before = await brokerAsks(first);
    await stack.restartAuth();
    await eventually(() => vouches(first), 'the replica vouches for its revocations again');
    expect(await readAt(first, 'alice')).toEqual([['hello']]);
    expect(await readAt(first, 'alice')).toEqual([['hello']]);
    expect(await brokerAsks(first)).toBe(before + 1);
  });
});
