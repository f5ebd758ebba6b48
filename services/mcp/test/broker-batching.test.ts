import { createTokenBrokerClient } from '@sheetgate/proto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { brokerApiKeyResolver } from '../src/auth/broker-clients.ts';
import { type McpUnderTest, startMcpUnderTest } from './support/stack.ts';

// The MCP service's side of ResolveApiKeys against a real auth process: keys asked for in the
// same event-loop turn travel in one call (at most 256 each), and each gets its own answer. This
// resolver is what the edge (api-key-edge.ts) asks for keys it does not hold; what it holds is
// covered by api-key-edge.test.ts and api-keys-at-the-edge.test.ts.

let stack: McpUnderTest;
let broker: ReturnType<typeof createTokenBrokerClient>;
let secret: string;

/** ResolveApiKeys calls auth has answered, from its own metrics. */
async function batchCalls(): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${stack.authEnv.AUTH_METRICS_PORT}/metrics`)).text();
  const line = text
    .split('\n')
    .find(
      (each) =>
        each.startsWith('sheetgate_auth_grpc_calls_total{') && each.includes('method="ResolveApiKeys"'),
    );
  return line ? Number(line.slice(line.lastIndexOf(' ') + 1)) : 0;
}

beforeAll(async () => {
  stack = await startMcpUnderTest();
  const { sessionCookie } = await stack.signIn('alice@example.com');
  secret = (await stack.createApiKey(sessionCookie, { scopes: ['sheets:read'] })).secret;
  broker = createTokenBrokerClient({ address: stack.grpcAddress, serviceToken: stack.serviceToken });
});
afterAll(async () => {
  broker?.close();
  await stack?.stop();
});

describe('ResolveApiKeys batches', () => {
  it('sends the keys of one event-loop turn in one call and answers each in order', async () => {
    const resolver = brokerApiKeyResolver(broker);
    const unknown = `sg_live_${'A'.repeat(43)}`;
    const before = await batchCalls();
    const keys = Array.from({ length: 10 }, (_, index) => (index % 3 === 2 ? unknown : secret));
    const answers = await Promise.all(keys.map((key) => resolver.resolve(key, '192.0.2.1')));
    expect(answers.map((answer) => (answer.ok ? 'ok' : answer.reason))).toEqual(
      keys.map((key) => (key === secret ? 'ok' : 'unknown')),
    );
    expect(await batchCalls()).toBe(before + 1);
  });

  it('splits a turn of more than 256 keys into calls of at most 256', async () => {
    const resolver = brokerApiKeyResolver(broker);
    const before = await batchCalls();
    const answers = await Promise.all(
      Array.from({ length: 300 }, () => resolver.resolve(secret, '192.0.2.2')),
    );
    expect(answers.every((answer) => answer.ok)).toBe(true);
    expect(await batchCalls()).toBe(before + 2);
  });

  it('answers unavailable for every key of a batch auth cannot be asked about', async () => {
    const nowhere = createTokenBrokerClient({ address: '127.0.0.1:1', serviceToken: stack.serviceToken });
    try {
      const answers = await Promise.all(
        [1, 2, 3].map(() => brokerApiKeyResolver(nowhere).resolve(secret, '192.0.2.3')),
      );
      for (const answer of answers)
        expect(answer).toEqual({ ok: false, reason: 'unavailable', retryAfterSeconds: 5 });
    } finally {
      nowhere.close();
    }
  });
});
