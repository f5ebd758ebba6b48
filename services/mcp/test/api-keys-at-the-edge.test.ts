import { createAccountServiceClient } from '@sheetgate/proto';
import { type RunningService, readJson } from '@sheetgate/test-harness';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type McpUnderTest, postMcp, startMcpUnderTest } from './support/stack.ts';

// API keys resolved at the edge (docs/design.md §4, "API key"): an MCP replica keeps what auth
// said of a live key and serves it without asking, the revocation stream drops it, its rate limit
// is spent from leases, and an expired key is refused. Real auth, MCP and emulator processes;
// auth's calls are counted by each MCP replica's broker metrics. A replica whose stream lags asks
// auth of every key instead (revocations-while-stream-lags.test.ts, which also has a held key
// answered 503 while the replica is cut off from auth altogether).

const withRedis = Boolean(process.env.REDIS_URL);
/** The per-key limit auth is started with (a window longer than any test) and the replicas' lease. */
const LIMIT = 100;
const LEASE = 10;
const LIST = { jsonrpc: '2.0', id: 1, method: 'tools/list' };
/**
 * Auth's staleness bound for these stacks, far beyond any test: a replica trusts its stream from
 * the first snapshot on, so a heartbeat late on a loaded machine never sends a held key to auth
 * and every count below is the same however slow the machine. (Revocations still return at once:
 * every replica acknowledges them.)
 */
const STALE_AFTER_MS = String(10 * 60_000);

interface Replica {
  url: string;
  metricsUrl: string;
}

const withKey = (replica: Replica, key: string) =>
  postMcp(replica.url, LIST, { headers: { 'mcp-protocol-version': '2025-06-18', 'x-api-key': key } });
const statusWith = async (replica: Replica, key: string) => (await withKey(replica, key)).status;

/** Polls until `check` answers true; fails past the deadline (generous: the machine is shared). */
async function eventually(check: () => Promise<boolean>, what: string, deadlineMs = 20_000): Promise<void> {
  const giveUpAt = Date.now() + deadlineMs;
  while (!(await check())) {
    if (Date.now() > giveUpAt) throw new Error(`not within ${deadlineMs} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** ResolveApiKeys and LeaseApiKeyAllowance calls a replica has made to auth, from its metrics. */
async function askedAuth(replica: Replica): Promise<{ resolves: number; leases: number }> {
  const text = await (await fetch(replica.metricsUrl)).text();
  const sum = (method: string) =>
    text
      .split('\n')
      .filter(
        (line) => line.startsWith('sheetgate_mcp_broker_calls_total{') && line.includes(`method="${method}"`),
      )
      .reduce((total, line) => total + Number(line.slice(line.lastIndexOf(' ') + 1)), 0);
  return { resolves: sum('ResolveApiKeys'), leases: sum('LeaseApiKeyAllowance') };
}

/** Whether the replica vouches for its revocation stream (until then it asks auth of every key). */
async function streamCurrent(replica: Replica): Promise<boolean> {
  const text = await (await fetch(replica.metricsUrl)).text();
  return text
    .split('\n')
    .some((line) => line.startsWith('sheetgate_mcp_revocations_current{') && line.endsWith(' 1'));
}

async function startReplica(stack: McpUnderTest, env: Record<string, string> = {}): Promise<Replica> {
  const started = await stack.startMcp({ API_KEY_LEASE_SIZE: String(LEASE), ...env });
  return { url: started.mcpUrl, metricsUrl: started.metricsUrl };
}

async function startStack(): Promise<{ stack: McpUnderTest; first: Replica }> {
  const stack = await startMcpUnderTest(
    { API_KEY_LEASE_SIZE: String(LEASE) },
    {
      RATE_LIMIT_OVERRIDES: JSON.stringify({ apiKey: { points: LIMIT, durationSeconds: 3_600 } }),
      REVOCATION_STALE_AFTER_MS: STALE_AFTER_MS,
    },
  );
  return { stack, first: { url: stack.mcpUrl, metricsUrl: stack.mcpMetricsUrl } };
}

/** Until every replica vouches for its stream: before its first snapshot it asks auth of every key. */
async function untilCurrent(replicas: Replica[]): Promise<void> {
  for (const replica of replicas)
    await eventually(() => streamCurrent(replica), `the replica at ${replica.url} vouches for its stream`);
}

async function revokeThrough(stack: McpUnderTest, grpcAddress: string, sessionCookie: string, keyId: string) {
  const accounts = createAccountServiceClient({ address: grpcAddress, serviceToken: stack.serviceToken });
  try {
    const answer = await accounts.revokeApiKey({ sessionCookie, keyId }, { deadlineMs: 10_000 });
    expect(answer.revoked).toBe(true);
  } finally {
    accounts.close();
  }
}

describe.skipIf(!withRedis)('two auth replicas (Redis), three MCP replicas', () => {
  let stack: McpUnderTest;
  let secondAuth: RunningService;
  let secondAuthGrpc: string;
  let replicas: Replica[];
  let person: { userId: string; sessionCookie: string };

  beforeAll(async () => {
    const started = await startStack();
    stack = started.stack;
    const authReplica = await stack.startAuth();
    secondAuth = authReplica;
    secondAuthGrpc = authReplica.grpcAddress;
    replicas = [
      started.first,
      await startReplica(stack, { AUTH_GRPC_ADDRESS: secondAuthGrpc }),
      await startReplica(stack),
    ];
    person = await stack.signIn('alice@example.com');
    await untilCurrent(replicas);
  }, 120_000);
  afterAll(async () => {
    await secondAuth?.stop();
    await stack?.stop();
  });

  it('serves a key from each replica without asking auth per request', async () => {
    const key = await stack.createApiKey(person.sessionCookie);
    const before = await Promise.all(replicas.map(askedAuth));
    const PER_REPLICA = 30;
    await Promise.all(
      replicas.map(async (replica) => {
        for (let i = 0; i < PER_REPLICA; i++) expect(await statusWith(replica, key.secret)).toBe(200);
      }),
    );
    const after = await Promise.all(replicas.map(askedAuth));
    replicas.forEach((_, index) => {
      // One resolve (the first request's own point), then a lease per LEASE requests.
      expect(after[index]!.resolves - before[index]!.resolves).toBe(1);
      expect(after[index]!.leases - before[index]!.leases).toBe(Math.ceil((PER_REPLICA - 1) / LEASE));
    });
  });

  it('a key revoked through one auth replica is refused on every MCP replica at the very next request', async () => {
    const key = await stack.createApiKey(person.sessionCookie);
    // Twice each: the second is served from what the replica holds.
    for (const replica of replicas)
      for (let i = 0; i < 2; i++) expect(await statusWith(replica, key.secret)).toBe(200);
    const held = await Promise.all(replicas.map(askedAuth));

    await revokeThrough(stack, secondAuthGrpc, person.sessionCookie, key.keyId);
    for (const replica of replicas) {
      const response = await withKey(replica, key.secret);
      expect(response.status, replica.url).toBe(401);
      expect((await readJson(response)).error_description).toBe('the API key has been revoked');
    }
    // Refused by auth, asked again because the replica had dropped it.
    const after = await Promise.all(replicas.map(askedAuth));
    expect(after.map((asked) => asked.resolves)).toEqual(held.map((asked) => asked.resolves + 1));
  });

  it('under concurrent load on three replicas a key stays within its limit plus one lease per replica', async () => {
    const key = await stack.createApiKey(person.sessionCookie);
    const statuses: number[] = [];
    const retryAfters: number[] = [];
    // Each replica gets more than the whole limit, 10 requests at a time.
    await Promise.all(
      replicas.map(async (replica) => {
        for (let wave = 0; wave < 12; wave++) {
          const responses = await Promise.all(Array.from({ length: 10 }, () => withKey(replica, key.secret)));
          for (const response of responses) {
            statuses.push(response.status);
            if (response.status === 429) retryAfters.push(Number(response.headers.get('retry-after')));
            await response.body?.cancel();
          }
        }
      }),
    );
    const served = statuses.filter((status) => status === 200).length;
    expect(statuses.every((status) => status === 200 || status === 429)).toBe(true);
    expect(served).toBeLessThanOrEqual(LIMIT + replicas.length * LEASE);
    // What is not served is at most the replicas' unspent leases.
    expect(served).toBeGreaterThanOrEqual(LIMIT - replicas.length * LEASE);
    expect(retryAfters.length).toBe(statuses.length - served);
    for (const seconds of retryAfters) {
      expect(seconds).toBeGreaterThan(0);
      expect(seconds).toBeLessThanOrEqual(3_600);
    }
  });

  it('an expired key is refused at every replica, each time after asking auth', async () => {
    const expiresAt = new Date(Date.now() + 4_000);
    const key = await stack.createApiKey(person.sessionCookie, { expiresAt });
    for (const replica of replicas)
      for (let i = 0; i < 2; i++) expect(await statusWith(replica, key.secret)).toBe(200);
    while (Date.now() <= expiresAt.getTime()) await new Promise((resolve) => setTimeout(resolve, 100));
    const before = await Promise.all(replicas.map(askedAuth));
    for (const replica of replicas) {
      for (let i = 0; i < 2; i++) {
        const response = await withKey(replica, key.secret);
        expect(response.status, replica.url).toBe(401);
        expect((await readJson(response)).error_description).toBe('the API key has expired');
      }
    }
    const after = await Promise.all(replicas.map(askedAuth));
    expect(after.map((asked) => asked.resolves)).toEqual(before.map((asked) => asked.resolves + 2));
  });
});

describe('one auth replica (no Redis when REDIS_URL is unset), one MCP replica', () => {
  let stack: McpUnderTest;
  let replica: Replica;
  let person: { userId: string; sessionCookie: string };

  beforeAll(async () => {
    const started = await startStack();
    stack = started.stack;
    replica = started.first;
    person = await stack.signIn('bob@example.com');
    await untilCurrent([replica]);
  }, 120_000);
  afterAll(() => stack?.stop());

  it('forgets every held key when its stream opens again with a snapshot (auth restarted)', async () => {
    const key = await stack.createApiKey(person.sessionCookie);
    for (let i = 0; i < 3; i++) expect(await statusWith(replica, key.secret)).toBe(200);
    await stack.restartAuth();
    // Served by asking auth until then; the snapshot drops what the replica held.
    await eventually(() => streamCurrent(replica), 'the stream is open again');
    const before = await askedAuth(replica);
    expect(await statusWith(replica, key.secret)).toBe(200);
    // Asked of auth again: what the replica held before the snapshot was dropped.
    expect((await askedAuth(replica)).resolves).toBeGreaterThan(before.resolves);
  });

  it("gives a key's toolsets to the request, from auth's answer and from what the replica holds", async () => {
    const toolNames = async (key: string) => {
      const response = await withKey(replica, key);
      expect(response.status).toBe(200);
      return ((await readJson(response)).result.tools as Array<{ name: string }>)
        .map((tool) => tool.name)
        .sort();
    };
    const everySet = await toolNames((await stack.createApiKey(person.sessionCookie)).secret);
    const reader = await stack.createApiKey(person.sessionCookie, { toolsets: ['core-read'] });
    const before = await askedAuth(replica);
    // The first request is resolved by auth; the next ones are served from what the replica holds
    // (the second by a lease, the third from it).
    const lists = [
      await toolNames(reader.secret),
      await toolNames(reader.secret),
      await toolNames(reader.secret),
    ];
    const asked = await askedAuth(replica);
    expect(asked.resolves - before.resolves).toBe(1);
    expect(asked.leases - before.leases).toBe(1);
    for (const listed of lists) {
      expect(listed).toEqual(lists[0]);
      expect(listed).toContain('read_range');
      expect(listed).not.toContain('write_range');
      expect(listed.length).toBeLessThan(everySet.length);
      expect(everySet).toEqual(expect.arrayContaining(listed));
    }
  });

  it('serves a held key without asking auth each time, and refuses it at the next request after revocation', async () => {
    const key = await stack.createApiKey(person.sessionCookie);
    const before = await askedAuth(replica);
    for (let i = 0; i < 5; i++) expect(await statusWith(replica, key.secret)).toBe(200);
    const held = await askedAuth(replica);
    expect(held.resolves - before.resolves).toBe(1);
    expect(held.leases - before.leases).toBe(1);

    await stack.revokeApiKey(person.sessionCookie, key.keyId);
    const response = await withKey(replica, key.secret);
    expect(response.status).toBe(401);
    expect((await readJson(response)).error_description).toBe('the API key has been revoked');
  });

  it('a spent lease is taken again, and a spent limit answered 429 with Retry-After', async () => {
    const key = await stack.createApiKey(person.sessionCookie);
    const statuses: number[] = [];
    for (let i = 0; i < LIMIT + 5; i++) statuses.push(await statusWith(replica, key.secret));
    // One replica spends every lease it takes: exactly the limit is served.
    expect(statuses.filter((status) => status === 200)).toHaveLength(LIMIT);
    expect(statuses.slice(LIMIT).every((status) => status === 429)).toBe(true);
    const refused = await withKey(replica, key.secret);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});
