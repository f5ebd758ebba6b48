import { type ClientCredentials, requestAccessToken } from '@sheetgate/enterprise-idp-emulator/client';
import { readJson } from '@sheetgate/test-harness';
import { calculateJwkThumbprint, decodeJwt, exportJWK, generateKeyPair, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAuditLog } from '../src/audit/index.ts';
import type { DatabasePool } from '../src/db/pool.ts';
import { createDatabasePool } from '../src/db/pool.ts';
import { createOidcModelQueries } from '../src/oidc/oidc-model-queries.ts';
import { createUserLibrary } from '../src/users/index.ts';
import { type AuthUnderTest, startAuthUnderTest } from './support/auth-process.ts';
import { idJagFor, startEnterpriseIdp, type TestIdp } from './support/enterprise-testbed.ts';
import { type OAuthTestClient, oauthTestClient } from './support/oauth-flow.ts';

// The MCP extension Enterprise-Managed Authorization (io.modelcontextprotocol/enterprise-managed-
// authorization) at Sheetgate's token endpoint: ID-JAGs (draft-ietf-oauth-identity-assertion-
// authz-grant) issued by the enterprise IdP emulator through RFC 8693 token exchange, presented
// with RFC 7523's JWT bearer grant by a client written from the extension's text. Each refusal
// answers the error the extension and the RFCs name (docs/design.md §4.7).

let subject: AuthUnderTest;
let pool: DatabasePool;
let oauth: OAuthTestClient;
let idp: TestIdp;
let untrusted: TestIdp;
let goneIdJag: string;
const clients: Record<'a' | 'b' | 'public' | 'unlisted', ClientCredentials> = {} as never;
const people: Record<'alice' | 'bob' | 'dave', string> = {} as never;

async function registerConfidential(name: string): Promise<ClientCredentials> {
  const { status, body } = await oauth.register({
    client_name: name,
    redirect_uris: ['https://agent.example/callback'],
    token_endpoint_auth_method: 'client_secret_basic',
  });
  expect(status).toBe(201);
  return { clientId: String(body.client_id), clientSecret: String(body.client_secret) };
}

beforeAll(async () => {
  subject = await startAuthUnderTest();
  pool = createDatabasePool(subject.database.url, 2);
  oauth = oauthTestClient(subject, pool);
  const base = subject.baseUrl;
  // As an operator does it: the enterprise clients are registered, then named in ENTERPRISE_IDPS.
  clients.a = await registerConfidential('Agent A');
  clients.b = await registerConfidential('Agent B');
  clients.unlisted = await registerConfidential('Agent X');
  const registered = await oauth.register({
    client_name: 'Public agent',
    redirect_uris: ['http://127.0.0.1/callback'],
    token_endpoint_auth_method: 'none',
  });
  clients.public = { clientId: String(registered.body.client_id), clientSecret: '' };
  const users = createUserLibrary(pool);
  people.alice = (
    await users.upsertFromGoogle({ sub: 'g-alice', email: 'alice@example.com', hostedDomain: 'example.com' })
  ).id;
  people.bob = (
    await users.upsertFromGoogle({ sub: 'g-bob', email: 'Bob@example.com', hostedDomain: 'example.com' })
  ).id;
  // A personal Google account under an address at the company's domain.
  people.dave = (await users.upsertFromGoogle({ sub: 'g-dave', email: 'dave@example.com' })).id;

  const sheetgate = { audience: base, resource: oauth.resource };
  idp = await startEnterpriseIdp({
    agent: [
      { ...sheetgate, clientIdAtAudience: clients.a.clientId },
      { audience: 'https://other-as.example', clientIdAtAudience: clients.a.clientId },
    ],
    'agent-b': [{ ...sheetgate, clientIdAtAudience: clients.b.clientId }],
    'agent-public': [{ ...sheetgate, clientIdAtAudience: clients.public.clientId }],
    'agent-unlisted': [{ ...sheetgate, clientIdAtAudience: clients.unlisted.clientId }],
  });
  untrusted = await startEnterpriseIdp({ agent: [{ ...sheetgate, clientIdAtAudience: clients.a.clientId }] });
  // An IdP the operator trusts whose keys cannot be fetched any more.
  const gone = await startEnterpriseIdp({
    agent: [{ ...sheetgate, clientIdAtAudience: clients.a.clientId }],
  });
  goneIdJag = await idJagFor(gone, 'alice@example.com', sheetgate);
  await gone.close();

  subject.env.ENTERPRISE_IDPS = JSON.stringify([
    {
      issuer: idp.issuer,
      jwksUri: idp.jwksUri,
      clients: [
        {
          clientId: clients.a.clientId,
          scopes: ['sheets:read', 'sheets:write'],
          toolsets: ['core-read', 'charts'],
        },
        { clientId: clients.b.clientId, scopes: ['sheets:read'] },
        { clientId: clients.public.clientId, scopes: ['sheets:read'] },
      ],
      subjects: { '00u-alice': 'alice@example.com' },
      emailDomains: ['example.com'],
    },
    {
      issuer: gone.issuer,
      jwksUri: gone.jwksUri,
      clients: [{ clientId: clients.a.clientId, scopes: ['sheets:read'] }],
      emailDomains: ['example.com'],
    },
  ]);
  await subject.restart();
});
afterAll(async () => {
  await idp?.close();
  await untrusted?.close();
  await pool?.end();
  await subject?.stop();
});

const tokenEndpoint = () => `${subject.baseUrl}/api/auth/oauth2/token`;
const present = (client: ClientCredentials, assertion: string, scope?: string) =>
  requestAccessToken(tokenEndpoint(), client, { assertion, ...(scope ? { scope } : {}) });
const forSheetgate = (extra: { scope?: string; agent?: string } = {}) => ({
  audience: subject.baseUrl,
  resource: oauth.resource,
  ...extra,
});
const now = () => Math.floor(Date.now() / 1000);
/** Claims of an ID-JAG for client A and alice that the IdP signs itself; each test bends one. */
const claims = (extra: Record<string, unknown> = {}) => ({
  iss: idp.issuer,
  sub: '00u-alice',
  aud: subject.baseUrl,
  client_id: clients.a.clientId,
  jti: crypto.randomUUID(),
  iat: now(),
  exp: now() + 300,
  resource: oauth.resource,
  scope: 'sheets:read',
  ...extra,
});

describe('authorization server metadata with a trusted enterprise IdP', () => {
  it('lists the jwt-bearer grant and the ID-JAG profile (the extension’s §6)', async () => {
    const metadata = await readJson(await fetch(`${subject.baseUrl}/.well-known/oauth-authorization-server`));
    expect(metadata.grant_types_supported).toEqual([
      'authorization_code',
      'refresh_token',
      'urn:ietf:params:oauth:grant-type:jwt-bearer',
    ]);
    expect(metadata.authorization_grant_profiles_supported).toEqual([
      'urn:ietf:params:oauth:grant-profile:id-jag',
    ]);
  });
});

describe('an ID-JAG presented with the JWT bearer grant (RFC 7523, the extension’s §5)', () => {
  it('buys the code flow’s access token: resource-bound, the person’s, the operator’s toolsets, no refresh token; the app is connected', async () => {
    const assertion = await idJagFor(idp, 'alice@example.com', forSheetgate());
    const { status, body } = await present(clients.a, assertion);
    expect(status, JSON.stringify(body)).toBe(200);
    expect(body).toMatchObject({ token_type: 'Bearer', scope: 'sheets:read sheets:write', expires_in: 900 });
    expect(body.refresh_token).toBeUndefined();
    const { payload, protectedHeader } = await oauth.verifyAccessToken(String(body.access_token));
    expect(protectedHeader.typ).toBe('at+jwt');
    expect(payload).toMatchObject({
      iss: subject.baseUrl,
      aud: oauth.resource,
      sub: people.alice,
      client_id: clients.a.clientId,
      scope: 'sheets:read sheets:write',
      toolsets: ['core-read', 'charts'],
      grant_id: expect.any(String),
    });
    const apps = await createOidcModelQueries(pool).connectedApps(people.alice, oauth.resource);
    expect(apps.map((app) => [app.client_id, app.scopes])).toEqual([
      [clients.a.clientId, 'sheets:read sheets:write'],
    ]);
    const grantIds = await createOidcModelQueries(pool).grantIds(people.alice, clients.a.clientId);
    expect(grantIds).toEqual([payload.grant_id]);
    const audited = await createAuditLog(pool).recent({
      userId: people.alice,
      kind: 'enterprise_grant.issued',
    });
    expect(audited[0]?.details).toMatchObject({ clientId: clients.a.clientId, issuer: idp.issuer });
  });

  it('maps a person by e-mail at a listed domain to their Workspace Google account, case aside', async () => {
    const { status, body } = await present(clients.a, await idJagFor(idp, 'bob@example.com', forSheetgate()));
    expect(status, JSON.stringify(body)).toBe(200);
    expect((await oauth.verifyAccessToken(String(body.access_token))).payload.sub).toBe(people.bob);
  });

  it('gives a client what its operator policy allows of what the IdP granted (sheets:read for B)', async () => {
    const assertion = await idJagFor(idp, 'alice@example.com', forSheetgate({ agent: 'agent-b' }));
    const { status, body } = await present(clients.b, assertion);
    expect(status, JSON.stringify(body)).toBe(200);
    expect(body.scope).toBe('sheets:read');
  });
});

describe('with a DPoP proof, as the code flow (RFC 9449 §5)', () => {
  it('the token is bound to the proof’s key: token_type DPoP, cnf.jkt its thumbprint', async () => {
    const key = await dpopKey();
    const assertion = await idJagFor(idp, 'alice@example.com', forSheetgate());
    const { status, body } = await requestAccessToken(tokenEndpoint(), clients.a, {
      assertion,
      dpop: await key.proof({ htm: 'POST', htu: tokenEndpoint() }),
    });
    expect(status, JSON.stringify(body)).toBe(200);
    expect(body).toMatchObject({ token_type: 'DPoP', scope: 'sheets:read sheets:write' });
    expect(body.refresh_token).toBeUndefined();
    const { payload } = await oauth.verifyAccessToken(String(body.access_token));
    expect(payload).toMatchObject({ sub: people.alice, cnf: { jkt: key.jkt } });
  });

  it.each([
    ['for another URL', { htu: 'https://other-as.example/token' }],
    ['for another method', { htm: 'GET' }],
    ['too old', { iat: now() - 3_600 }],
    ['signed by another key than its jwk', { signedByAnother: true }],
  ])('a proof %s is invalid_dpop_proof, audited, and spends no ID-JAG', async (_, bent) => {
    const key = await dpopKey();
    const assertion = await idJagFor(idp, 'alice@example.com', forSheetgate());
    const refused = await requestAccessToken(tokenEndpoint(), clients.a, {
      assertion,
      dpop: await key.proof({ htm: 'POST', htu: tokenEndpoint(), ...bent }),
    });
    expect(refused.status).toBe(400);
    expect(refused.body.error, JSON.stringify(refused.body)).toBe('invalid_dpop_proof');
    expect(refused.body.access_token).toBeUndefined();
    const [latest] = await createAuditLog(pool).recent({ kind: 'enterprise_grant.refused' });
    expect(latest?.details).toEqual({ clientId: clients.a.clientId, reason: 'dpop_proof' });
    const then = await requestAccessToken(tokenEndpoint(), clients.a, {
      assertion,
      dpop: await key.proof({ htm: 'POST', htu: tokenEndpoint() }),
    });
    expect(then.status, JSON.stringify(then.body)).toBe(200);
    expect(decodeJwt(String(then.body.access_token)).cnf).toEqual({ jkt: key.jkt });
  });

  it('a proof used once is refused the second time, spending no ID-JAG', async () => {
    const key = await dpopKey();
    const proof = await key.proof({ htm: 'POST', htu: tokenEndpoint() });
    const first = await requestAccessToken(tokenEndpoint(), clients.a, {
      assertion: await idJagFor(idp, 'alice@example.com', forSheetgate()),
      dpop: proof,
    });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    const assertion = await idJagFor(idp, 'alice@example.com', forSheetgate());
    const replayed = await requestAccessToken(tokenEndpoint(), clients.a, { assertion, dpop: proof });
    expect(replayed.status).toBe(400);
    expect(replayed.body.error).toBe('invalid_grant');
    const [latest] = await createAuditLog(pool).recent({ kind: 'enterprise_grant.refused' });
    expect(latest?.details).toEqual({ clientId: clients.a.clientId, reason: 'dpop_proof' });
    expect((await present(clients.a, assertion)).status).toBe(200);
  });
});

describe('refusals, each with the error the extension and RFCs name', () => {
  const refused = (
    answer: { status: number; body: Record<string, unknown> },
    error: string,
    status = 400,
  ) => {
    expect(answer.body.error, JSON.stringify(answer.body)).toBe(error);
    expect(answer.status).toBe(status);
    expect(answer.body.access_token).toBeUndefined();
  };

  it('wrong audience: an ID-JAG for another authorization server is invalid_grant', async () => {
    const assertion = await idJagFor(idp, 'alice@example.com', { audience: 'https://other-as.example' });
    refused(await present(clients.a, assertion), 'invalid_grant');
  });

  it('unknown issuer: an ID-JAG of an IdP the operator does not trust is invalid_grant', async () => {
    refused(
      await present(clients.a, await idJagFor(untrusted, 'alice@example.com', forSheetgate())),
      'invalid_grant',
    );
  });

  it('another client’s ID-JAG (its client_id is B) presented by A is invalid_grant', async () => {
    const assertion = await idJagFor(idp, 'alice@example.com', forSheetgate({ agent: 'agent-b' }));
    refused(await present(clients.a, assertion), 'invalid_grant');
  });

  it('replayed jti: the second presentation of one ID-JAG is invalid_grant', async () => {
    const assertion = await idJagFor(idp, 'alice@example.com', forSheetgate());
    expect((await present(clients.a, assertion)).status).toBe(200);
    refused(await present(clients.a, assertion), 'invalid_grant');
  });

  it('replayed jti: a new ID-JAG carrying a used jti is invalid_grant too', async () => {
    const jti = crypto.randomUUID();
    expect((await present(clients.a, await idp.sign(claims({ jti })))).status).toBe(200);
    refused(await present(clients.a, await idp.sign(claims({ jti, iat: now() + 1 }))), 'invalid_grant');
  });

  it('expired: an ID-JAG past its exp is invalid_grant', async () => {
    refused(
      await present(clients.a, await idp.sign(claims({ iat: now() - 400, exp: now() - 60 }))),
      'invalid_grant',
    );
  });

  it('scope beyond the grant: asking for sheets:write on an ID-JAG granting sheets:read is invalid_scope, and spends nothing', async () => {
    const assertion = await idJagFor(idp, 'alice@example.com', forSheetgate({ scope: 'sheets:read' }));
    refused(await present(clients.a, assertion, 'sheets:read sheets:write'), 'invalid_scope');
    const { status, body } = await present(clients.a, assertion, 'sheets:read');
    expect(status).toBe(200);
    expect(body.scope).toBe('sheets:read');
  });

  it('scope beyond the client’s policy: B asking for sheets:write is invalid_scope', async () => {
    const assertion = await idJagFor(idp, 'alice@example.com', forSheetgate({ agent: 'agent-b' }));
    refused(await present(clients.b, assertion, 'sheets:read sheets:write'), 'invalid_scope');
  });

  it.each([
    ['carol', 'nobody at Sheetgate has her address'],
    ['dave', 'his address is held by a personal Google account, not the Workspace'],
  ])('person unmapped: %s (%s) is invalid_grant', async (name) => {
    refused(
      await present(clients.a, await idJagFor(idp, `${name}@example.com`, forSheetgate())),
      'invalid_grant',
    );
  });

  it.each([
    ['typed as a plain JWT', () => idp.sign(claims(), { typ: 'JWT' })],
    ['for another resource', () => idp.sign(claims({ resource: 'https://other-mcp.example/mcp' }))],
    [
      'with an audience array of two',
      () => idp.sign(claims({ aud: [subject.baseUrl, 'https://other-as.example'] })),
    ],
    ['with a scope this server does not have', () => idp.sign(claims({ scope: 'sheets:read admin' }))],
    ['without a scope', () => idp.sign(claims({ scope: undefined }))],
    ['without a jti', () => idp.sign(claims({ jti: undefined }))],
    ['issued in the future', () => idp.sign(claims({ iat: now() + 600 }))],
    ['issued more than an hour ago', () => idp.sign(claims({ iat: now() - 3_700, exp: now() + 300 }))],
    ['bound to a key (cnf)', () => idp.sign(claims({ cnf: { jkt: 'abc' } }))],
    ['signed by another key (the untrusted IdP’s) under the trusted issuer', () => untrusted.sign(claims())],
    ['unsigned (alg none)', async () => `${b64({ alg: 'none', typ: 'oauth-id-jag+jwt' })}.${b64(claims())}.`],
    ['not a JWT', async () => 'not-a-jwt'],
    ['encrypted (JWE-shaped)', async () => 'a.b.c.d.e'],
    ['oversized (9,000 characters)', async () => `${await idp.sign(claims({ pad: 'x'.repeat(9_000) }))}`],
  ])('an assertion %s is invalid_grant', async (_, make) => {
    refused(await present(clients.a, await make()), 'invalid_grant');
  });

  it('without an assertion, or with two, is invalid_request', async () => {
    refused(
      await oauth.token(
        { grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer' },
        { method: 'client_secret_basic', ...secretOf(clients.a) },
      ),
      'invalid_request',
    );
    const twice = new URLSearchParams([
      ['grant_type', 'urn:ietf:params:oauth:grant-type:jwt-bearer'],
      ['assertion', 'a.b.c'],
      ['assertion', 'a.b.c'],
    ]);
    const response = await fetch(tokenEndpoint(), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basic(clients.a) },
      body: twice,
    });
    refused({ status: response.status, body: await readJson(response) }, 'invalid_request');
  });

  it('a client no operator lists, or one without credentials, is unauthorized_client; a wrong secret invalid_client', async () => {
    const forUnlisted = await idJagFor(idp, 'alice@example.com', forSheetgate({ agent: 'agent-unlisted' }));
    refused(await present(clients.unlisted, forUnlisted), 'unauthorized_client');
    const forPublic = await idJagFor(idp, 'alice@example.com', forSheetgate({ agent: 'agent-public' }));
    const publicAnswer = await oauth.token(
      { grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion: forPublic },
      { method: 'none', clientId: clients.public.clientId },
    );
    refused(publicAnswer, 'unauthorized_client');
    refused(
      await present({ ...clients.a, clientSecret: 'wrong' }, await idp.sign(claims())),
      'invalid_client',
      401,
    );
  });

  it('an IdP whose keys cannot be fetched: 503 temporarily_unavailable with Retry-After, not a verdict', async () => {
    const response = await fetch(tokenEndpoint(), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basic(clients.a) },
      body: new URLSearchParams({
        grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer',
        assertion: goneIdJag,
      }),
    });
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toBeTruthy();
    expect((await readJson(response)).error).toBe('temporarily_unavailable');
  });

  it('audits each refusal with its reason, never the assertion', async () => {
    const assertion = await idp.sign(claims({ iat: now() - 400, exp: now() - 60 }));
    await present(clients.a, assertion);
    const [latest] = await createAuditLog(pool).recent({ kind: 'enterprise_grant.refused' });
    expect(latest?.details).toEqual({ clientId: clients.a.clientId, reason: 'expired' });
  });
});

/** A client's DPoP key pair and proofs by it (RFC 9449 §4.2), each claim replaceable. */
async function dpopKey() {
  const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
  const jwk = await exportJWK(publicKey);
  const another = await generateKeyPair('ES256');
  return {
    jkt: await calculateJwkThumbprint(jwk, 'sha256'),
    proof: ({ signedByAnother, ...claims }: Record<string, unknown> & { signedByAnother?: boolean }) =>
      new SignJWT({ jti: crypto.randomUUID(), iat: now(), ...claims })
        .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk })
        .sign(signedByAnother ? another.privateKey : privateKey),
  };
}

function b64(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

function basic(client: ClientCredentials): string {
  return `Basic ${Buffer.from(`${encodeURIComponent(client.clientId)}:${encodeURIComponent(client.clientSecret)}`).toString('base64')}`;
}

function secretOf(client: ClientCredentials) {
  return { clientId: client.clientId, secret: client.clientSecret };
}
