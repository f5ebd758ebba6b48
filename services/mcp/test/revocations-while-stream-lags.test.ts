import { createAccountServiceClient, RevocationSnapshot } from '@sheetgate/proto';
import { type FreezableRelay, startFreezableRelay } from '@sheetgate/test-harness';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectApp } from './support/oauth-app.ts';
import { type McpUnderTest, postMcp, startMcpUnderTest } from './support/stack.ts';

// Available while the revocation stream lags (issue 38, docs/design.md §4.6): a replica whose
// stream is frozen — auth answering everything else — asks auth of every credential instead of
// answering 503, and a revocation made meanwhile is refused at the very next request. Only when
// auth cannot answer either is a request answered 503.

const HEARTBEAT_MS = 250;
const toolsList = { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} };
const withToken = (token: string) => ({ headers: { authorization: `Bearer ${token}` } });
const withKey = (key: string) => ({ headers: { 'x-api-key': key } });

/**
 * What only the revocation stream's connection carries: the timing at the end of its snapshot,
 * as auth encodes it (an empty snapshot is its timing alone).
 */
const SNAPSHOT_TIMING = RevocationSnapshot.encode({
  grants: [],
  persons: [],
  signingKeys: [],
  heartbeatIntervalMs: HEARTBEAT_MS,
  staleAfterMs: HEARTBEAT_MS * 4,
}).finish();

/** Polls until `check` answers true; fails past the deadline (generous: the machine is shared). */
async function eventually(check: () => Promise<boolean>, what: string, deadlineMs = 30_000): Promise<void> {
  const giveUpAt = Date.now() + deadlineMs;
  while (!(await check())) {
    if (Date.now() > giveUpAt) throw new Error(`not within ${deadlineMs} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** One sample's value from Prometheus text (the first series of `name` whose labels include `labels`). */
function sample(text: string, name: string, labels = ''): number {
  const line = text
    .split('\n')
    .find((candidate) => candidate.startsWith(`${name}{`) && candidate.includes(labels));
  return line === undefined ? 0 : Number(line.slice(line.lastIndexOf(' ') + 1));
}

describe('a replica whose revocation stream is frozen while auth answers', () => {
  let stack: McpUnderTest;
  let relay: FreezableRelay;
  let replica: string;
  let metricsUrl: string;
  let person: { userId: string; sessionCookie: string };

  const status = async (headers: { headers: Record<string, string> }) =>
    (await postMcp(replica, toolsList, headers)).status;
  const metric = async (name: string, labels = '') =>
    sample(await (await fetch(metricsUrl)).text(), name, labels);
  const current = () => metric('sheetgate_mcp_revocations_current');
  const checks = () => metric('sheetgate_mcp_broker_calls_total', 'method="CheckRevocations",outcome="ok"');
  const resolves = () => metric('sheetgate_mcp_broker_calls_total', 'method="ResolveApiKeys",outcome="ok"');

  beforeAll(async () => {
    stack = await startMcpUnderTest({}, { REVOCATION_HEARTBEAT_MS: String(HEARTBEAT_MS) });
    const [host, port] = stack.grpcAddress.split(':') as [string, string];
    relay = await startFreezableRelay({ host, port: Number(port) });
    const started = await stack.startMcp({ AUTH_GRPC_ADDRESS: relay.address });
    metricsUrl = started.metricsUrl;
    replica = started.mcpUrl;
    person = await stack.signIn('carol@example.com');
  }, 120_000);
  afterAll(async () => {
    relay?.thaw();
    await relay?.close();
    await stack?.stop();
  });

  it('serves tokens and keys by asking auth, refuses what is revoked meanwhile at the next request, and catches up after the thaw', async () => {
    const app = await connectApp(stack, person.sessionCookie);
    const key = await stack.createApiKey(person.sessionCookie);
    await eventually(async () => (await status(withToken(app.accessToken))) === 200, 'the token verifies');
    expect(await status(withKey(key.secret))).toBe(200);
    await eventually(async () => (await current()) === 1, 'the replica vouches for its stream');

    relay.freezeConnectionsCarrying(SNAPSHOT_TIMING);
    await eventually(async () => (await current()) === 0, 'the replica stops vouching for its stream');

    // Still served: each request asks auth (CheckRevocations for the token, ResolveApiKeys for the
    // key it holds), a token it never saw as well.
    const [checksBefore, resolvesBefore] = [await checks(), await resolves()];
    const other = await connectApp(stack, person.sessionCookie);
    for (const token of [app.accessToken, other.accessToken])
      expect(await status(withToken(token))).toBe(200);
    expect(await status(withKey(key.secret))).toBe(200);
    expect(await status(withKey(key.secret))).toBe(200);
    expect((await checks()) - checksBefore).toBe(2);
    expect((await resolves()) - resolvesBefore).toBe(2);

    // Revoked while the replica cannot hear it: refused at the very next request.
    const accounts = createAccountServiceClient({
      address: stack.grpcAddress,
      serviceToken: stack.serviceToken,
    });
    try {
      const disconnected = await accounts.disconnectApp(
        { sessionCookie: person.sessionCookie, clientId: app.clientId },
        { deadlineMs: 10_000 },
      );
      expect(disconnected.disconnected).toBe(true);
    } finally {
      accounts.close();
    }
    const refused = await postMcp(replica, toolsList, withToken(app.accessToken));
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toContain('error="invalid_token"');
    expect(((await refused.json()) as { error_description: string }).error_description).toMatch(/revoked/);
    await stack.revokeApiKey(person.sessionCookie, key.keyId);
    expect(await status(withKey(key.secret))).toBe(401);
    // The other app's token is still good; all of it came through the slow path.
    expect(await status(withToken(other.accessToken))).toBe(200);
    expect(await current()).toBe(0);

    relay.thaw();
    await eventually(async () => (await current()) === 1, 'the stream is current again after the thaw');
    expect(await status(withToken(app.accessToken))).toBe(401);
    expect(await status(withKey(key.secret))).toBe(401);
    expect(await status(withToken(other.accessToken))).toBe(200);
  });

  it('answers 503 with Retry-After when auth cannot answer either (everything to auth frozen)', async () => {
    const app = await connectApp(stack, person.sessionCookie);
    const key = await stack.createApiKey(person.sessionCookie);
    await eventually(async () => (await status(withToken(app.accessToken))) === 200, 'the token verifies');
    expect(await status(withKey(key.secret))).toBe(200);

    relay.freeze();
    try {
      await eventually(async () => (await current()) === 0, 'the replica stops vouching for its stream');
      for (const headers of [withToken(app.accessToken), withKey(key.secret)]) {
        const response = await postMcp(replica, toolsList, headers);
        expect(response.status).toBe(503);
        expect(Number(response.headers.get('retry-after'))).toBeGreaterThan(0);
        expect(((await response.json()) as { error: string }).error).toBe('temporarily_unavailable');
      }
    } finally {
      relay.thaw();
    }
    await eventually(async () => (await status(withToken(app.accessToken))) === 200, 'served after the thaw');
    expect(await status(withKey(key.secret))).toBe(200);
  });
});
