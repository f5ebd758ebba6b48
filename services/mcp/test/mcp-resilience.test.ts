import { readJson } from '@sheetgate/test-harness';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type McpUnderTest, postMcp, startMcpUnderTest } from './support/stack.ts';

let stack: McpUnderTest;
let apiKey: string;

beforeAll(async () => {
  stack = await startMcpUnderTest();
  const { sessionCookie } = await stack.signIn('alice@example.com');
  apiKey = (await stack.createApiKey(sessionCookie, { scopes: ['sheets:read'] })).secret;
});
afterAll(async () => {
  await stack?.stop();
});

const post = (body: string, headers: Record<string, string>) => postMcp(stack.mcpUrl, body, { headers });
const LIST = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' });

describe('when auth is down', () => {
  it('JWT requests and API keys get 503 with Retry-After (revocations cannot be vouched for, keys cannot be resolved), then recover', async () => {
    const token = await stack.sign();
    expect((await post(LIST, { authorization: `Bearer ${token}` })).status).toBe(200);
    expect((await post(LIST, { 'x-api-key': apiKey })).status).toBe(200);

    await stack.auth.stop();
    // Without the revocation stream the replica cannot know whether a token's grant was revoked:
    // neither a remembered token nor one never seen before is trusted.
    for (const bearer of [token, await stack.sign()]) {
      const refused = await post(LIST, { authorization: `Bearer ${bearer}` });
      expect(refused.status).toBe(503);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(await refused.text()).not.toContain(bearer);
    }
    const keyed = await post(LIST, { 'x-api-key': apiKey });
    expect(keyed.status).toBe(503);
    expect(Number(keyed.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await keyed.text()).not.toContain(apiKey);

    await stack.restartAuth();
    const credentials: Record<string, string>[] = [
      { 'x-api-key': apiKey },
      { authorization: `Bearer ${token}` },
    ];
    for (const headers of credentials) {
      let status = 0;
      for (let attempt = 0; attempt < 50 && status !== 200; attempt++) {
        status = (await post(LIST, headers)).status;
        if (status !== 200) await new Promise((resolve) => setTimeout(resolve, 200));
      }
      expect(status).toBe(200);
    }
  });
});

describe('when auth is down as mcp starts', () => {
  it('JWT requests get 503 with Retry-After (there are no keys to verify with yet), then verify once auth is up', async () => {
    await stack.auth.stop();
    // mcp is ready without auth (its /readyz depends on nothing); a short cooldown so it fetches
    // again soon after auth is back.
    const replica = await stack.startMcp({ JWKS_COOLDOWN_SECONDS: '1' });
    const send = (token: string) =>
      postMcp(replica.mcpUrl, LIST, { headers: { authorization: `Bearer ${token}` } });
    try {
      const token = await stack.sign();
      for (let attempt = 0; attempt < 3; attempt++) {
        const refused = await send(token);
        expect(refused.status).toBe(503);
        expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
        const body = await refused.text();
        expect(JSON.parse(body)).toEqual({
          error: 'temporarily_unavailable',
          error_description: expect.stringMatching(/retry/),
        });
        expect(body).not.toContain(token);
      }

      await stack.restartAuth();
      let status = 0;
      for (let attempt = 0; attempt < 50 && status !== 200; attempt++) {
        status = (await send(token)).status;
        if (status !== 200) await new Promise((resolve) => setTimeout(resolve, 200));
      }
      expect(status).toBe(200);
    } finally {
      await replica.stop();
      if (stack.auth.process.exitCode !== null || stack.auth.process.signalCode !== null)
        await stack.restartAuth();
    }
  });
});

describe('hostile input (property-based)', () => {
  it('arbitrary JSON bodies never crash the endpoint: always a JSON-RPC or JSON answer, never a 5xx', async () => {
    const token = await stack.sign();
    await fc.assert(
      fc.asyncProperty(fc.jsonValue({ maxDepth: 4 }), async (value) => {
        const response = await post(JSON.stringify(value), { authorization: `Bearer ${token}` });
        const text = await response.text();
        expect(response.status).toBeLessThan(500);
        if (response.status !== 202) expect(() => JSON.parse(text)).not.toThrow();
        return true;
      }),
      { numRuns: 150 },
    );
  });

  it('arbitrary JSON-RPC-shaped messages get an answer with their own id or an error', async () => {
    const token = await stack.sign();
    const message = fc.record(
      {
        jsonrpc: fc.constantFrom('2.0', '1.0', 2),
        id: fc.oneof(fc.integer(), fc.string({ maxLength: 20 }), fc.constant(null)),
        method: fc.oneof(
          fc.constantFrom('tools/list', 'tools/call', 'ping', 'initialize', 'resources/list'),
          fc.string({ maxLength: 30 }),
        ),
        params: fc.oneof(fc.object({ maxDepth: 2 }), fc.constant([]), fc.constant('x')),
      },
      { requiredKeys: [] },
    );
    await fc.assert(
      fc.asyncProperty(message, async (body) => {
        const response = await post(JSON.stringify(body), {
          authorization: `Bearer ${token}`,
          'mcp-protocol-version': '2025-06-18',
        });
        expect(response.status).toBeLessThan(500);
        if (response.status === 200) {
          const reply = await readJson(response);
          expect(reply.jsonrpc).toBe('2.0');
          expect('result' in reply || 'error' in reply).toBe(true);
        }
        return true;
      }),
      { numRuns: 150 },
    );
  });

  it('arbitrary Authorization and x-api-key headers are refused cleanly and never echoed', async () => {
    const headerValue = fc
      .string({ minLength: 1, maxLength: 300 })
      .filter((value) => /^[\x21-\x7e][\x20-\x7e]*$/.test(value));
    await fc.assert(
      fc.asyncProperty(headerValue, fc.boolean(), async (value, asKey) => {
        const response = await post(
          LIST,
          asKey ? { 'x-api-key': value } : { authorization: `Bearer ${value}` },
        );
        expect([400, 401]).toContain(response.status);
        const body = await response.text();
        if (value.length > 8) expect(body).not.toContain(value);
        return true;
      }),
      { numRuns: 150 },
    );
  });
});
