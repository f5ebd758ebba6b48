import { randomBytes } from 'node:crypto';
import { freePort, readJson } from '@sheetgate/test-harness';
import { base64url, CompactEncrypt, exportJWK, generateKeyPair, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registeredTools } from '../src/tools/registry.ts';
import { oneCallOfEachTool, TOOL_CALL_BOOK } from './support/every-tool-call.ts';
import { REGISTERED_TOOL_COUNT } from './support/registered-tools.ts';
import { type McpUnderTest, postMcp, startMcpUnderTest } from './support/stack.ts';

let stack: McpUnderTest;
let person: { userId: string; sessionCookie: string };
/**
 * The per-key limit auth is started with here: 60 requests a minute, above what the scope test
 * below sends with one read-only key (a tools/list and one call of each tool).
 */
// Above one call of every tool and a tools/list (the scope test below spends that much of one key).
const KEY_LIMIT = 100;
beforeAll(async () => {
  stack = await startMcpUnderTest(
    {},
    { RATE_LIMIT_OVERRIDES: JSON.stringify({ apiKey: { points: KEY_LIMIT, durationSeconds: 60 } }) },
  );
  person = await stack.signIn('alice@example.com');
});
afterAll(async () => {
  await stack?.stop();
});

const LIST = { jsonrpc: '2.0', id: 1, method: 'tools/list' };

const post = (body: unknown, headers: Record<string, string> = {}) =>
  postMcp(stack.mcpUrl, body, { headers: { 'mcp-protocol-version': '2025-06-18', ...headers } });

const metadataUrl = () => `${stack.baseUrl}/.well-known/oauth-protected-resource/api/mcp`;

describe('error contract of /api/mcp (docs/design.md §8)', () => {
  it('no credentials: 401 with the resource metadata and scopes, and the DPoP scheme offered', async () => {
    const response = await post(LIST);
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe(
      `Bearer resource_metadata="${metadataUrl()}", scope="sheets:read sheets:write", DPoP algs="ES256 Ed25519 EdDSA"`,
    );
  });

  it('a valid access token lists the tools', async () => {
    const response = await post(LIST, { authorization: `Bearer ${await stack.sign()}` });
    expect(response.status).toBe(200);
    const body = await readJson(response);
    expect(body.id).toBe(1);
    expect(body.result.tools.length).toBe(REGISTERED_TOOL_COUNT);
  });

  it('the Authorization header is `Bearer <token>`, the scheme in any case; anything else is 401 malformed', async () => {
    const token = await stack.sign();
    // The first verifies the token; the others find it verified, whatever the scheme's case.
    for (const scheme of ['Bearer', 'bearer', 'BEARER'])
      expect((await post(LIST, { authorization: `${scheme} ${token}` })).status).toBe(200);
    expect((await post(LIST, { authorization: `bEaReR ${await stack.sign()}` })).status).toBe(200);
    // A verified token with anything around it is another string, checked in full.
    for (const header of [
      `Basic ${token}`,
      token,
      'Bearer',
      `Bearer  ${token}`,
      `Bearer ${token} x`,
      `Bearer ${token},`,
      `Bearer\t${token}`,
      `Bearer ${token}=a`,
    ]) {
      const response = await post(LIST, { authorization: header });
      expect(response.status, header.slice(0, 12)).toBe(401);
      expect(response.headers.get('www-authenticate')).toBe(
        `Bearer error="invalid_token", error_description="malformed Authorization header", resource_metadata="${metadataUrl()}", DPoP algs="ES256 Ed25519 EdDSA"`,
      );
    }
  });

  it('a verified token stops being accepted once it expires', async () => {
    const exp = now() + 1;
    const token = await stack.sign({ exp });
    expect((await post(LIST, { authorization: `Bearer ${token}` })).status).toBe(200);
    // Past its expiry and the 5 s clock tolerance the verification was remembered with.
    await new Promise((resolve) => setTimeout(resolve, (exp + 5) * 1000 - Date.now() + 200));
    const response = await post(LIST, { authorization: `Bearer ${token}` });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toContain(
      'error="invalid_token", error_description="the access token has expired"',
    );
  });

  const otherKey = async () => (await generateKeyPair('ES256')).privateKey;
  const now = () => Math.floor(Date.now() / 1000);
  const badTokens: Array<[string, () => Promise<string>]> = [
    ['expired', () => stack.sign({ iat: now() - 600, exp: now() - 60 })],
    ['issued in the future', () => stack.sign({ iat: now() + 600, exp: now() + 900 })],
    ['not valid yet (nbf)', () => stack.sign({ nbf: now() + 600 })],
    ['from another issuer', () => stack.sign({ iss: 'https://evil.example' })],
    ['for another audience', () => stack.sign({ aud: 'https://other.example/api/mcp' })],
    ['typed as a plain JWT (an ID token)', () => stack.sign({}, { typ: 'JWT' })],
    [
      'signed by an unknown key',
      async () => {
        const now = Math.floor(Date.now() / 1000);
        return new SignJWT({
          iss: stack.baseUrl,
          aud: stack.resource,
          sub: 'u',
          scope: 'sheets:read',
          iat: now,
          exp: now + 60,
        })
          .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: 'unknown-kid' })
          .sign(await otherKey());
      },
    ],
    [
      'signed by another key under our kid',
      async () => {
        const now = Math.floor(Date.now() / 1000);
        return new SignJWT({
          iss: stack.baseUrl,
          aud: stack.resource,
          sub: 'u',
          scope: 'sheets:read',
          iat: now,
          exp: now + 60,
        })
          .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: stack.kid })
          .sign(await otherKey());
      },
    ],
    [
      'with alg none',
      async () => {
        const header = base64url.encode(JSON.stringify({ alg: 'none', typ: 'at+jwt', kid: stack.kid }));
        const payload = base64url.encode(
          JSON.stringify({
            iss: stack.baseUrl,
            aud: stack.resource,
            sub: 'u',
            scope: 'sheets:read',
            exp: now() + 60,
          }),
        );
        return `${header}.${payload}.`;
      },
    ],
    [
      'HS256 signed with the public key',
      async () => {
        const publicJwk = await exportJWK(stack.signingKey);
        const secret = new TextEncoder().encode(
          JSON.stringify({ kty: publicJwk.kty, crv: publicJwk.crv, x: publicJwk.x, y: publicJwk.y }),
        );
        return new SignJWT({
          iss: stack.baseUrl,
          aud: stack.resource,
          sub: 'u',
          scope: 'sheets:read',
          iat: now(),
          exp: now() + 60,
        })
          .setProtectedHeader({ alg: 'HS256', typ: 'at+jwt', kid: stack.kid })
          .sign(secret);
      },
    ],
    ['naming its own key (jku)', () => stack.sign({}, { jku: 'https://evil.example/jwks.json' })],
    ['whose toolsets claim is a string, not a list', () => stack.sign({ toolsets: 'core-read' })],
    ['whose toolsets claim lists a number', () => stack.sign({ toolsets: ['core-read', 1] })],
    ['opaque', async () => randomBytes(32).toString('base64url')],
    [
      'encrypted (JWE)',
      async () => {
        const { publicKey } = await generateKeyPair('RSA-OAEP-256');
        return new CompactEncrypt(new TextEncoder().encode('{}'))
          .setProtectedHeader({ alg: 'RSA-OAEP-256', enc: 'A256GCM' })
          .encrypt(publicKey);
      },
    ],
  ];

  it.each(badTokens)('refuses a token %s: 401 invalid_token', async (_name, make) => {
    const response = await post(LIST, { authorization: `Bearer ${await make()}` });
    expect(response.status).toBe(401);
    const challenge = response.headers.get('www-authenticate') ?? '';
    expect(challenge).toMatch(/^Bearer error="invalid_token"/);
    expect(challenge).toContain(`resource_metadata="${metadataUrl()}"`);
    const body = await response.text();
    expect(body).not.toContain('eyJ');
  });

  it('a token with a toolsets claim lists those sets only; sets this replica does not know enable nothing', async () => {
    const names = async (toolsets: unknown) => {
      const response = await post(LIST, { authorization: `Bearer ${await stack.sign({ toolsets })}` });
      expect(response.status).toBe(200);
      return ((await readJson(response)).result.tools as Array<{ name: string }>).map((tool) => tool.name);
    };
    const reading = await names(['core-read']);
    expect(reading).toContain('read_range');
    expect(reading).not.toContain('write_range');
    expect(reading).not.toContain('add_sheet');
    expect(await names(['core-read', 'from-a-newer-auth'])).toEqual(reading);
    expect(await names([])).toEqual([]);
    const call = {
      jsonrpc: '2.0',
      id: 3,
      method: 'tools/call',
      params: { name: 'write_range', arguments: {} },
    };
    const refused = await post(call, {
      authorization: `Bearer ${await stack.sign({ toolsets: ['core-read'] })}`,
    });
    expect((await readJson(refused)).error).toMatchObject({
      code: -32602,
      message: expect.stringContaining('"core-write" (Writing)'),
    });
  });

  it('a token without sheets:read: 403 insufficient_scope', async () => {
    const response = await post(LIST, { authorization: `Bearer ${await stack.sign({ scope: 'openid' })}` });
    expect(response.status).toBe(403);
    expect(response.headers.get('www-authenticate')).toBe(
      `Bearer error="insufficient_scope", scope="sheets:read", resource_metadata="${metadataUrl()}"`,
    );
  });

  it('a write tool with a read-only token: 403 naming sheets:write (step-up)', async () => {
    const token = await stack.sign({ scope: 'sheets:read' });
    const call = {
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'write_range', arguments: {} },
    };
    const response = await post(call, { authorization: `Bearer ${token}` });
    expect(response.status).toBe(403);
    expect(response.headers.get('www-authenticate')).toContain('scope="sheets:write"');
    // Reading is still allowed with that token.
    expect((await post(LIST, { authorization: `Bearer ${token}` })).status).toBe(200);
  });

  it('both a bearer token and an API key: 400 invalid_request, echoing neither', async () => {
    const token = await stack.sign();
    const key = `sg_live_${randomBytes(32).toString('base64url')}`;
    const response = await post(LIST, { authorization: `Bearer ${token}`, 'x-api-key': key });
    expect(response.status).toBe(400);
    const body = await response.text();
    expect(JSON.parse(body).error).toBe('invalid_request');
    expect(body).not.toContain(token);
    expect(body).not.toContain(key);
  });

  it('ignores a token in the query string', async () => {
    const response = await fetch(`${stack.mcpUrl}?access_token=${await stack.sign()}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify(LIST),
    });
    expect(response.status).toBe(401);
  });

  it('API keys get 503 with Retry-After while auth cannot be asked; malformed ones 401 without asking', async () => {
    // An MCP process whose broker address answers nothing: auth cannot be asked at all.
    const orphan = await stack.startMcp({ AUTH_GRPC_ADDRESS: `127.0.0.1:${await freePort()}` });
    try {
      const send = (key: string) =>
        fetch(orphan.mcpUrl, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json', 'x-api-key': key },
          body: JSON.stringify(LIST),
        });
      for (const key of [
        `sg_live_${randomBytes(32).toString('base64url')}`,
        `legacy_${randomBytes(16).toString('hex')}`,
      ]) {
        const response = await send(key);
        expect(response.status).toBe(503);
        expect(Number(response.headers.get('retry-after'))).toBeGreaterThan(0);
        const body = await response.text();
        expect(JSON.parse(body).error).toBe('temporarily_unavailable');
        expect(body).not.toContain(key);
      }
      // A value no key can have is refused before any call to auth: 401, even with auth away.
      for (const key of ['short', 'sg_live_tooshort', 'x'.repeat(300), 'has spaces in it, see?']) {
        const response = await send(key);
        expect(response.status).toBe(401);
        expect((await readJson(response)).error).toBe('invalid_api_key');
      }
    } finally {
      await orphan.stop();
    }
  });
});

describe('API keys at /api/mcp (docs/design.md §8)', () => {
  const withKey = (key: string, body: unknown = LIST) => post(body, { 'x-api-key': key });

  it('a live key lists the tools', async () => {
    const { secret } = await stack.createApiKey(person.sessionCookie);
    const response = await withKey(secret);
    expect(response.status).toBe(200);
    expect((await readJson(response)).result.tools).toHaveLength(REGISTERED_TOOL_COUNT);
  });

  it('an unknown key: 401 JSON error, no challenge, the key never echoed', async () => {
    const key = `sg_live_${randomBytes(32).toString('base64url')}`;
    const response = await withKey(key);
    expect(response.status).toBe(401);
    expect(response.headers.get('content-type')).toMatch(/application\/json/);
    const body = await response.text();
    expect(JSON.parse(body)).toEqual({
      error: 'invalid_api_key',
      error_description: 'the API key is not valid',
    });
    expect(body).not.toContain(key);
  });

  it('an expired key: 401 JSON error saying so', async () => {
    const expiresAt = new Date(Date.now() + 1_500);
    const { secret } = await stack.createApiKey(person.sessionCookie, { expiresAt });
    expect((await withKey(secret)).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, expiresAt.getTime() - Date.now() + 100));
    const response = await withKey(secret);
    expect(response.status).toBe(401);
    expect(await readJson(response)).toEqual({
      error: 'invalid_api_key',
      error_description: 'the API key has expired',
    });
  });

  it('a revoked key: 401 JSON error on the very next request', async () => {
    const { secret, keyId } = await stack.createApiKey(person.sessionCookie);
    for (let i = 0; i < 3; i++) expect((await withKey(secret)).status).toBe(200);
    await stack.revokeApiKey(person.sessionCookie, keyId);
    const response = await withKey(secret);
    expect(response.status).toBe(401);
    expect((await readJson(response)).error_description).toBe('the API key has been revoked');
  });

  it('a key over its rate limit: 429 with Retry-After, other keys unaffected', async () => {
    const busy = await stack.createApiKey(person.sessionCookie);
    const quiet = await stack.createApiKey(person.sessionCookie);
    // Sent together before the replica holds the key, so the MCP service hands auth a batch: each
    // request still counts once. The next is the first served from what the replica holds: its
    // lease finds the window spent.
    // A 503 (keys cannot be checked right now: auth did not answer in time on a loaded machine)
    // reaches neither the key's count nor the point of this test: it is sent again after its
    // Retry-After, as a client does. Any other answer stays as it came.
    const send = async (): Promise<number> => {
      for (let attempt = 1; ; attempt++) {
        const response = await withKey(busy.secret);
        if (response.status !== 503 || attempt === 5) return response.status;
        await new Promise((resolve) =>
          setTimeout(resolve, Number(response.headers.get('retry-after') ?? 1) * 1000),
        );
      }
    };
    const statuses = await Promise.all(Array.from({ length: KEY_LIMIT }, send));
    expect(statuses).toEqual(Array.from({ length: KEY_LIMIT }, () => 200));
    const refused = await withKey(busy.secret);
    expect(refused.status).toBe(429);
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect((await readJson(refused)).error).toBe('rate_limited');
    expect((await withKey(quiet.secret)).status).toBe(200);
  });
});

describe('every tool needs the scope docs/design.md §11 gives it', () => {
  // The registry's own lists: a tool's scope is named once, in its definition.
  const READ_TOOLS = registeredTools()
    .filter((tool) => tool.scope === 'sheets:read')
    .map((tool) => tool.name);
  const WRITE_TOOLS = registeredTools()
    .filter((tool) => tool.scope === 'sheets:write')
    .map((tool) => tool.name);
  let readCalls: Map<string, Record<string, unknown>>;
  beforeAll(async () => {
    const [spreadsheetId] = await stack.seed('alice@example.com', TOOL_CALL_BOOK);
    readCalls = new Map(oneCallOfEachTool({ spreadsheetId: spreadsheetId!, planId: 0, notesId: 1 }));
  });

  it.each(['a read-only access token', 'a read-only API key'])(
    'with %s: each listed write tool is 403 insufficient_scope (sheets:write), each read tool runs',
    async (credential) => {
      const headers: Record<string, string> =
        credential === 'a read-only access token'
          ? { authorization: `Bearer ${await stack.sign({ sub: person.userId, scope: 'sheets:read' })}` }
          : {
              'x-api-key': (await stack.createApiKey(person.sessionCookie, { scopes: ['sheets:read'] }))
                .secret,
            };
      const listed = (await readJson(await post(LIST, headers))).result.tools as Array<{
        name: string;
        annotations: { readOnlyHint: boolean };
      }>;
      expect(listed.map((tool) => tool.name).sort()).toEqual([...READ_TOOLS, ...WRITE_TOOLS].sort());
      for (const tool of listed) {
        const response = await post(
          {
            jsonrpc: '2.0',
            id: 5,
            method: 'tools/call',
            params: { name: tool.name, arguments: readCalls.get(tool.name) ?? {} },
          },
          headers,
        );
        if (WRITE_TOOLS.includes(tool.name)) {
          expect(response.status, tool.name).toBe(403);
          expect(response.headers.get('www-authenticate'), tool.name).toBe(
            `Bearer error="insufficient_scope", scope="sheets:write", resource_metadata="${metadataUrl()}"`,
          );
          expect(tool.annotations.readOnlyHint, tool.name).toBe(false);
        } else {
          // Reached the tool and ran it: an answer, not a refusal nor a tool error.
          expect(response.status, tool.name).toBe(200);
          const { result } = await readJson(response);
          expect(result, tool.name).toBeDefined();
          expect(result.isError, `${tool.name}: ${JSON.stringify(result.content)}`).not.toBe(true);
          expect(tool.annotations.readOnlyHint, tool.name).toBe(true);
        }
      }
    },
  );
});

describe('Streamable HTTP request handling', () => {
  let token: string;
  beforeAll(async () => {
    token = await stack.sign();
  });
  const authed = (headers: Record<string, string> = {}) => ({ authorization: `Bearer ${token}`, ...headers });

  it.each(['GET', 'DELETE'])('%s answers 405', async (method) => {
    const response = await fetch(stack.mcpUrl, { method, headers: authed() });
    expect(response.status).toBe(405);
  });

  it('refuses a foreign Origin (DNS rebinding)', async () => {
    const response = await post(LIST, authed({ origin: 'https://evil.example' }));
    expect(response.status).toBe(403);
  });

  it('refuses an unknown protocol version', async () => {
    const response = await post(LIST, authed({ 'mcp-protocol-version': '1999-01-01' }));
    expect(response.status).toBe(400);
  });

  it.each(['2025-11-25', '2025-06-18', '2025-03-26'])('accepts protocol version %s', async (version) => {
    const response = await post(LIST, authed({ 'mcp-protocol-version': version }));
    expect(response.status).toBe(200);
  });

  it('refuses a body that is not JSON as a JSON-RPC parse error', async () => {
    const response = await post('{"jsonrpc":', authed());
    expect(response.status).toBe(400);
    expect((await readJson(response)).error.code).toBe(-32700);
  });

  it('refuses a body nested 10,000 levels deep as a JSON-RPC parse error', async () => {
    const deep = `${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}`;
    const body = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_spreadsheets","arguments":${deep}}}`;
    const response = await post(body, authed());
    expect(response.status).toBe(400);
    expect((await readJson(response)).error).toMatchObject({
      code: -32700,
      message: expect.stringContaining('nested deeper than'),
    });
  });

  it.each([
    ['an array of strings', '["x"]', 400],
    ['a request with extra members', { jsonrpc: '2.0', id: 3, method: 'tools/list', extra: true }, 400],
    ['a wrong jsonrpc version', { jsonrpc: '1.0', id: 3, method: 'tools/list' }, 400],
    ['a null id', { jsonrpc: '2.0', id: null, method: 'tools/list' }, 400],
    ['a number', '42', 400],
  ])(
    'answers %s with HTTP %d and -32600 (valid JSON, not a JSON-RPC message), never hanging',
    async (_name, body, status) => {
      const response = await post(body, authed());
      expect(response.status).toBe(status);
      expect((await readJson(response)).error.code).toBe(-32600);
    },
  );

  it('answers an unknown method with -32601', async () => {
    const response = await post({ jsonrpc: '2.0', id: 'x', method: 'nope/nothing' }, authed());
    expect(await readJson(response)).toMatchObject({ id: 'x', error: { code: -32601 } });
  });

  it('accepts notifications with 202 and no body', async () => {
    const response = await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, authed());
    expect(response.status).toBe(202);
    expect(await response.text()).toBe('');
  });

  it('refuses a body over MCP_MAX_REQUEST_BYTES (4 MiB) with 413', async () => {
    const response = await post(
      { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { pad: 'x'.repeat(4 * 1024 * 1024) } },
      authed(),
    );
    expect(response.status).toBe(413);
    // A request with an id is answered in JSON-RPC words (limits-per-call.test.ts: a tools/call is
    // a tool error instead).
    expect(await response.json()).toMatchObject({ id: 1, error: { code: -32600 } });
  });

  it('refuses a non-JSON content type with 415', async () => {
    const response = await fetch(stack.mcpUrl, {
      method: 'POST',
      headers: authed({ 'content-type': 'text/plain' }),
      body: 'x',
    });
    expect(response.status).toBe(415);
  });

  it('keeps concurrent clients apart even when they reuse the same JSON-RPC id', async () => {
    const replies = await Promise.all(
      Array.from({ length: 40 }, (_, index) =>
        post({ jsonrpc: '2.0', id: 1, method: index % 2 ? 'tools/list' : 'ping' }, authed()).then(readJson),
      ),
    );
    replies.forEach((reply, index) => {
      expect(reply.id).toBe(1);
      if (index % 2) expect(reply.result.tools).toHaveLength(REGISTERED_TOOL_COUNT);
      else expect(reply.result).toEqual({});
    });
  });

  it('allows batches only in protocol 2025-03-26', async () => {
    const batch = [LIST, { jsonrpc: '2.0', id: 2, method: 'ping' }];
    expect((await post(batch, authed())).status).toBe(400);
    const response = await post(batch, authed({ 'mcp-protocol-version': '2025-03-26' }));
    expect(response.status).toBe(200);
    const replies = await readJson(response);
    expect(replies.map((reply: { id: number }) => reply.id)).toEqual([1, 2]);
  });

  it('initializes without remembering the client on the shared server', async () => {
    const initialize = (version: string, name: string) =>
      post(
        {
          jsonrpc: '2.0',
          id: 9,
          method: 'initialize',
          params: { protocolVersion: version, capabilities: {}, clientInfo: { name, version: '1' } },
        },
        // Before initialization a client may not know a version to put in the header.
        authed({ 'mcp-protocol-version': version.startsWith('2030') ? '2025-03-26' : version }),
      ).then(readJson);
    const first = await initialize('2025-06-18', 'client-a');
    const second = await initialize('2025-03-26', 'client-b');
    expect(first.result).toMatchObject({
      protocolVersion: '2025-06-18',
      serverInfo: { name: 'sheetgate' },
      capabilities: { tools: {} },
    });
    expect(second.result.protocolVersion).toBe('2025-03-26');
    const unknown = await initialize('2030-01-01', 'client-c');
    expect(unknown.result.protocolVersion).toBe('2025-11-25');
  });
});
