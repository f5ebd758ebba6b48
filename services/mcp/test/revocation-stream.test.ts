import { randomBytes } from 'node:crypto';
import {
  createAccountServiceClient,
  createRevocationServiceClient,
  GrpcStatus,
  type WatchRevocationsRequest,
  type WatchRevocationsResponse,
} from '@sheetgate/proto';
import { type FreezableRelay, type RunningService, startFreezableRelay } from '@sheetgate/test-harness';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectApp, refresh } from './support/oauth-app.ts';
import { type McpUnderTest, postMcp, startMcpUnderTest } from './support/stack.ts';

// Revocation reaches the edge (docs/design.md §4): a revocation on any auth replica is refused by
// every MCP replica on the very next request, access tokens included; a replica that cannot vouch
// for what it knows asks auth instead of trusting it (revocations-while-stream-lags.test.ts), and
// answers 503 + Retry-After when auth cannot answer either.

const withRedis = Boolean(process.env.REDIS_URL);
const toolsList = { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} };
const withToken = (token: string) => ({ headers: { authorization: `Bearer ${token}` } });
const withKey = (key: string) => ({ headers: { 'x-api-key': key } });

/** Polls until `check` answers true; fails past the deadline (generous: the machine is shared). */
async function eventually(check: () => Promise<boolean>, what: string, deadlineMs = 20_000): Promise<void> {
  const giveUpAt = Date.now() + deadlineMs;
  while (!(await check())) {
    if (Date.now() > giveUpAt) throw new Error(`not within ${deadlineMs} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** One sample's value from Prometheus text (the first series of `name` whose labels include `labels`). */
function sample(text: string, name: string, labels = ''): number | undefined {
  const line = text
    .split('\n')
    .find((candidate) => candidate.startsWith(`${name}{`) && candidate.includes(labels));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

const statusAt = async (url: string, headers: { headers: Record<string, string> }) =>
  (await postMcp(url, toolsList, headers)).status;

function accountsAt(stack: McpUnderTest, address: string) {
  return createAccountServiceClient({ address, serviceToken: stack.serviceToken });
}

describe.skipIf(!withRedis)('two auth replicas (Redis), three MCP replicas', () => {
  let stack: McpUnderTest;
  let secondAuth: RunningService;
  let secondAuthGrpc: string;
  let relay: FreezableRelay;
  let replicas: string[];
  let frozenReplica: string;
  let person: { userId: string; sessionCookie: string };

  beforeAll(async () => {
    stack = await startMcpUnderTest();
    const authReplica = await stack.startAuth();
    secondAuth = authReplica;
    secondAuthGrpc = authReplica.grpcAddress;
    const [host, authGrpcPort] = stack.grpcAddress.split(':') as [string, string];
    relay = await startFreezableRelay({ host, port: Number(authGrpcPort) });
    const second = await stack.startMcp({ AUTH_GRPC_ADDRESS: secondAuthGrpc });
    const third = await stack.startMcp({ AUTH_GRPC_ADDRESS: relay.address });
    frozenReplica = third.mcpUrl;
    replicas = [stack.mcpUrl, second.mcpUrl, third.mcpUrl];
    person = await stack.signIn('alice@example.com');
  }, 120_000);
  afterAll(async () => {
    relay?.thaw();
    await relay?.close();
    await secondAuth?.stop();
    await stack?.stop();
  });

  it('Disconnect through one auth replica: the app’s unexpired token is refused on every MCP replica at the next request', async () => {
    const app = await connectApp(stack, person.sessionCookie);
    for (const url of replicas)
      await eventually(
        async () => (await statusAt(url, withToken(app.accessToken))) === 200,
        `200 at ${url}`,
      );

    const accounts = accountsAt(stack, secondAuthGrpc);
    try {
      const answer = await accounts.disconnectApp(
        { sessionCookie: person.sessionCookie, clientId: app.clientId },
        { deadlineMs: 10_000 },
      );
      expect(answer.disconnected).toBe(true);
    } finally {
      accounts.close();
    }
    for (const url of replicas) {
      const response = await postMcp(url, toolsList, withToken(app.accessToken));
      expect(response.status, url).toBe(401);
      expect(response.headers.get('www-authenticate')).toContain('error="invalid_token"');
      expect(((await response.json()) as { error_description: string }).error_description).toMatch(/revoked/);
    }
  });

  it('an API key revoked through one auth replica is refused by every MCP replica', async () => {
    const key = await stack.createApiKey(person.sessionCookie);
    for (const url of replicas)
      await eventually(async () => (await statusAt(url, withKey(key.secret))) === 200, `200 at ${url}`);
    const accounts = accountsAt(stack, secondAuthGrpc);
    try {
      expect(
        (
          await accounts.revokeApiKey(
            { sessionCookie: person.sessionCookie, keyId: key.keyId },
            { deadlineMs: 10_000 },
          )
        ).revoked,
      ).toBe(true);
    } finally {
      accounts.close();
    }
    for (const url of replicas) expect(await statusAt(url, withKey(key.secret)), url).toBe(401);
  });

  it('a replica cut off from auth (its stream and its calls frozen) answers 503 with Retry-After instead of trusting what it knew, and catches up after the thaw', async () => {
    const app = await connectApp(stack, person.sessionCookie);
    await eventually(
      async () => (await statusAt(frozenReplica, withToken(app.accessToken))) === 200,
      'the token verifies at the replica behind the relay',
    );
    relay.freeze();
    await eventually(
      async () => (await statusAt(frozenReplica, withToken(app.accessToken))) === 503,
      'the frozen replica stops vouching for its revocations',
    );
    const refused = await postMcp(frozenReplica, toolsList, withToken(app.accessToken));
    expect(refused.status).toBe(503);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    // The others are unaffected.
    expect(await statusAt(stack.mcpUrl, withToken(app.accessToken))).toBe(200);

    // Disconnected while the replica cannot hear it: the revocation still returns (the replica has
    // stopped trusting itself), and the replica never answers the token with 200 again.
    const accounts = accountsAt(stack, stack.grpcAddress);
    try {
      expect(
        (
          await accounts.disconnectApp(
            { sessionCookie: person.sessionCookie, clientId: app.clientId },
            { deadlineMs: 10_000 },
          )
        ).disconnected,
      ).toBe(true);
    } finally {
      accounts.close();
    }
    expect(await statusAt(frozenReplica, withToken(app.accessToken))).toBe(503);
    relay.thaw();
    await eventually(async () => {
      const status = await statusAt(frozenReplica, withToken(app.accessToken));
      if (status === 200)
        throw new Error('the frozen replica accepted a revoked grant’s token after the thaw');
      return status === 401;
    }, 'the thawed replica refuses the disconnected app’s token');
    // And it vouches for tokens again: a token the replica has never seen verifies.
    const other = await connectApp(stack, person.sessionCookie);
    await eventually(
      async () => (await statusAt(frozenReplica, withToken(other.accessToken))) === 200,
      'the thawed replica verifies a live token',
    );
  });
});

describe('one auth replica (its relay in-process when REDIS_URL is unset), two MCP replicas', () => {
  let stack: McpUnderTest;
  let replicas: string[];
  let person: { userId: string; sessionCookie: string };

  let secondMetrics: string;

  beforeAll(async () => {
    // Auth's staleness bound far beyond any test (nothing here lags on purpose): from its first
    // snapshot on, a replica vouches for its stream however late a heartbeat is on a loaded machine.
    stack = await startMcpUnderTest({}, { REVOCATION_STALE_AFTER_MS: String(10 * 60_000) });
    const second = await stack.startMcp();
    secondMetrics = second.metricsUrl;
    replicas = [stack.mcpUrl, second.mcpUrl];
    person = await stack.signIn('bob@example.com');
    await eventually(
      async () =>
        sample(await (await fetch(secondMetrics)).text(), 'sheetgate_mcp_revocations_current') === 1,
      'the second replica vouches for its stream',
    );
  }, 120_000);
  afterAll(() => stack?.stop());

  it('Disconnect: the app’s unexpired token is refused on every MCP replica at the next request, and after auth restarts', async () => {
    const app = await connectApp(stack, person.sessionCookie);
    for (const url of replicas)
      await eventually(
        async () => (await statusAt(url, withToken(app.accessToken))) === 200,
        `200 at ${url}`,
      );
    const accounts = accountsAt(stack, stack.grpcAddress);
    try {
      expect(
        (
          await accounts.disconnectApp(
            { sessionCookie: person.sessionCookie, clientId: app.clientId },
            { deadlineMs: 10_000 },
          )
        ).disconnected,
      ).toBe(true);
    } finally {
      accounts.close();
    }
    for (const url of replicas) expect(await statusAt(url, withToken(app.accessToken)), url).toBe(401);
    // What an operator sees: the replica current, holding the revocation, refusing by it; auth
    // holding both replicas' streams.
    const mcpSamples = await (await fetch(secondMetrics)).text();
    expect(sample(mcpSamples, 'sheetgate_mcp_revocations_current')).toBe(1);
    expect(sample(mcpSamples, 'sheetgate_mcp_revoked_entries')).toBeGreaterThanOrEqual(1);
    expect(
      sample(mcpSamples, 'sheetgate_mcp_token_verifications_total', 'outcome="refused",reason="revoked"'),
    ).toBeGreaterThanOrEqual(1);
    const authSamples = await (
      await fetch(`http://127.0.0.1:${stack.authEnv.AUTH_METRICS_PORT}/metrics`)
    ).text();
    expect(sample(authSamples, 'sheetgate_auth_revocation_streams')).toBe(2);

    // The snapshot after a restart still has it (PostgreSQL), and the replicas take it on reconnecting.
    await stack.restartAuth();
    for (const url of replicas)
      await eventually(async () => {
        const status = await statusAt(url, withToken(app.accessToken));
        if (status === 200) throw new Error(`${url} accepted the token after auth restarted`);
        return status === 401;
      }, `401 at ${url} after the restart`);
  });

  it('a rotated refresh token presented again revokes the grant: its access tokens, old and new, are refused at once', async () => {
    const app = await connectApp(stack, person.sessionCookie);
    const rotated = await refresh(stack, app.clientId, app.refreshToken);
    expect(rotated.status).toBe(200);
    const newer = rotated.body.access_token!;
    for (const url of replicas)
      for (const token of [app.accessToken, newer])
        await eventually(async () => (await statusAt(url, withToken(token))) === 200, `200 at ${url}`);
    // Reuse detection (oidc-provider revokes the grant); the answer waits until the edge knows.
    const reused = await refresh(stack, app.clientId, app.refreshToken, { scope: 'sheets:read' });
    expect(reused.body.error).toBe('invalid_grant');
    for (const url of replicas)
      for (const token of [app.accessToken, newer])
        expect(await statusAt(url, withToken(token)), url).toBe(401);
  });

  it('tells a replica the staleness bound auth was started with (REVOCATION_STALE_AFTER_MS)', async () => {
    const client = createRevocationServiceClient({
      address: stack.grpcAddress,
      serviceToken: stack.serviceToken,
    });
    const stream = client.watchRevocations();
    try {
      const snapshot = await new Promise<WatchRevocationsResponse['snapshot']>((resolve, reject) => {
        stream.on('data', (message: WatchRevocationsResponse) => resolve(message.snapshot));
        stream.on('error', reject);
        stream.write({ probe: 1, acknowledged: 0 });
      });
      expect(snapshot).toMatchObject({ heartbeatIntervalMs: 250, staleAfterMs: 10 * 60_000 });
    } finally {
      stream.cancel();
      client.close();
    }
  });

  it('refuses a stream without the service credential, and one that opens without a probe', async () => {
    const outcome = (serviceToken: string, first: WatchRevocationsRequest) => {
      const client = createRevocationServiceClient({ address: stack.grpcAddress, serviceToken });
      const stream = client.watchRevocations();
      return new Promise<number>((resolve) => {
        stream.on('data', () => resolve(GrpcStatus.OK));
        stream.on('error', (error: { code: number }) => resolve(error.code));
        stream.write(first);
      }).finally(() => {
        stream.cancel();
        client.close();
      });
    };
    expect(await outcome(randomBytes(32).toString('base64url'), { probe: 1, acknowledged: 0 })).toBe(
      GrpcStatus.UNAUTHENTICATED,
    );
    expect(await outcome(stack.serviceToken, { probe: 0, acknowledged: 0 })).toBe(
      GrpcStatus.INVALID_ARGUMENT,
    );
    expect(await outcome(stack.serviceToken, { probe: 1, acknowledged: 5 })).toBe(
      GrpcStatus.INVALID_ARGUMENT,
    );
    expect(await outcome(stack.serviceToken, { probe: 1, acknowledged: 0 })).toBe(GrpcStatus.OK);
  });
});
