import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GoogleEmulator } from '../src/index.ts';
import {
  admin,
  consent,
  driveFor,
  failureOf,
  oauthClientFor,
  parseChooser,
  REDIRECT_URI,
  SCOPES,
  signIn,
  startTestEmulator,
  statusOf,
  type TestClient,
} from './support/emulator.ts';

let emulator: GoogleEmulator;
let clientA: TestClient;
let clientB: TestClient;
beforeAll(async () => {
  ({ emulator, clientA, clientB } = await startTestEmulator());
});
afterAll(async () => {
  await emulator?.close();
});

const API_SCOPES = [
  'openid',
  'email',
  'profile',
  SCOPES.spreadsheets,
  SCOPES.driveReadonly,
  SCOPES.driveFile,
];

/** A raw token-endpoint call, for the error answers google-auth-library hides behind exceptions. */
async function tokenRequest(form: Record<string, string>, headers: Record<string, string> = {}) {
  const response = await fetch(`${emulator.url}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(form).toString(),
  });
  return { status: response.status, body: (await response.json()) as Record<string, string> };
}

async function oauthErrorOf(call: Promise<unknown>): Promise<string | undefined> {
  return (await failureOf<{ error?: string }>(call)).response?.data.error;
}

describe('OAuth 2.0 authorization code flow (RFC 6749 §4.1) with PKCE (RFC 7636)', () => {
  it('issues Google-shaped tokens with the granted scopes spelt as Google spells them', async () => {
    const { tokens } = await signIn(emulator, clientA, { scopes: API_SCOPES });
    expect(tokens.access_token).toMatch(/^ya29\./);
    expect(tokens.refresh_token).toMatch(/^1\/\/0/);
    expect(tokens.token_type).toBe('Bearer');
    expect(tokens.expiry_date! - Date.now()).toBeGreaterThan(3500_000);
    expect(tokens.scope!.split(' ').sort()).toEqual(
      [
        'openid',
        SCOPES.userinfoEmail,
        SCOPES.userinfoProfile,
        SCOPES.spreadsheets,
        SCOPES.driveReadonly,
        SCOPES.driveFile,
      ].sort(),
    );
    expect(tokens.id_token).toBeTruthy();
  });

  it('signs ID tokens that google-auth-library verifies, with the claims Google sends', async () => {
    const nonce = randomBytes(8).toString('hex');
    const { auth, tokens } = await signIn(emulator, clientA, {
      scopes: ['openid', 'email', 'profile'],
      account: 'bob@example.com',
      nonce,
    });
    const ticket = await auth.verifyIdToken({ idToken: tokens.id_token!, audience: clientA.clientId });
    const payload = ticket.getPayload()!;
    expect(payload).toMatchObject({
      iss: emulator.url,
      aud: clientA.clientId,
      azp: clientA.clientId,
      email: 'bob@example.com',
      email_verified: true,
      name: 'Bob',
      nonce,
    });
    expect(payload.sub).toMatch(/^\d{21}$/);
    expect(payload.exp - payload.iat).toBe(3600);
    // Another audience is refused.
    await expect(
      auth.verifyIdToken({ idToken: tokens.id_token!, audience: clientB.clientId }),
    ).rejects.toThrow(/audience/);
  });

  it('publishes discovery, JWKS and userinfo', async () => {
    const discovery = (await (
      await fetch(`${emulator.url}/.well-known/openid-configuration`)
    ).json()) as Record<string, unknown>;
    expect(discovery).toMatchObject({
      issuer: emulator.url,
      token_endpoint: `${emulator.url}/token`,
      jwks_uri: `${emulator.url}/oauth2/v3/certs`,
      code_challenge_methods_supported: ['plain', 'S256'],
    });
    const jwks = (await (await fetch(`${emulator.url}/oauth2/v3/certs`)).json()) as {
      keys: Array<Record<string, string>>;
    };
    expect(jwks.keys[0]).toMatchObject({ kty: 'RSA', alg: 'RS256', use: 'sig' });
    const { auth } = await signIn(emulator, clientA, { scopes: ['openid', 'email'] });
    const { data } = await auth.request<Record<string, unknown>>({ url: `${emulator.url}/v1/userinfo` });
    expect(data).toMatchObject({ email: 'alice@example.com', email_verified: true });
    expect(data.name).toBeUndefined(); // profile was not granted
    const info = await auth.getTokenInfo(auth.credentials.access_token!);
    expect(info.email).toBe('alice@example.com');
    expect(info.scopes).toContain(SCOPES.userinfoEmail);
  });

  it('returns a refresh token only for access_type=offline', async () => {
    const { tokens } = await signIn(emulator, clientA, { scopes: ['openid'], offline: false });
    expect(tokens.access_token).toBeTruthy();
    expect(tokens.refresh_token).toBeUndefined();
  });

  it('refreshes with the refresh token (client_secret_post and client_secret_basic)', async () => {
    const { auth, tokens } = await signIn(emulator, clientA, { scopes: [SCOPES.driveReadonly] });
    const refreshed = await auth.refreshAccessToken();
    expect(refreshed.credentials.access_token).toMatch(/^ya29\./);
    expect(refreshed.credentials.access_token).not.toBe(tokens.access_token);
    expect(refreshed.credentials.scope).toBe(SCOPES.driveReadonly);
    const basic = Buffer.from(
      `${encodeURIComponent(clientA.clientId)}:${encodeURIComponent(clientA.clientSecret)}`,
    ).toString('base64');
    const viaBasic = await tokenRequest(
      { grant_type: 'refresh_token', refresh_token: tokens.refresh_token! },
      { authorization: `Basic ${basic}` },
    );
    expect(viaBasic.status).toBe(200);
    expect(viaBasic.body.access_token).toMatch(/^ya29\./);
  });

  it('refuses a wrong client secret with invalid_client, and another client refreshing with invalid_grant', async () => {
    const { tokens } = await signIn(emulator, clientA, { scopes: [SCOPES.driveReadonly] });
    const wrongSecret = oauthClientFor(emulator, { ...clientA, clientSecret: 'wrong' });
    wrongSecret.setCredentials({ refresh_token: tokens.refresh_token! });
    const error = await failureOf<{ error?: string }>(wrongSecret.refreshAccessToken());
    expect(error.response?.data.error).toBe('invalid_client');
    expect(error.response?.status).toBe(401);
    const other = oauthClientFor(emulator, clientB);
    other.setCredentials({ refresh_token: tokens.refresh_token! });
    expect(await oauthErrorOf(other.refreshAccessToken())).toBe('invalid_grant');
  });

  it('refuses a used code, a wrong code verifier and a wrong redirect_uri with invalid_grant', async () => {
    const auth = oauthClientFor(emulator, clientA);
    const { codeVerifier, codeChallenge } = await auth.generateCodeVerifierAsync();
    const authorize = () =>
      consent(
        `${emulator.url}/o/oauth2/v2/auth?${new URLSearchParams({
          client_id: clientA.clientId,
          redirect_uri: REDIRECT_URI,
          response_type: 'code',
          scope: 'openid',
          code_challenge: codeChallenge!,
          code_challenge_method: 'S256',
        })}`,
        { account: 'alice@example.com' },
      );
    const base = {
      grant_type: 'authorization_code',
      client_id: clientA.clientId,
      client_secret: clientA.clientSecret,
    };

    const code = (await authorize()).searchParams.get('code')!;
    const wrongVerifier = await tokenRequest({
      ...base,
      code,
      redirect_uri: REDIRECT_URI,
      code_verifier: 'x'.repeat(43),
    });
    expect(wrongVerifier).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });

    const second = (await authorize()).searchParams.get('code')!;
    const missingVerifier = await tokenRequest({ ...base, code: second, redirect_uri: REDIRECT_URI });
    expect(missingVerifier.body.error).toBe('invalid_grant');

    const third = (await authorize()).searchParams.get('code')!;
    const wrongRedirect = await tokenRequest({
      ...base,
      code: third,
      redirect_uri: 'http://127.0.0.1:9/other',
      code_verifier: codeVerifier!,
    });
    expect(wrongRedirect.body.error).toBe('invalid_grant');

    const fourth = (await authorize()).searchParams.get('code')!;
    const good = await tokenRequest({
      ...base,
      code: fourth,
      redirect_uri: REDIRECT_URI,
      code_verifier: codeVerifier!,
    });
    expect(good.status).toBe(200);
    const replay = await tokenRequest({
      ...base,
      code: fourth,
      redirect_uri: REDIRECT_URI,
      code_verifier: codeVerifier!,
    });
    expect(replay).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
  });

  it('accepts PKCE with the plain method', async () => {
    const verifier = randomBytes(32).toString('base64url');
    const redirect = await consent(
      `${emulator.url}/o/oauth2/v2/auth?${new URLSearchParams({
        client_id: clientA.clientId,
        redirect_uri: REDIRECT_URI,
        response_type: 'code',
        scope: 'openid',
        code_challenge: verifier,
        code_challenge_method: 'plain',
      })}`,
      { account: 'alice@example.com' },
    );
    const answer = await tokenRequest({
      grant_type: 'authorization_code',
      client_id: clientA.clientId,
      client_secret: clientA.clientSecret,
      code: redirect.searchParams.get('code')!,
      redirect_uri: REDIRECT_URI,
      code_verifier: verifier,
    });
    expect(answer.status).toBe(200);
    expect(createHash('sha256').update(verifier).digest('base64url')).not.toBe(verifier);
  });
});

describe('the account chooser', () => {
  const authorizationUrl = (extra: Record<string, string> = {}) =>
    `${emulator.url}/o/oauth2/v2/auth?${new URLSearchParams({
      client_id: clientA.clientId,
      redirect_uri: REDIRECT_URI,
      response_type: 'code',
      scope: `openid email ${SCOPES.spreadsheets} ${SCOPES.driveReadonly}`,
      state: 'st<"ate>',
      ...extra,
    })}`;

  it('shows one button per account named by its email, Cancel, and the API scopes ticked', async () => {
    const url = authorizationUrl({ login_hint: 'bob@example.com' });
    const page = await fetch(url);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
    const chooser = parseChooser(await page.text(), url);
    expect(chooser.accounts).toEqual(['bob@example.com', 'alice@example.com']);
    expect(chooser.hasCancel).toBe(true);
    expect(chooser.scopes).toEqual([SCOPES.spreadsheets, SCOPES.driveReadonly]);
  });

  it('redirects with error=access_denied and the state on Cancel', async () => {
    const redirect = await consent(authorizationUrl(), 'cancel');
    expect(redirect.searchParams.get('error')).toBe('access_denied');
    expect(redirect.searchParams.get('state')).toBe('st<"ate>');
    expect(redirect.searchParams.get('code')).toBeNull();
  });

  it('refuses an unregistered redirect URI or an unknown client with an error page', async () => {
    const mismatch = await fetch(authorizationUrl({ redirect_uri: 'http://127.0.0.1:9/evil' }));
    expect(mismatch.status).toBe(400);
    expect(await mismatch.text()).toContain('redirect_uri_mismatch');
    const unknown = await fetch(authorizationUrl({ client_id: 'nobody.apps.googleusercontent.com' }));
    expect(unknown.status).toBe(401);
    expect(await unknown.text()).toContain('invalid_client');
  });

  it('grants only the ticked scopes (granular consent), and the API enforces them', async () => {
    const { auth, tokens, redirect } = await signIn(emulator, clientA, {
      scopes: API_SCOPES,
      untick: [SCOPES.driveReadonly],
    });
    expect(tokens.scope!.split(' ')).not.toContain(SCOPES.driveReadonly);
    expect(tokens.scope!.split(' ')).toContain(SCOPES.spreadsheets);
    expect(redirect.searchParams.get('scope')).toBe(tokens.scope);
    // drive.file still lets the client list (its own files); only a token with no Drive scope is refused.
    const driveOnlyUnticked = await signIn(emulator, clientA, {
      scopes: ['openid', SCOPES.spreadsheets, SCOPES.driveReadonly],
      untick: [SCOPES.driveReadonly],
    });
    const error = await failureOf(driveFor(emulator, driveOnlyUnticked.auth).files.list());
    expect(error.response?.status).toBe(403);
    expect(error.response?.data.error.errors[0]?.reason).toBe('insufficientPermissions');
    expect((await driveFor(emulator, auth).files.list()).status).toBe(200);
  });

  it('adds previously granted scopes with include_granted_scopes=true', async () => {
    await signIn(emulator, clientB, { account: 'bob@example.com', scopes: ['openid', SCOPES.driveReadonly] });
    const auth = oauthClientFor(emulator, clientB);
    const redirect = await consent(
      auth.generateAuthUrl({ scope: ['openid', SCOPES.spreadsheets], include_granted_scopes: true }),
      { account: 'bob@example.com' },
    );
    const { tokens } = await auth.getToken(redirect.searchParams.get('code')!);
    expect(tokens.scope!.split(' ').sort()).toEqual(
      ['openid', SCOPES.driveReadonly, SCOPES.spreadsheets].sort(),
    );
  });
});

describe('revocation and expiry', () => {
  it('revokes the grant at /revoke: refresh gets invalid_grant and the access token 401', async () => {
    const { auth, tokens } = await signIn(emulator, clientA, { scopes: [SCOPES.driveReadonly] });
    const drive = driveFor(emulator, auth);
    expect((await drive.files.list()).status).toBe(200);
    await auth.revokeToken(tokens.refresh_token!);
    const fresh = oauthClientFor(emulator, clientA);
    fresh.setCredentials({ access_token: tokens.access_token! });
    expect(await statusOf(driveFor(emulator, fresh).files.list())).toBe(401);
    fresh.setCredentials({ refresh_token: tokens.refresh_token! });
    expect(await oauthErrorOf(fresh.refreshAccessToken())).toBe('invalid_grant');
  });

  it('revokes every grant of an account through the admin API', async () => {
    const { tokens } = await signIn(emulator, clientB, {
      account: 'bob@example.com',
      scopes: [SCOPES.driveReadonly],
    });
    const other = await signIn(emulator, clientB, {
      account: 'alice@example.com',
      scopes: [SCOPES.driveReadonly],
    });
    expect((await admin(emulator, 'POST', '/revoke', { email: 'bob@example.com' })).status).toBe(200);

    const bob = oauthClientFor(emulator, clientB);
    bob.setCredentials({ access_token: tokens.access_token! });
    const unauthenticated = await failureOf(driveFor(emulator, bob).files.list());
    expect(unauthenticated.response?.status).toBe(401);
    expect(unauthenticated.response?.data.error.status).toBe('UNAUTHENTICATED');
    bob.setCredentials({ refresh_token: tokens.refresh_token! });
    expect(await oauthErrorOf(bob.refreshAccessToken())).toBe('invalid_grant');
    // Alice's grant to the same client is untouched.
    expect((await driveFor(emulator, other.auth).files.list()).status).toBe(200);
  });

  it('expires access tokens after accessTokenTtlSeconds', async () => {
    const short = await startTestEmulator({ accessTokenTtlSeconds: 1 });
    try {
      const { tokens } = await signIn(short.emulator, short.clientA, { scopes: [SCOPES.driveReadonly] });
      expect(tokens.expiry_date! - Date.now()).toBeLessThanOrEqual(1000);
      // Without a refresh token the library cannot renew, so the expired token reaches the API.
      const auth = oauthClientFor(short.emulator, short.clientA);
      auth.setCredentials({ access_token: tokens.access_token!, expiry_date: Date.now() + 3_600_000 });
      expect((await driveFor(short.emulator, auth).files.list()).status).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, 1100));
      expect(await statusOf(driveFor(short.emulator, auth).files.list())).toBe(401);
      // With the refresh token, google-auth-library renews and the call succeeds again.
      auth.setCredentials({ ...tokens, expiry_date: Date.now() - 1000 });
      expect((await driveFor(short.emulator, auth).files.list()).status).toBe(200);
    } finally {
      await short.emulator.close();
    }
  });
});
