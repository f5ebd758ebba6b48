import { createHmac, generateKeyPairSync, type KeyObject, randomBytes, sign } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { exportJWK } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type McpUnderTest, startMcpUnderTest } from './support/stack.ts';

// Property-based: JWT-shaped strings of every kind an attacker can make — any alg, typ, kid,
// key-choosing headers (jku, x5u, jwk, x5c) pointing at keys they hold, any claims, signatures by
// their own keys, HMAC with our public key as the secret, `none`, garbage — and tokens signed by
// auth's real key but wrong in one of docs/design.md §7.1's ways. Every one: 401 invalid_token, never a 5xx,
// never echoed; the attacker's key server is never asked; no token reaches the services' logs.

let stack: McpUnderTest;
let attackerServer: http.Server;
let attackerUrl: string;
let attackerHits = 0;
const sent: string[] = [];

const attacker = {
  es256: generateKeyPairSync('ec', { namedCurve: 'P-256' }),
  rs256: generateKeyPairSync('rsa', { modulusLength: 2048 }),
  ed25519: generateKeyPairSync('ed25519'),
};
let attackerJwk: Record<string, unknown>;
let ourPublicJwk: string;

beforeAll(async () => {
  // Both services log everything they would ever log, so a token that leaks into a log shows.
  stack = await startMcpUnderTest({ LOG_LEVEL: 'trace' }, { LOG_LEVEL: 'trace' });
  attackerJwk = { ...(await exportJWK(attacker.es256.publicKey)), kid: 'attacker', alg: 'ES256' };
  attackerServer = http.createServer((_request, response) => {
    attackerHits++;
    response.setHeader('content-type', 'application/json');
    response.end(JSON.stringify({ keys: [attackerJwk] }));
  });
  await new Promise<void>((resolve) => attackerServer.listen(0, '127.0.0.1', resolve));
  attackerUrl = `http://127.0.0.1:${(attackerServer.address() as AddressInfo).port}`;
  const jwks = (await (await fetch(`${stack.baseUrl}/api/auth/jwks`)).json()) as { keys: unknown[] };
  ourPublicJwk = JSON.stringify(jwks.keys[0]);
});
afterAll(async () => {
  attackerServer?.close();
  await stack?.stop();
});

const b64 = (value: unknown) =>
  Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');

/** Signs `input` with an attacker's key, whatever the header claims the algorithm is. */
function attackerSignature(how: string, input: string): string {
  const data = Buffer.from(input);
  const keys: Record<string, () => Buffer> = {
    es256: () =>
      sign('sha256', data, { key: attacker.es256.privateKey as KeyObject, dsaEncoding: 'ieee-p1363' }),
    rs256: () => sign('sha256', data, attacker.rs256.privateKey),
    ed25519: () => sign(null, data, attacker.ed25519.privateKey),
    // The classic confusion: HMAC keyed with the server's own public key.
    'hmac-with-our-public-key': () => createHmac('sha256', ourPublicJwk).update(data).digest(),
    none: () => Buffer.alloc(0),
    garbage: () => randomBytes(64),
  };
  return keys[how]!().toString('base64url');
}

const anyString = fc.string({ maxLength: 40 });
const now = () => Math.floor(Date.now() / 1000);

const hostileHeader = () =>
  fc.record(
    {
      alg: fc.oneof(
        fc.constantFrom(
          'none',
          'None',
          'NONE',
          'HS256',
          'HS512',
          'ES256',
          'ES384',
          'RS256',
          'PS256',
          'EdDSA',
          '',
        ),
        anyString,
      ),
      typ: fc.oneof(fc.constantFrom('at+jwt', 'JWT', 'application/at+jwt', 'jwt', 'JOSE'), anyString),
      kid: fc.oneof(fc.constant(stack.kid), fc.constant('attacker'), anyString, fc.integer()),
      jku: fc.constant(`${attackerUrl}/jwks.json`),
      x5u: fc.constant(`${attackerUrl}/cert.pem`),
      jwk: fc.constant(attackerJwk),
      x5c: fc.array(fc.base64String({ maxLength: 60 }), { maxLength: 2 }),
      crit: fc.array(anyString, { maxLength: 2 }),
      b64: fc.boolean(),
    },
    { requiredKeys: ['alg'] },
  );

const hostileClaims = () =>
  fc.record(
    {
      iss: fc.oneof(fc.constant(stack.baseUrl), fc.constant(`${stack.baseUrl}/`), anyString),
      aud: fc.oneof(
        fc.constant(stack.resource),
        fc.array(fc.constant(stack.resource)),
        anyString,
        fc.integer(),
      ),
      sub: fc.oneof(anyString, fc.integer(), fc.object({ maxDepth: 1 })),
      scope: fc.oneof(fc.constant('sheets:read sheets:write'), anyString),
      client_id: anyString,
      iat: fc.oneof(fc.integer(), fc.constant(now()), anyString),
      nbf: fc.oneof(fc.integer(), anyString),
      exp: fc.oneof(fc.integer(), fc.constant(now() + 300), fc.double(), anyString),
      jti: anyString,
    },
    { requiredKeys: [] },
  );

async function postWithToken(token: string) {
  sent.push(token);
  return fetch(stack.mcpUrl, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  });
}

async function expectRefused(token: string) {
  const response = await postWithToken(token);
  const body = await response.text();
  expect(response.status, body).toBe(401);
  expect(response.headers.get('www-authenticate')).toContain('error="invalid_token"');
  expect(JSON.parse(body).error).toEqual(expect.any(String));
  expect(body).not.toContain(token.split('.')[2] || token);
}

describe('JWT-shaped tokens at /api/mcp (property-based)', () => {
  it('made by an attacker — any header, any claims, their own keys, none, garbage — are refused: 401, never a 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(
        hostileHeader(),
        hostileClaims(),
        fc.dictionary(fc.string({ minLength: 1, maxLength: 10 }), fc.jsonValue({ maxDepth: 1 }), {
          maxKeys: 3,
        }),
        fc.constantFrom('es256', 'rs256', 'ed25519', 'hmac-with-our-public-key', 'none', 'garbage'),
        async (header, claims, extraClaims, signer) => {
          const input = `${b64(header)}.${b64({ ...extraClaims, ...claims })}`;
          await expectRefused(`${input}.${attackerSignature(signer, input)}`);
        },
      ),
      { numRuns: 150 },
    );
  });

  // Each token breaks exactly one rule, on claims that are otherwise valid (the control with the
  // same claims is accepted), so removing any one check fails the case named after it.
  const violations = {
    'names its own key (jku)': { header: { jku: () => `${attackerUrl}/jwks.json` } },
    'names its own key (x5u)': { header: { x5u: () => `${attackerUrl}/cert.pem` } },
    'embeds its own key (jwk)': { header: { jwk: () => attackerJwk } },
    'embeds a certificate chain (x5c)': { header: { x5c: () => [randomBytes(30).toString('base64')] } },
    'is not an access token (typ)': { header: { typ: () => 'JWT' } },
    'has another issuer': { claims: { iss: () => 'https://evil.example' } },
    'is for another audience': { claims: { aud: () => 'https://evil.example/api/mcp' } },
    'has expired': { claims: { iat: () => now() - 600, exp: () => now() - 60 } },
    'is not valid yet': { claims: { nbf: () => now() + 600 } },
    'was issued in the future': { claims: { iat: () => now() + 600, exp: () => now() + 900 } },
    'has no subject': { claims: { sub: () => undefined } },
  } satisfies Record<
    string,
    { header?: Record<string, () => unknown>; claims?: Record<string, () => unknown> }
  >;
  const evaluate = (fields: Record<string, () => unknown> = {}) =>
    Object.fromEntries(Object.entries(fields).map(([name, value]) => [name, value()]));

  it.each(Object.keys(violations))(
    'signed with auth’s real key but wrong in one way docs/design.md §7.1 forbids: %s — refused, 401',
    async (name) => {
      const violation: { header?: Record<string, () => unknown>; claims?: Record<string, () => unknown> } =
        violations[name as keyof typeof violations];
      await fc.assert(
        fc.asyncProperty(
          // Valid, harmless variety: any subject, client and token id.
          fc.record({
            sub: fc.string({ minLength: 1, maxLength: 40 }),
            client_id: anyString,
            jti: fc.string({ minLength: 1, maxLength: 40 }),
          }),
          async (harmless) => {
            const control = await postWithToken(await stack.sign(harmless));
            expect(control.status, await control.text()).toBe(200);
            await expectRefused(
              await stack.sign({ ...harmless, ...evaluate(violation.claims) }, evaluate(violation.header)),
            );
          },
        ),
        { numRuns: 10 },
      );
    },
  );

  it('asked no key server, and logged no token', () => {
    expect(attackerHits).toBe(0);
    expect(sent.length).toBeGreaterThanOrEqual(250);
    const logs = [...stack.mcp.output, ...stack.auth.output].join('\n');
    // The services did log these requests (at trace level), just never a credential.
    expect(logs).toContain('/api/mcp');
    const leaked = sent.filter((token) => {
      const secretPart = token.split('.')[2];
      return (
        logs.includes(token) ||
        (secretPart !== undefined && secretPart.length >= 16 && logs.includes(secretPart))
      );
    });
    expect(leaked).toEqual([]);
  });
});
