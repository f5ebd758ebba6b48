import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GoogleEmulator } from '../src/index.ts';
import { signIn, startTestEmulator, type TestClient } from './support/emulator.ts';

// Workspace and consumer accounts: `hd` is "provided only if the user belongs to a Google Cloud
// organization" (Google's OpenID Connect reference, "An ID token's payload"). The emulator takes
// gmail.com and googlemail.com as consumer domains and every other one as a Workspace domain.

let emulator: GoogleEmulator;
let client: TestClient;
beforeAll(async () => {
  ({ emulator, clientA: client } = await startTestEmulator({
    accounts: ['alice@example.com', 'bob@example.com', 'carol@gmail.com', 'Dave@Corp.Example.ORG'],
  }));
});
afterAll(async () => {
  await emulator?.close();
});

async function identityOf(account: string, scopes = ['openid', 'email', 'profile']) {
  const { auth, tokens } = await signIn(emulator, client, { account, scopes });
  const ticket = await auth.verifyIdToken({ idToken: tokens.id_token!, audience: client.clientId });
  const { data: userinfo } = await auth.request<Record<string, unknown>>({
    url: `${emulator.url}/v1/userinfo`,
  });
  return { idToken: ticket.getPayload()!, userinfo };
}

describe('hd: the Workspace domain in ID tokens and userinfo', () => {
  it('is the domain of a Workspace account, in its ID token and at userinfo', async () => {
    for (const account of ['alice@example.com', 'bob@example.com']) {
      const { idToken, userinfo } = await identityOf(account);
      expect(idToken).toMatchObject({ email: account, hd: 'example.com' });
      expect(userinfo).toMatchObject({ email: account, hd: 'example.com' });
    }
  });

  it('is absent for a consumer (gmail.com) account', async () => {
    const { idToken, userinfo } = await identityOf('carol@gmail.com');
    expect(idToken.email).toBe('carol@gmail.com');
    expect(idToken).not.toHaveProperty('hd');
    expect(userinfo.email).toBe('carol@gmail.com');
    expect(userinfo).not.toHaveProperty('hd');
  });

  it('is the whole domain, lower-cased, and sent with the openid scope alone', async () => {
    const { idToken, userinfo } = await identityOf('dave@corp.example.org', ['openid']);
    expect(idToken.hd).toBe('corp.example.org');
    expect(idToken.email).toBeUndefined();
    expect(userinfo.hd).toBe('corp.example.org');
  });

  it('is not in the discovery document, as Google lists no hd among claims_supported', async () => {
    const discovery = (await (await fetch(`${emulator.url}/.well-known/openid-configuration`)).json()) as {
      claims_supported: string[];
    };
    expect(discovery.claims_supported).not.toContain('hd');
  });
});
