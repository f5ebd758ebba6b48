import { generateKeyPairSync } from 'node:crypto';
import { createBrowser } from '@sheetgate/test-harness';
import { decodeJwt, decodeProtectedHeader, importPKCS8, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccessTokenCache } from '../src/google/access-token-cache.ts';
import { type GoogleTestbed, signInWithGoogle, startGoogleTestbed } from './support/google-testbed.ts';

// The person's Google Workspace domain (issue 37): the `hd` claim Google puts in the ID tokens of
// an organisation's accounts ("provided only if the user belongs to a Google Cloud organization",
// Google's OpenID Connect reference), kept on the user from the verified ID token of each sign-in
// and answered with their Google access token. Sign-in reaches the emulator through a proxy, so a
// test can forge what Google's token endpoint answers.

let testbed: GoogleTestbed;
beforeAll(async () => {
  testbed = await startGoogleTestbed({ googleThroughProxy: true });
});
afterAll(async () => {
  await testbed?.close();
});

async function signIn(account: string) {
  return signInWithGoogle(testbed, createBrowser(), { account });
}

async function userOf(email: string) {
  const { rows } = await testbed.pool.query<{ id: string; google_hosted_domain: string | null }>(
    'SELECT id, google_hosted_domain FROM users WHERE email = $1',
    [email],
  );
  return rows[0];
}

describe('a Google sign-in keeps the verified ID token’s hd', () => {
  it('on the user and the connection, for a Workspace account', async () => {
    await signIn('alice@example.com');
    const alice = await userOf('alice@example.com');
    expect(alice!.google_hosted_domain).toBe('example.com');
    expect(await testbed.connections.find(alice!.id)).toMatchObject({
      email: 'alice@example.com',
      hostedDomain: 'example.com',
    });
  });

  it('as none (empty) for a personal (gmail.com) account', async () => {
    await signIn('dave@gmail.com');
    const dave = await userOf('dave@gmail.com');
    expect(dave!.google_hosted_domain).toBe('');
    expect(await testbed.connections.find(dave!.id)).toMatchObject({ hostedDomain: '' });
  });

  it('anew at each sign-in: a domain that changed is replaced, one that went is cleared', async () => {
    const alice = (await userOf('alice@example.com'))!;
    const dave = (await userOf('dave@gmail.com'))!;
    await testbed.pool.query(`UPDATE users SET google_hosted_domain = 'old.example' WHERE id = ANY($1)`, [
      [alice.id, dave.id],
    ]);
    await signIn('alice@example.com');
    await signIn('dave@gmail.com');
    expect((await userOf('alice@example.com'))!.google_hosted_domain).toBe('example.com');
    expect((await userOf('dave@gmail.com'))!.google_hosted_domain).toBe('');
  });

  it('as not known (null) for someone who signed in before it was kept, until they sign in again', async () => {
    const alice = (await userOf('alice@example.com'))!;
    await testbed.pool.query('UPDATE users SET google_hosted_domain = NULL WHERE id = $1', [alice.id]);
    expect(await testbed.connections.find(alice.id)).toMatchObject({ hostedDomain: null });
    // The broker reads it on a refresh: not known is answered as no domain (the consumer reading).
    await createAccessTokenCache(testbed.cache, testbed.keyring).forget(alice.id);
    const broker = await testbed.newBroker();
    expect(await broker.getAccessToken(alice.id)).toMatchObject({ ok: true, hostedDomain: '' });
    await signIn('alice@example.com');
    expect((await userOf('alice@example.com'))!.google_hosted_domain).toBe('example.com');
    expect(await broker.getAccessToken(alice.id)).toMatchObject({ ok: true, hostedDomain: 'example.com' });
  });
});

describe('GetGoogleAccessToken answers the account with the token', () => {
  it('from the sign-in’s cached token, and from a refresh at Google', async () => {
    const broker = await testbed.newBroker();
    const alice = (await userOf('alice@example.com'))!;
    const dave = (await userOf('dave@gmail.com'))!;
    expect(await broker.getAccessToken(alice.id)).toMatchObject({
      ok: true,
      email: 'alice@example.com',
      hostedDomain: 'example.com',
    });
    expect(await broker.getAccessToken(dave.id)).toMatchObject({
      ok: true,
      email: 'dave@gmail.com',
      hostedDomain: '',
    });
    // Nothing cached: the broker refreshes at Google and reads the account from the database.
    const cached = createAccessTokenCache(testbed.cache, testbed.keyring);
    const before = await cached.get(alice.id);
    await cached.forget(alice.id);
    const refreshed = await broker.getAccessToken(alice.id);
    expect(refreshed).toMatchObject({ ok: true, email: 'alice@example.com', hostedDomain: 'example.com' });
    expect(refreshed.ok && refreshed.accessToken).not.toBe(before!.accessToken);
  });

  it('refreshes a token cached without its account (written before the account was kept)', async () => {
    const broker = await testbed.newBroker();
    const alice = (await userOf('alice@example.com'))!;
    const cached = createAccessTokenCache(testbed.cache, testbed.keyring);
    const { account: _, ...legacy } = (await cached.get(alice.id))!;
    await cached.set(alice.id, legacy as never, 600);
    const answer = await broker.getAccessToken(alice.id);
    expect(answer).toMatchObject({ ok: true, email: 'alice@example.com', hostedDomain: 'example.com' });
    expect(answer.ok && answer.accessToken).not.toBe(legacy.accessToken);
  });
});

describe('an ID token that does not verify changes nothing', () => {
  /** A sign-in of `account` whose ID token `forge` rewrites on its way from Google's token endpoint. */
  async function signInForged(account: string, forge: (idToken: string) => Promise<string>) {
    testbed.googleProxy!.rewriteTokenAnswer = async (answer) => ({
      ...answer,
      id_token: await forge(String(answer.id_token)),
    });
    try {
      return await signIn(account);
    } finally {
      testbed.googleProxy!.rewriteTokenAnswer = undefined;
    }
  }

  const attackerKey = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const withPayload = (idToken: string, claims: Record<string, unknown>) => {
    const [header, , signature] = idToken.split('.');
    const payload = Buffer.from(JSON.stringify({ ...decodeJwt(idToken), ...claims })).toString('base64url');
    return `${header}.${payload}.${signature}`;
  };
  const forgeries: Record<string, (idToken: string) => Promise<string>> = {
    // Google's signature over other claims.
    'hd changed under Google’s signature': async (idToken) => withPayload(idToken, { hd: 'evil.example' }),
    'hd added to a personal account under Google’s signature': async (idToken) =>
      withPayload(idToken, { hd: 'evil.example' }),
    // Signed by someone else, under the kid of Google's key.
    'signed with another key': async (idToken) =>
      new SignJWT({ ...decodeJwt(idToken), hd: 'evil.example' })
        .setProtectedHeader({ alg: 'RS256', kid: decodeProtectedHeader(idToken).kid! })
        .sign(
          await importPKCS8(
            attackerKey.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
            'RS256',
          ),
        ),
    // No signature at all.
    'alg none': async (idToken) => {
      const payload = Buffer.from(JSON.stringify({ ...decodeJwt(idToken), hd: 'evil.example' }));
      return `${Buffer.from('{"alg":"none","typ":"JWT"}').toString('base64url')}.${payload.toString('base64url')}.`;
    },
  };

  for (const [name, forge] of Object.entries(forgeries)) {
    it(`refuses the sign-in, keeping the stored domain: ${name}`, async () => {
      const account = name.includes('personal') ? 'dave@gmail.com' : 'alice@example.com';
      const before = (await userOf(account))!;
      const { callback } = await signInForged(account, forge);
      expect(callback!.status).toBe(400);
      expect(callback!.body).toContain('could not be verified');
      expect((await userOf(account))!.google_hosted_domain).toBe(before.google_hosted_domain);
      expect((await testbed.connections.find(before.id))!.hostedDomain).toBe(before.google_hosted_domain);
    });
  }

  it('while the same sign-in, unforged, goes through (the proxy alone changes nothing)', async () => {
    const { callback } = await signInForged('alice@example.com', async (idToken) => idToken);
    expect(callback!.status).toBe(303);
    expect((await userOf('alice@example.com'))!.google_hosted_domain).toBe('example.com');
  });
});
