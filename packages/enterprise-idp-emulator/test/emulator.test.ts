import { createBrowser } from '@sheetgate/test-harness';
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { idpEndpoints, redeemSignIn, requestIdJag, signInRequest } from '../src/client/enterprise-client.ts';
import { type EnterpriseIdpEmulator, ID_JAG_TOKEN_TYPE, startEnterpriseIdpEmulator } from '../src/index.ts';

const REDIRECT = 'http://127.0.0.1:45999/callback';
const AUDIENCE = 'https://sheets.example';
const RESOURCE = 'https://sheets.example/api/mcp';
const agent = { clientId: 'agent', clientSecret: 'agent-secret' };
const other = { clientId: 'other', clientSecret: 'other-secret' };

let idp: EnterpriseIdpEmulator;
beforeAll(async () => {
  idp = await startEnterpriseIdpEmulator({
    port: 0,
    clients: [
      {
        ...agent,
        redirectUris: [REDIRECT],
        exchanges: [
          {
            audience: AUDIENCE,
            resource: RESOURCE,
            scopes: ['sheets:read', 'sheets:write'],
            clientIdAtAudience: 'agent-at-sheets',
            people: ['00u-alice'],
          },
        ],
      },
      { ...other, redirectUris: [REDIRECT] },
    ],
  });
});
afterAll(() => idp?.close());

/** The person signs in at the IdP in a browser; the client redeems the code for an ID token. */
async function signIn(email: string, client = agent) {
  const endpoints = await idpEndpoints(idp.issuer);
  const request = signInRequest(endpoints.authorizationEndpoint, client.clientId, REDIRECT);
  const browser = createBrowser();
  const page = await browser.navigate(request.url);
  const chosen = await browser.pressButton({ url: page.url, body: page.body }, email);
  const callback = new URL(chosen.location!);
  expect(callback.searchParams.get('state')).toBe(request.state);
  expect(callback.searchParams.get('iss')).toBe(idp.issuer);
  return redeemSignIn(endpoints.tokenEndpoint, client, {
    code: callback.searchParams.get('code')!,
    redirectUri: REDIRECT,
    verifier: request.verifier,
  });
}

describe('the enterprise IdP emulator', () => {
  it('advertises token exchange and ID-JAGs, and signs a person in with an ID token for the client', async () => {
    expect((await idpEndpoints(idp.issuer)).issuesIdJags).toBe(true);
    const idToken = await signIn('alice@example.com');
    const { payload } = await jwtVerify(idToken, createRemoteJWKSet(new URL(idp.jwksUri)), {
      issuer: idp.issuer,
      audience: 'agent',
    });
    expect(payload).toMatchObject({ sub: '00u-alice', email: 'alice@example.com' });
  });

  it('exchanges the ID token for an ID-JAG as the draft describes it (typ, aud, client_id at the audience, resource, scope, jti)', async () => {
    const idToken = await signIn('alice@example.com');
    const { status, body } = await requestIdJag(idp.tokenEndpoint, agent, {
      idToken,
      audience: AUDIENCE,
      resource: RESOURCE,
      scope: 'sheets:read sheets:write sheets:admin',
    });
    expect(status).toBe(200);
    expect(body).toMatchObject({
      issued_token_type: ID_JAG_TOKEN_TYPE,
      token_type: 'N_A',
      scope: 'sheets:read sheets:write',
      expires_in: 300,
    });
    const idJag = String(body.access_token);
    expect(decodeProtectedHeader(idJag).typ).toBe('oauth-id-jag+jwt');
    const { payload } = await jwtVerify(idJag, createRemoteJWKSet(new URL(idp.jwksUri)), {
      issuer: idp.issuer,
      audience: AUDIENCE,
      typ: 'oauth-id-jag+jwt',
    });
    expect(payload).toMatchObject({
      sub: '00u-alice',
      client_id: 'agent-at-sheets',
      resource: RESOURCE,
      scope: 'sheets:read sheets:write',
      email: 'alice@example.com',
    });
    expect(payload.exp! - payload.iat!).toBe(300);
    expect(typeof payload.jti).toBe('string');
  });

  it('refuses what its policy does not allow, and ID tokens of another client or person', async () => {
    const idToken = await signIn('alice@example.com');
    const exchange = (client: typeof agent, options: Partial<Parameters<typeof requestIdJag>[2]> = {}) =>
      requestIdJag(idp.tokenEndpoint, client, {
        idToken,
        audience: AUDIENCE,
        resource: RESOURCE,
        ...options,
      });

    expect(await exchange(agent, { audience: 'https://elsewhere.example' })).toMatchObject({
      status: 400,
      body: { error: 'invalid_target' },
    });
    expect(await exchange(agent, { scope: 'sheets:admin' })).toMatchObject({
      status: 400,
      body: { error: 'invalid_scope' },
    });
    // The ID token's audience is `agent`: another client cannot exchange it (the draft's processing rules).
    expect(await exchange(other)).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    expect(await exchange({ ...agent, clientSecret: 'wrong' })).toMatchObject({
      status: 401,
      body: { error: 'invalid_client' },
    });
    const bobsIdToken = await signIn('bob@example.com');
    expect(await exchange(agent, { idToken: bobsIdToken })).toMatchObject({
      status: 400,
      body: { error: 'invalid_grant' },
    });
  });
});
