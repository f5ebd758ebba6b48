import { type EnterpriseIdpEmulator, startEnterpriseIdpEmulator } from '@sheetgate/enterprise-idp-emulator';
import {
  type ClientCredentials,
  idpEndpoints,
  redeemSignIn,
  requestIdJag,
  signInRequest,
} from '@sheetgate/enterprise-idp-emulator/client';
import { createBrowser } from '@sheetgate/test-harness';
import { expect } from 'vitest';

/** Where the enterprise client's browser lands after signing in at the IdP (never served). */
export const IDP_REDIRECT = 'http://127.0.0.1:45998/callback';

/** The IdP's people: alice and bob have Sheetgate accounts; carol has none; dave's is a personal Google account. */
export const IDP_PEOPLE = [
  { sub: '00u-alice', email: 'alice@example.com' },
  { sub: '00u-bob', email: 'bob@example.com' },
  { sub: '00u-carol', email: 'carol@example.com' },
  { sub: '00u-dave', email: 'dave@example.com' },
];

export type Grant = { audience: string; resource?: string; clientIdAtAudience: string; scopes?: string[] };
export type TestIdp = EnterpriseIdpEmulator & { credentials(agent: string): ClientCredentials };

/**
 * An enterprise IdP emulator whose clients (the MCP clients' registrations at the IdP, named in
 * `agents`, secret `<name>-secret`) may obtain ID-JAGs for the grants listed: for Sheetgate (the
 * audience its BASE_URL) as the Sheetgate client each names, or for another authorization server.
 * The IdP's policy grants the scopes a grant lists (both of Sheetgate's unless told).
 */
export async function startEnterpriseIdp(agents: Record<string, Grant[]>): Promise<TestIdp> {
  const credentials = (agent: string) => ({ clientId: agent, clientSecret: `${agent}-secret` });
  const idp = await startEnterpriseIdpEmulator({
    port: 0,
    people: IDP_PEOPLE,
    clients: Object.entries(agents).map(([agent, grants]) => ({
      ...credentials(agent),
      redirectUris: [IDP_REDIRECT],
      exchanges: grants.map((grant) => ({ scopes: ['sheets:read', 'sheets:write'], ...grant })),
    })),
  });
  return Object.assign(idp, { credentials });
}

/** The person signs in at the IdP in a browser (step 1 of the extension); the client gets their ID token. */
export async function signInAtIdp(idp: TestIdp, email: string, agent = 'agent') {
  const endpoints = await idpEndpoints(idp.issuer);
  const request = signInRequest(endpoints.authorizationEndpoint, agent, IDP_REDIRECT);
  const browser = createBrowser();
  const page = await browser.navigate(request.url);
  const chosen = await browser.pressButton({ url: page.url, body: page.body }, email);
  const code = new URL(chosen.location!).searchParams.get('code')!;
  return redeemSignIn(endpoints.tokenEndpoint, idp.credentials(agent), {
    code,
    redirectUri: IDP_REDIRECT,
    verifier: request.verifier,
  });
}

/** Signs `email` in at the IdP and exchanges the ID token for an ID-JAG (steps 1 and 2). */
export async function idJagFor(
  idp: TestIdp,
  email: string,
  options: { audience: string; resource?: string; scope?: string; agent?: string },
): Promise<string> {
  const { agent = 'agent', ...exchange } = options;
  const idToken = await signInAtIdp(idp, email, agent);
  const { status, body } = await requestIdJag(idp.tokenEndpoint, idp.credentials(agent), {
    idToken,
    ...exchange,
  });
  expect(status, JSON.stringify(body)).toBe(200);
  return String(body.access_token);
}
