import { randomUUID } from 'node:crypto';
import type { RunningService } from '@sheetgate/test-harness';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type McpUnderTest,
  newSigningKey,
  postMcp,
  type SigningKey,
  signingKeysSetting,
  startMcpUnderTest,
} from './support/stack.ts';

// How the MCP service follows auth's signing keys (docs/design.md §7.1, issue 5): a token naming a
// kid it does not know makes it fetch the JWKS again, at most once per cooldown; a key that leaves
// the JWKS stops every token it signed, even tokens the service has verified and cached, and even
// when no request ever asks for a key (a timer refreshes the set).

const LIST = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
let stack: McpUnderTest;
let first: SigningKey;

const post = (url: string, token: string) =>
  postMcp(url, LIST, { headers: { authorization: `Bearer ${token}`, accept: 'application/json' } });

/** How many times auth has served its JWKS (its request log has one line per request). */
const jwksFetches = () => stack.auth.output.filter((line) => line.includes('"path":"/api/auth/jwks"')).length;

/**
 * The JWKS fetch count once auth's log has caught up: its line is written after the response, and
 * read from a pipe, so it may reach the test after mcp has answered. Auth logs a request of the
 * test's own, made now, after every request it answered before; once that line has come through
 * the pipe, so has every JWKS line of the requests mcp made before answering.
 */
async function settledJwksFetches(): Promise<number> {
  const marker = `/api/auth/log-marker-${randomUUID()}`;
  await (await fetch(`${stack.baseUrl}${marker}`)).arrayBuffer();
  const deadline = Date.now() + 5_000;
  while (!stack.auth.output.some((line) => line.includes(`"path":"${marker}"`))) {
    if (Date.now() > deadline) throw new Error(`auth never logged ${marker}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return jwksFetches();
}

beforeAll(async () => {
  // Refreshes on the timer only hourly here, with a long cooldown: any fetch the test sees was
  // caused by an unknown kid. Auth logs every request (info) so the fetches can be counted.
  stack = await startMcpUnderTest(
    { JWKS_REFRESH_SECONDS: '3600', JWKS_COOLDOWN_SECONDS: '600' },
    { LOG_LEVEL: 'info' },
  );
  first = {
    kid: stack.kid,
    privateKey: stack.signingKey,
    jwk: JSON.parse(stack.authEnv.AUTH_SIGNING_KEYS!).keys[0],
  };
});
afterAll(async () => {
  await stack?.stop();
});

describe('the JWKS cache', () => {
  it('fetches again for a new kid, but not for a second unknown kid within the cooldown', async () => {
    expect((await post(stack.mcpUrl, await stack.sign())).status).toBe(200);
    const second = await newSigningKey();
    const third = await newSigningKey();
    await stack.restartAuth({ AUTH_SIGNING_KEYS: signingKeysSetting([second, first]) });
    const before = await settledJwksFetches();

    // A kid the cached set lacks: one fetch, and the new key's token is accepted.
    expect((await post(stack.mcpUrl, await stack.sign({}, {}, second))).status).toBe(200);
    expect(await settledJwksFetches()).toBe(before + 1);

    // Auth now publishes a third key, but the cooldown has not passed: no fetch, the token is refused.
    await stack.restartAuth({ AUTH_SIGNING_KEYS: signingKeysSetting([third, second, first]) });
    const afterRestart = await settledJwksFetches();
    const refused = await post(stack.mcpUrl, await stack.sign({}, {}, third));
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toMatch(/^Bearer error="invalid_token"/);
    // Made-up kids do not make it fetch either.
    for (let i = 0; i < 5; i++)
      expect((await post(stack.mcpUrl, await stack.sign({}, { kid: `made-up-${i}` }))).status).toBe(401);
    expect(await settledJwksFetches()).toBe(afterRestart);
  });

  it('refuses the cached tokens of a key removed from the JWKS once the timer has refreshed the set', async () => {
    // A second MCP process that refreshes every second.
    const quick: RunningService & { mcpUrl: string } = await stack.startMcp({
      JWKS_REFRESH_SECONDS: '1',
      JWKS_COOLDOWN_SECONDS: '1',
    });
    const retiring = await newSigningKey();
    const staying = await newSigningKey();
    await stack.restartAuth({ AUTH_SIGNING_KEYS: signingKeysSetting([staying, retiring]) });
    const oldToken = await stack.sign({ exp: Math.floor(Date.now() / 1000) + 600 }, {}, retiring);
    const newToken = await stack.sign({}, {}, staying);
    // Verified once, then served from the verified-token cache: no key lookups from here on.
    for (let i = 0; i < 3; i++) expect((await post(quick.mcpUrl, oldToken)).status).toBe(200);

    await stack.restartAuth({ AUTH_SIGNING_KEYS: signingKeysSetting([staying]) });
    let status = 200;
    const deadline = Date.now() + 15_000;
    while (status === 200 && Date.now() < deadline) {
      status = (await post(quick.mcpUrl, oldToken)).status;
      if (status === 200) await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(status).toBe(401);
    expect((await post(quick.mcpUrl, newToken)).status).toBe(200);
    await quick.stop();
  });
});
