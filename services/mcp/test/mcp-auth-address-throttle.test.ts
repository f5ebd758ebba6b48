import { randomBytes } from 'node:crypto';
import { createTokenBrokerClient } from '@sheetgate/proto';
import { readJson } from '@sheetgate/test-harness';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type McpUnderTest, postMcp, startMcpUnderTest } from './support/stack.ts';

// Someone guessing API keys from one address: past a bound of unknown keys, auth refuses that
// address's keys it has not verified, without looking them up, while known keys and other
// addresses are served. The test connects over the loopback, which the MCP service trusts as the
// gateway, so X-Forwarded-For names the client as the gateway would.

/** Unknown keys an address may present per window here. */
const BOUND = 5;
let stack: McpUnderTest;
let person: { userId: string; sessionCookie: string };

beforeAll(async () => {
  stack = await startMcpUnderTest(
    {},
    { RATE_LIMIT_OVERRIDES: JSON.stringify({ apiKeyFailures: { points: BOUND, durationSeconds: 600 } }) },
  );
  person = await stack.signIn('alice@example.com');
});
afterAll(async () => {
  await stack?.stop();
});

const LIST = { jsonrpc: '2.0', id: 1, method: 'tools/list' };
const fromAddress = (address: string, key: string) =>
  postMcp(stack.mcpUrl, LIST, {
    headers: { 'mcp-protocol-version': '2025-06-18', 'x-api-key': key, 'x-forwarded-for': address },
  });
const wrongKey = () => `sg_live_${randomBytes(32).toString('base64url')}`;

/** A series of auth's own metrics, by the start of its line. */
async function authMetric(series: RegExp): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${stack.authEnv.AUTH_METRICS_PORT}/metrics`)).text();
  const line = text.split('\n').find((each) => series.test(each));
  if (!line) throw new Error(`auth reports no ${series}`);
  return Number(line.slice(line.lastIndexOf(' ') + 1));
}
/** PostgreSQL reads of presented keys auth has made. */
const keyLookups = () => authMetric(/^sheetgate_auth_api_key_lookups_total[ {]/);
const addressRefusals = () =>
  authMetric(/^sheetgate_auth_rate_limit_refusals_total\{.*limit="apiKeyFailures"/);

describe('unknown API keys per client address', () => {
  it('answers 429 with Retry-After past the bound, stops looking keys up, and serves everyone else', async () => {
    const guesser = '198.51.100.23';
    const known = await stack.createApiKey(person.sessionCookie);
    const neverUsed = await stack.createApiKey(person.sessionCookie);
    // The guesser's own key, verified before the guessing starts.
    expect((await fromAddress(guesser, known.secret)).status).toBe(200);

    for (let i = 0; i < BOUND; i++) expect((await fromAddress(guesser, wrongKey())).status).toBe(401);
    const lookupsAtBound = await keyLookups();
    const refusalsAtBound = await addressRefusals();

    // Sent together, so auth gets them in batches: none is looked up.
    const refused = await Promise.all(Array.from({ length: 40 }, () => fromAddress(guesser, wrongKey())));
    for (const response of refused) {
      expect(response.status).toBe(429);
      const retryAfter = Number(response.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThan(0);
      expect(retryAfter).toBeLessThanOrEqual(600);
      expect(await readJson(response)).toEqual({
        error: 'rate_limited',
        error_description: 'too many invalid API keys from this address',
      });
    }
    expect(await keyLookups()).toBe(lookupsAtBound);
    expect(await addressRefusals()).toBe(refusalsAtBound + 40);

    // A key never seen from the guesser's address waits too (the edge holds no refused key, so
    // auth is asked); its known key does not — held by the MCP replica, it is not even asked about.
    expect((await fromAddress(guesser, neverUsed.secret)).status).toBe(429);
    expect((await fromAddress(guesser, known.secret)).status).toBe(200);
    // Auth's own rule, asked directly as a replica that does not hold the key would: the key it
    // verified still passes from the guesser's address, a stranger's key does not.
    const broker = createTokenBrokerClient({ address: stack.grpcAddress, serviceToken: stack.serviceToken });
    try {
      const { results } = await broker.resolveApiKeys({
        apiKeys: [known.secret, wrongKey()],
        clientAddresses: [guesser, guesser],
      });
      expect(results[0]?.resolved?.keyId).toBe(known.keyId);
      expect(results[1]?.refused?.reason).toBe('API_KEY_REFUSAL_ADDRESS_THROTTLED');
    } finally {
      broker.close();
    }
    // Another client is served meanwhile, with a key auth had to look up.
    expect((await fromAddress('203.0.113.77', neverUsed.secret)).status).toBe(200);
    expect(await keyLookups()).toBe(lookupsAtBound + 1);
  });

  it('counts an IPv6 client by its /64, and forged forwarding from an untrusted hop changes nothing', async () => {
    for (let i = 1; i <= BOUND; i++)
      expect((await fromAddress(`2001:db8:42:1::${i}`, wrongKey())).status).toBe(401);
    expect((await fromAddress('2001:db8:42:1:ffff::9', wrongKey())).status).toBe(429);
    // Prepending another address does not help: the gateway's hop (the last) is the client.
    expect((await fromAddress('192.0.2.99, 2001:db8:42:1::77', wrongKey())).status).toBe(429);
    expect((await fromAddress('2001:db8:42:2::1', wrongKey())).status).toBe(401);
  });
});
