import { createHash, randomBytes } from 'node:crypto';
import { CodeChallengeMethod } from 'google-auth-library';
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

  it('shows no checkbox for a lone API scope and grants it with the account, as Google does', async () => {
    const url = authorizationUrl({ scope: `openid ${SCOPES.spreadsheets}` });
    const page = await (await fetch(url)).text();
    expect(parseChooser(page, url).checkboxes).toEqual([]);
    expect(page).toContain('See, edit, create, and delete all your Google Sheets spreadsheets');
    // Even a forged scope field cannot refuse it or add one that was not asked for.
    const redirect = await consent(url, { account: 'alice@example.com', tick: [SCOPES.drive] });
    const auth = oauthClientFor(emulator, clientA);
    const { tokens } = await auth.getToken(redirect.searchParams.get('code')!);
    expect(tokens.scope!.split(' ').sort()).toEqual(['openid', SCOPES.spreadsheets].sort());
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

/** An authorization code for `account` through `client` (PKCE), not yet exchanged. */
async function outstandingCode(client: TestClient, account: string, scopes: string[]) {
  const auth = oauthClientFor(emulator, client);
  const { codeVerifier, codeChallenge } = await auth.generateCodeVerifierAsync();
  const redirect = await consent(
    auth.generateAuthUrl({
      scope: scopes,
      access_type: 'offline',
      code_challenge: codeChallenge!,
      code_challenge_method: CodeChallengeMethod.S256,
    }),
    { account },
  );
  const code = redirect.searchParams.get('code');
  if (!code) throw new Error(`no code in ${redirect}`);
  return { auth, code, codeVerifier: codeVerifier! };
}

describe('the chooser with scopeCheckboxes: "unticked" (Google\'s granular consent)', () => {
  let google: Awaited<ReturnType<typeof startTestEmulator>>;
  beforeAll(async () => {
    google = await startTestEmulator({ scopeCheckboxes: 'unticked' });
  });
  afterAll(async () => {
    await google?.emulator.close();
  });
  const SHEETGATE = ['openid', 'email', SCOPES.spreadsheets, SCOPES.driveReadonly, SCOPES.driveFile];
  const url = () => oauthClientFor(google.emulator, google.clientA).generateAuthUrl({ scope: SHEETGATE });
  const grantedBy = async (choice: { tick?: string[] }) => {
    const redirect = await consent(url(), { account: 'alice@example.com', ...choice });
    const { tokens } = await oauthClientFor(google.emulator, google.clientA).getToken(
      redirect.searchParams.get('code')!,
    );
    expect(redirect.searchParams.get('scope')).toBe(tokens.scope);
    return tokens.scope!.split(' ').sort();
  };

  it('starts every API scope unticked, under a "Select all" box', async () => {
    const page = await (await fetch(url())).text();
    expect(parseChooser(page, url()).checkboxes).toEqual([
      { name: 'select_all', value: '1', checked: false, label: 'Select all' },
      {
        name: 'scope',
        value: SCOPES.spreadsheets,
        checked: false,
        label: 'See, edit, create, and delete all your Google Sheets spreadsheets',
      },
      {
        name: 'scope',
        value: SCOPES.driveReadonly,
        checked: false,
        label: 'See and download all your Google Drive files',
      },
      {
        name: 'scope',
        value: SCOPES.driveFile,
        checked: false,
        label: 'See, edit, create, and delete only the specific Google Drive files you use with this app',
      },
    ]);
  });

  it('grants only the sign-in scopes when the account is picked without ticking, then the API refuses', async () => {
    expect(await grantedBy({})).toEqual(['openid', SCOPES.userinfoEmail].sort());
    const redirect = await consent(url(), { account: 'alice@example.com' });
    const auth = oauthClientFor(google.emulator, google.clientA);
    auth.setCredentials((await auth.getToken(redirect.searchParams.get('code')!)).tokens);
    const refused = await failureOf(driveFor(google.emulator, auth).files.list());
    expect(refused.response?.status).toBe(403);
    expect(refused.response?.data.error.errors[0]?.reason).toBe('insufficientPermissions');
  });

  it('grants the ticked scopes, or all of them with "Select all"', async () => {
    expect(await grantedBy({ tick: [SCOPES.driveFile] })).toEqual(
      ['openid', SCOPES.userinfoEmail, SCOPES.driveFile].sort(),
    );
    expect(await grantedBy({ tick: ['select_all'] })).toEqual(
      ['openid', SCOPES.userinfoEmail, SCOPES.spreadsheets, SCOPES.driveReadonly, SCOPES.driveFile].sort(),
    );
  });
});

describe('prompt and login_hint', () => {
  // A fresh emulator: prompt=none depends on what each account granted before.
  let fresh: Awaited<ReturnType<typeof startTestEmulator>>;
  beforeAll(async () => {
    fresh = await startTestEmulator({ accounts: ['alice@example.com', 'carol@example.com'] });
  });
  afterAll(async () => {
    await fresh?.emulator.close();
  });

  const authorizationUrl = (params: Record<string, string>) =>
    `${fresh.emulator.url}/o/oauth2/v2/auth?${new URLSearchParams({
      client_id: fresh.clientA.clientId,
      redirect_uri: REDIRECT_URI,
      response_type: 'code',
      state: 'the-state',
      ...params,
    })}`;
  /** prompt=none never shows a page: the GET itself redirects. */
  async function silently(params: Record<string, string>) {
    const answer = await fetch(authorizationUrl({ prompt: 'none', ...params }), { redirect: 'manual' });
    expect(answer.status).toBe(302);
    const location = new URL(answer.headers.get('location')!);
    expect(`${location.origin}${location.pathname}`).toBe(REDIRECT_URI);
    expect(location.searchParams.get('state')).toBe('the-state');
    return location.searchParams;
  }
  it('prompt=none: login_required with no login_hint or an unknown account, interaction_required before consent', async () => {
    const scope = `openid ${SCOPES.driveReadonly}`;
    expect((await silently({ scope })).get('error')).toBe('login_required');
    expect((await silently({ scope, login_hint: 'nobody@example.com' })).get('error')).toBe('login_required');
    const beforeConsent = await silently({ scope, login_hint: 'carol@example.com' });
    expect(beforeConsent.get('error')).toBe('interaction_required');
    expect(beforeConsent.get('code')).toBeNull();
  });

  it('prompt=none: a code without a page once the hinted account granted every scope, by email or by sub', async () => {
    const { tokens } = await signIn(fresh.emulator, fresh.clientA, {
      account: 'carol@example.com',
      scopes: ['openid', 'email', SCOPES.driveReadonly],
    });
    const ticket = await oauthClientFor(fresh.emulator, fresh.clientA).verifyIdToken({
      idToken: tokens.id_token!,
      audience: fresh.clientA.clientId,
    });
    const sub = ticket.getPayload()!.sub;

    for (const loginHint of ['Carol@Example.com', sub]) {
      const params = await silently({ scope: `openid ${SCOPES.driveReadonly}`, login_hint: loginHint });
      expect(params.get('error')).toBeNull();
      expect(params.get('scope')).toBe(`openid ${SCOPES.driveReadonly}`);
      const exchanged = await oauthClientFor(fresh.emulator, fresh.clientA).getToken(params.get('code')!);
      expect(exchanged.tokens.scope).toBe(`openid ${SCOPES.driveReadonly}`);
      expect(exchanged.tokens.refresh_token).toBeUndefined(); // not offline, and not first consent
    }
    // A scope never granted needs the consent page.
    const wider = await silently({ scope: `openid ${SCOPES.spreadsheets}`, login_hint: 'carol@example.com' });
    expect(wider.get('error')).toBe('interaction_required');
    // Another client has no grant from Carol.
    const otherClient = await fetch(
      authorizationUrl({
        prompt: 'none',
        scope: 'openid',
        login_hint: 'carol@example.com',
        client_id: fresh.clientB.clientId,
      }),
      { redirect: 'manual' },
    );
    expect(new URL(otherClient.headers.get('location')!).searchParams.get('error')).toBe(
      'interaction_required',
    );
  });

  it('refuses prompt=none combined with another value, and unknown prompt values, with an error page', async () => {
    for (const prompt of ['none consent', 'login', 'consent bogus']) {
      const page = await fetch(authorizationUrl({ scope: 'openid', prompt }), { redirect: 'manual' });
      expect(page.status, prompt).toBe(400);
      expect(await page.text()).toContain('invalid_request');
    }
    const fine = await fetch(authorizationUrl({ scope: 'openid', prompt: 'select_account consent' }));
    expect(fine.status).toBe(200);
  });

  it('max_age: the chooser is always shown, and the ID token says when the account was chosen', async () => {
    const idTokenOf = async (params: Record<string, string>) => {
      const redirect = await consent(authorizationUrl({ scope: 'openid email', ...params }), {
        account: 'alice@example.com',
      });
      const { tokens } = await oauthClientFor(fresh.emulator, fresh.clientA).getToken(
        redirect.searchParams.get('code')!,
      );
      return JSON.parse(Buffer.from(tokens.id_token!.split('.')[1]!, 'base64url').toString()) as {
        auth_time?: number;
      };
    };
    const before = Math.floor(Date.now() / 1000);
    const asked = await idTokenOf({ max_age: '0' });
    expect(asked.auth_time).toBeGreaterThanOrEqual(before);
    expect(asked.auth_time).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000));
    // Without max_age, Google does not say (OpenID Connect Core §2: auth_time is then optional).
    expect((await idTokenOf({})).auth_time).toBeUndefined();
    // Nobody can authenticate again without a page.
    const silent = await fetch(
      authorizationUrl({ scope: 'openid', prompt: 'none', max_age: '0', login_hint: 'alice@example.com' }),
      { redirect: 'manual' },
    );
    expect(new URL(silent.headers.get('location')!).searchParams.get('error')).toBe('login_required');
    for (const maxAge of ['-1', 'soon', '1.5']) {
      const page = await fetch(authorizationUrl({ scope: 'openid', max_age: maxAge }), {
        redirect: 'manual',
      });
      expect(page.status, maxAge).toBe(400);
      expect(await page.text()).toContain('invalid_request');
    }
  });

  it('puts the account a login_hint names by sub first on the chooser', async () => {
    const { tokens } = await signIn(fresh.emulator, fresh.clientA, {
      account: 'carol@example.com',
      scopes: ['openid'],
    });
    const sub = JSON.parse(Buffer.from(tokens.id_token!.split('.')[1]!, 'base64url').toString())
      .sub as string;
    const url = authorizationUrl({ scope: 'openid', login_hint: sub });
    const chooser = parseChooser(await (await fetch(url)).text(), url);
    expect(chooser.accounts).toEqual(['carol@example.com', 'alice@example.com']);
    const unknown = authorizationUrl({ scope: 'openid', login_hint: '123' });
    expect(parseChooser(await (await fetch(unknown)).text(), unknown).accounts).toEqual([
      'alice@example.com',
      'carol@example.com',
    ]);
  });

  it('prompt=consent issues a new refresh token where a repeat consent without it issues none', async () => {
    const first = await signIn(fresh.emulator, fresh.clientB, {
      account: 'alice@example.com',
      scopes: [SCOPES.driveReadonly],
    });
    expect(first.tokens.refresh_token).toMatch(/^1\/\/0/);

    const auth = oauthClientFor(fresh.emulator, fresh.clientB);
    const again = await consent(
      auth.generateAuthUrl({ scope: [SCOPES.driveReadonly], access_type: 'offline' }),
      { account: 'alice@example.com' },
    );
    const repeated = await auth.getToken(again.searchParams.get('code')!);
    expect(repeated.tokens.access_token).toMatch(/^ya29\./);
    expect(repeated.tokens.refresh_token).toBeUndefined();

    const forced = await consent(
      auth.generateAuthUrl({ scope: [SCOPES.driveReadonly], access_type: 'offline', prompt: 'consent' }),
      { account: 'alice@example.com' },
    );
    const reissued = await auth.getToken(forced.searchParams.get('code')!);
    expect(reissued.tokens.refresh_token).toMatch(/^1\/\/0/);
    expect(reissued.tokens.refresh_token).not.toBe(first.tokens.refresh_token);
    // The earlier refresh token keeps working, as at Google (until its per-client cap).
    const old = oauthClientFor(fresh.emulator, fresh.clientB);
    old.setCredentials({ refresh_token: first.tokens.refresh_token! });
    expect((await old.refreshAccessToken()).credentials.access_token).toMatch(/^ya29\./);
  });
});

describe('revocation and expiry', () => {
  it('refuses an authorization code after authorizationCodeTtlSeconds', async () => {
    // Three seconds: enough that the prompt exchange below is never late on a busy machine.
    const short = await startTestEmulator({ authorizationCodeTtlSeconds: 3 });
    try {
      const codeOf = async () => {
        const auth = oauthClientFor(short.emulator, short.clientA);
        const redirect = await consent(auth.generateAuthUrl({ scope: ['openid'] }), {
          account: 'alice@example.com',
        });
        return { auth, code: redirect.searchParams.get('code')! };
      };
      const prompt = await codeOf();
      expect((await prompt.auth.getToken(prompt.code)).tokens.access_token).toMatch(/^ya29\./);
      const late = await codeOf();
      await new Promise((resolve) => setTimeout(resolve, 3100));
      const error = await failureOf<{ error?: string }>(late.auth.getToken(late.code));
      expect(error.response?.status).toBe(400);
      expect(error.response?.data.error).toBe('invalid_grant');
    } finally {
      await short.emulator.close();
    }
  });

  it('refuses a code issued before the account was revoked through the admin API', async () => {
    const pending = await outstandingCode(clientA, 'bob@example.com', [SCOPES.driveReadonly]);
    const otherAccount = await outstandingCode(clientA, 'alice@example.com', [SCOPES.driveReadonly]);
    expect((await admin(emulator, 'POST', '/revoke', { email: 'bob@example.com' })).status).toBe(200);
    const error = await failureOf<{ error?: string }>(
      pending.auth.getToken({ code: pending.code, codeVerifier: pending.codeVerifier }),
    );
    expect(error.response?.status).toBe(400);
    expect(error.response?.data.error).toBe('invalid_grant');
    // Only Bob's grant went: Alice's outstanding code still works.
    const { tokens } = await otherAccount.auth.getToken({
      code: otherAccount.code,
      codeVerifier: otherAccount.codeVerifier,
    });
    expect(tokens.access_token).toMatch(/^ya29\./);
  });

  it('refuses a code issued before the grant was revoked at the revocation endpoint', async () => {
    const { auth, tokens } = await signIn(emulator, clientB, {
      account: 'bob@example.com',
      scopes: [SCOPES.driveReadonly],
    });
    const pending = await outstandingCode(clientB, 'bob@example.com', [SCOPES.driveReadonly]);
    const otherClient = await outstandingCode(clientA, 'bob@example.com', [SCOPES.driveReadonly]);
    await auth.revokeToken(tokens.access_token!);
    expect(
      await oauthErrorOf(pending.auth.getToken({ code: pending.code, codeVerifier: pending.codeVerifier })),
    ).toBe('invalid_grant');
    // The grant is per client: Bob's code for client A is untouched.
    const other = await otherClient.auth.getToken({
      code: otherClient.code,
      codeVerifier: otherClient.codeVerifier,
    });
    expect(other.tokens.access_token).toMatch(/^ya29\./);
  });

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
      await new Promise((resolve) => setTimeout(resolve, 3100));
      expect(await statusOf(driveFor(short.emulator, auth).files.list())).toBe(401);
      // With the refresh token, google-auth-library renews and the call succeeds again.
      auth.setCredentials({ ...tokens, expiry_date: Date.now() - 1000 });
      expect((await driveFor(short.emulator, auth).files.list()).status).toBe(200);
    } finally {
      await short.emulator.close();
    }
  });
});
