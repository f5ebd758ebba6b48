import { randomBytes } from 'node:crypto';
import { type RunningService, readJson } from '@sheetgate/test-harness';
import { base64url, decodeJwt, exportJWK, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DpopKey, newDpopKey, type ProofOptions } from './support/dpop-key.ts';
import { connectApp, refresh } from './support/oauth-app.ts';
import { type McpUnderTest, postMcp, startMcpUnderTest } from './support/stack.ts';

/**
 * DPoP (RFC 9449) end to end: auth binds an access token to the key of the proof a client sends to
 * its token endpoint (the code exchange and each refresh), and /api/mcp takes a bound token only
 * as `Authorization: DPoP` with a fresh proof by that key, for this URL and method, used once
 * across every replica (docs/design.md §7.1, §8).
 */
let stack: McpUnderTest;
let other: RunningService & { mcpUrl: string };
let person: { userId: string; sessionCookie: string };
let key: DpopKey;
/** An access token auth issued through the real flow, bound to `key`. */
let issued: string;

beforeAll(async () => {
  stack = await startMcpUnderTest();
  other = await stack.startMcp();
  person = await stack.signIn('alice@example.com');
  key = await newDpopKey();
});
afterAll(async () => {
  await stack?.stop();
});

const LIST = { jsonrpc: '2.0', id: 1, method: 'tools/list' };
const metadataUrl = () => `${stack.baseUrl}/.well-known/oauth-protected-resource/api/mcp`;
const ALGS = 'algs="ES256 Ed25519 EdDSA"';

/** A `tools/list` to `url` (the first replica unless given) with these headers. */
const list = (headers: Record<string, string>, url = stack.mcpUrl, body: unknown = LIST) =>
  postMcp(url, body, { headers: { 'mcp-protocol-version': '2025-06-18', ...headers } });

/** `Authorization: DPoP` with a proof by `key` for the public MCP URL, bent by `options`. */
const withProof = async (token: string, options: ProofOptions = {}, by = key) => ({
  authorization: `DPoP ${token}`,
  dpop: await by.proof('POST', stack.resource, { accessToken: token, ...options }),
});

/** A token signed by auth's key, bound to `key` (or `jkt`). */
const boundToken = (claims: Record<string, unknown> = {}, jkt = key.jkt) =>
  stack.sign({ sub: person.userId, cnf: { jkt }, ...claims });

async function expectRefused(response: Response, error: 'invalid_dpop_proof' | 'invalid_token', why: RegExp) {
  const body = await readJson(response);
  expect(response.status, JSON.stringify(body).slice(0, 300)).toBe(401);
  expect(body.error).toBe(error);
  expect(body.error_description).toMatch(why);
  const challenge = response.headers.get('www-authenticate') ?? '';
  expect(challenge).toMatch(new RegExp(`^DPoP error="${error}", error_description="[^"]+", `));
  expect(challenge).toContain(ALGS);
  expect(challenge).toContain(`resource_metadata="${metadataUrl()}"`);
}

describe('auth binds access tokens to a DPoP key (RFC 9449 §5)', () => {
  it('the code exchange and each refresh with a proof answer token_type DPoP and a token whose cnf.jkt is the key’s; the bound refresh token needs a proof by that key', async () => {
    const app = await connectApp(stack, person.sessionCookie, {
      dpopProof: (htm, htu) => key.proof(htm, htu),
    });
    expect(app.tokenType).toBe('DPoP');
    expect(decodeJwt(app.accessToken).cnf).toEqual({ jkt: key.jkt });

    const tokenUrl = `${stack.baseUrl}/api/auth/oauth2/token`;
    const refreshed = await refresh(
      stack,
      app.clientId,
      app.refreshToken,
      {},
      {
        dpop: await key.proof('POST', tokenUrl),
      },
    );
    expect(refreshed.status, JSON.stringify(refreshed.body)).toBe(200);
    expect(refreshed.body.token_type).toBe('DPoP');
    expect(decodeJwt(refreshed.body.access_token!).cnf).toEqual({ jkt: key.jkt });

    // A public client's refresh token is bound too: a thief without the key refreshes nothing.
    const stranger = await newDpopKey();
    const attempts: Array<Record<string, string>> = [{}, { dpop: await stranger.proof('POST', tokenUrl) }];
    for (const headers of attempts) {
      const refused = await refresh(stack, app.clientId, refreshed.body.refresh_token!, {}, headers);
      expect(refused.status).toBe(400);
      expect(refused.body.error).toBe('invalid_grant');
    }
    const again = await refresh(
      stack,
      app.clientId,
      refreshed.body.refresh_token!,
      {},
      {
        dpop: await key.proof('POST', tokenUrl),
      },
    );
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    expect(decodeJwt(again.body.access_token!).cnf).toEqual({ jkt: key.jkt });
    issued = again.body.access_token!;
  });

  it('a client that sends no proof gets a bearer token, as before', async () => {
    const app = await connectApp(stack, person.sessionCookie);
    expect(app.tokenType).toBe('Bearer');
    expect(decodeJwt(app.accessToken).cnf).toBeUndefined();
    expect((await list({ authorization: `Bearer ${app.accessToken}` })).status).toBe(200);
  });
});

describe('a DPoP-bound access token at /api/mcp (RFC 9449 §7)', () => {
  it('with a valid proof lists the tools, on each replica', async () => {
    for (const url of [stack.mcpUrl, other.mcpUrl]) {
      const response = await list(await withProof(issued), url);
      expect(response.status).toBe(200);
      expect((await readJson(response)).result.tools.length).toBeGreaterThan(0);
    }
  });

  it('a proof is taken once: the same proof again is refused, on the replica that took it and on another', async () => {
    const first = await withProof(issued);
    expect((await list(first)).status).toBe(200);
    await expectRefused(await list(first), 'invalid_dpop_proof', /already used/);
    await expectRefused(await list(first, other.mcpUrl), 'invalid_dpop_proof', /already used/);

    const second = await withProof(issued);
    expect((await list(second, other.mcpUrl)).status).toBe(200);
    await expectRefused(await list(second), 'invalid_dpop_proof', /already used/);

    // Sent to both replicas at once: one takes it.
    const raced = await withProof(issued);
    const answers = await Promise.all([list(raced), list(raced, other.mcpUrl)]);
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 401]);
  });

  it('without a proof, or sent as a Bearer token (with a proof or not): 401 with a DPoP challenge', async () => {
    await expectRefused(
      await list({ authorization: `DPoP ${issued}` }),
      'invalid_dpop_proof',
      /needs a DPoP proof/,
    );
    for (const headers of [
      { authorization: `Bearer ${issued}` },
      { ...(await withProof(issued)), authorization: `Bearer ${issued}` },
    ])
      await expectRefused(await list(headers), 'invalid_token', /DPoP-bound: send it as Authorization: DPoP/);
  });

  const stranger = newDpopKey();
  const now = () => Math.floor(Date.now() / 1000);
  const badProofs: Array<
    [string, () => Promise<Record<string, string>>, 'invalid_dpop_proof' | 'invalid_token', RegExp]
  > = [
    [
      'for the replica’s own address (a proxy’s inside)',
      async () => ({
        authorization: `DPoP ${issued}`,
        dpop: await key.proof('POST', stack.mcpUrl, { accessToken: issued }),
      }),
      'invalid_dpop_proof',
      /another URL/,
    ],
    [
      'for another server',
      async () => withProof(issued, { claims: { htu: 'https://mcp.example.net/api/mcp' } }),
      'invalid_dpop_proof',
      /another URL/,
    ],
    [
      'for another path',
      async () => withProof(issued, { claims: { htu: `${stack.baseUrl}/api/auth/oauth2/token` } }),
      'invalid_dpop_proof',
      /another URL/,
    ],
    [
      'for another method',
      async () => withProof(issued, { claims: { htm: 'GET' } }),
      'invalid_dpop_proof',
      /another HTTP method/,
    ],
    [
      'with the hash of another token (ath)',
      async () => withProof(issued, { accessToken: await boundToken() }),
      'invalid_dpop_proof',
      /another access token/,
    ],
    [
      'without ath',
      async () => ({ authorization: `DPoP ${issued}`, dpop: await key.proof('POST', stack.resource) }),
      'invalid_dpop_proof',
      /not valid/,
    ],
    [
      'issued 6 minutes ago',
      async () => withProof(issued, { claims: { iat: now() - 360 } }),
      'invalid_dpop_proof',
      /too old or dated in the future/,
    ],
    [
      'dated 6 minutes ahead',
      async () => withProof(issued, { claims: { iat: now() + 360 } }),
      'invalid_dpop_proof',
      /too old or dated in the future/,
    ],
    [
      'signed by another key than the token is bound to',
      async () => withProof(issued, {}, await stranger),
      'invalid_token',
      /another key than the token is bound to/,
    ],
    [
      'whose signature is not its jwk’s',
      async () => withProof(issued, { signWith: (await stranger).privateKey }),
      'invalid_dpop_proof',
      /not valid/,
    ],
    [
      'carrying a private key',
      async () => withProof(issued, { header: { jwk: await exportJWK(key.privateKey) } }),
      'invalid_dpop_proof',
      /not valid/,
    ],
    [
      'typed as a plain JWT',
      async () => withProof(issued, { header: { typ: 'JWT' } }),
      'invalid_dpop_proof',
      /not valid/,
    ],
    [
      'without a jti',
      async () => withProof(issued, { claims: { jti: undefined } }),
      'invalid_dpop_proof',
      /not valid/,
    ],
    [
      'signed with HS256',
      async () => ({
        authorization: `DPoP ${issued}`,
        dpop: await new SignJWT({
          htm: 'POST',
          htu: stack.resource,
          jti: randomBytes(8).toString('hex'),
          iat: now(),
        })
          .setProtectedHeader({ alg: 'HS256', typ: 'dpop+jwt', jwk: key.publicJwk })
          .sign(randomBytes(32)),
      }),
      'invalid_dpop_proof',
      /not valid/,
    ],
    [
      'unsigned (alg none)',
      async () => {
        const part = (value: unknown) => base64url.encode(JSON.stringify(value));
        const header = part({ alg: 'none', typ: 'dpop+jwt', jwk: key.publicJwk });
        const claims = part({ htm: 'POST', htu: stack.resource, jti: 'x1', iat: now() });
        return { authorization: `DPoP ${issued}`, dpop: `${header}.${claims}.` };
      },
      'invalid_dpop_proof',
      /one DPoP proof JWT/,
    ],
    [
      'sent twice (two DPoP headers)',
      async () => {
        const proof = (await withProof(issued)).dpop;
        return { authorization: `DPoP ${issued}`, dpop: `${proof}, ${(await withProof(issued)).dpop}` };
      },
      'invalid_dpop_proof',
      /one DPoP proof JWT/,
    ],
  ];

  it.each(badProofs)(
    'with a proof %s: 401, while a valid proof is taken',
    async (_name, make, error, why) => {
      expect((await list(await withProof(issued))).status).toBe(200);
      await expectRefused(await list(await make()), error, why);
    },
  );

  it('htu is compared without its query and fragment', async () => {
    const response = await list(await withProof(issued, { claims: { htu: `${stack.resource}?x=1#part` } }));
    expect(response.status).toBe(200);
  });

  it('a token bound to another key is refused with a proof by this one, even a fresh and valid one', async () => {
    const elsewhere = await newDpopKey();
    await expectRefused(
      await list(await withProof(await boundToken({}, elsewhere.jkt))),
      'invalid_token',
      /another key than the token is bound to/,
    );
  });

  it('a token bound in a way this server cannot check (mTLS, a malformed jkt) is refused, with a proof or as Bearer', async () => {
    for (const cnf of [{ 'x5t#S256': key.jkt }, { jkt: 'short' }, 'jkt', { jkt: key.jkt, extra: 1 }]) {
      const token = await stack.sign({ sub: person.userId, cnf });
      for (const headers of [await withProof(token), { authorization: `Bearer ${token}` }]) {
        const response = await list(headers);
        expect(response.status, JSON.stringify(cnf)).toBe(401);
        expect((await readJson(response)).error).toBe('invalid_token');
      }
    }
  });

  it('a bound token without a scope a call needs: 403 insufficient_scope as a DPoP challenge', async () => {
    const token = await boundToken({ scope: 'sheets:read' });
    const call = {
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'write_range', arguments: {} },
    };
    const response = await list(await withProof(token), stack.mcpUrl, call);
    expect(response.status).toBe(403);
    expect(response.headers.get('www-authenticate')).toBe(
      `DPoP error="insufficient_scope", scope="sheets:write", ${ALGS}, resource_metadata="${metadataUrl()}"`,
    );
  });
});

describe('bearer tokens are unchanged', () => {
  it('an unbound token works as Bearer (a DPoP header beside it changes nothing), and is refused in the DPoP scheme', async () => {
    const token = await stack.sign({ sub: person.userId });
    expect((await list({ authorization: `Bearer ${token}` })).status).toBe(200);
    const stray = await key.proof('POST', stack.resource, { accessToken: token });
    expect((await list({ authorization: `Bearer ${token}`, dpop: stray })).status).toBe(200);
    await expectRefused(
      await list({
        authorization: `DPoP ${token}`,
        dpop: await key.proof('POST', stack.resource, { accessToken: token }),
      }),
      'invalid_token',
      /not DPoP-bound: send it as Authorization: Bearer/,
    );
  });

  it('a bad token in the DPoP scheme is answered in the DPoP scheme', async () => {
    const expired = await boundToken({
      iat: Math.floor(Date.now() / 1000) - 600,
      exp: Math.floor(Date.now() / 1000) - 60,
    });
    await expectRefused(await list(await withProof(expired)), 'invalid_token', /expired/);
  });
});

describe('what the endpoint and its metadata say of DPoP', () => {
  it('a 401 without credentials offers Bearer, then DPoP with its algorithms', async () => {
    const response = await list({});
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe(
      `Bearer resource_metadata="${metadataUrl()}", scope="sheets:read sheets:write", DPoP ${ALGS}`,
    );
  });

  it('the protected resource metadata takes DPoP without requiring it, with the algorithms auth binds tokens with', async () => {
    const resource = await readJson(
      await fetch(`${stack.mcp.url}/.well-known/oauth-protected-resource/api/mcp`),
    );
    const server = await readJson(await fetch(`${stack.baseUrl}/.well-known/oauth-authorization-server`));
    expect(resource.dpop_bound_access_tokens_required).toBe(false);
    expect(resource.dpop_signing_alg_values_supported).toEqual(['ES256', 'Ed25519', 'EdDSA']);
    expect(server.dpop_signing_alg_values_supported).toEqual(resource.dpop_signing_alg_values_supported);
  });
});
