import { randomBytes } from 'node:crypto';
import { CodeChallengeMethod, OAuth2Client } from 'google-auth-library';
import { google } from 'googleapis';
import { type GoogleEmulator, type GoogleEmulatorOptions, startGoogleEmulator } from '../../src/index.ts';

export const SCOPES = {
  spreadsheets: 'https://www.googleapis.com/auth/spreadsheets',
  drive: 'https://www.googleapis.com/auth/drive',
  driveReadonly: 'https://www.googleapis.com/auth/drive.readonly',
  driveFile: 'https://www.googleapis.com/auth/drive.file',
  userinfoEmail: 'https://www.googleapis.com/auth/userinfo.email',
  userinfoProfile: 'https://www.googleapis.com/auth/userinfo.profile',
};

export const REDIRECT_URI = 'http://127.0.0.1:9/callback';

export interface TestClient {
  clientId: string;
  clientSecret: string;
}

export const newTestClient = (): TestClient => ({
  clientId: `${randomBytes(6).toString('hex')}.apps.googleusercontent.com`,
  clientSecret: `GOCSPX-${randomBytes(18).toString('base64url')}`,
});

/** An emulator with two registered clients, A and B, both allowed REDIRECT_URI. */
export async function startTestEmulator(options: GoogleEmulatorOptions = {}) {
  const clientA = newTestClient();
  const clientB = newTestClient();
  const emulator: GoogleEmulator = await startGoogleEmulator({
    port: 0,
    clients: [
      { ...clientA, redirectUris: [REDIRECT_URI] },
      { ...clientB, redirectUris: [REDIRECT_URI] },
    ],
    ...options,
  });
  return { emulator, clientA, clientB };
}

/** google-auth-library's OAuth2Client pointed at the emulator, as the README says to. */
export function oauthClientFor(
  emulator: GoogleEmulator,
  client: TestClient,
  extra: Partial<ConstructorParameters<typeof OAuth2Client>[0] & object> = {},
) {
  return new OAuth2Client({
    clientId: client.clientId,
    clientSecret: client.clientSecret,
    redirectUri: REDIRECT_URI,
    endpoints: {
      oauth2AuthBaseUrl: `${emulator.url}/o/oauth2/v2/auth`,
      oauth2TokenUrl: `${emulator.url}/token`,
      oauth2RevokeUrl: `${emulator.url}/revoke`,
      oauth2FederatedSignonPemCertsUrl: `${emulator.url}/oauth2/v1/certs`,
      oauth2FederatedSignonJwkCertsUrl: `${emulator.url}/oauth2/v3/certs`,
      tokenInfoUrl: `${emulator.url}/tokeninfo`,
    },
    issuers: [emulator.url],
    ...extra,
  });
}

export const driveFor = (emulator: GoogleEmulator, auth: OAuth2Client) =>
  google.drive({ version: 'v3', auth, rootUrl: `${emulator.url}/` });
export const sheetsFor = (emulator: GoogleEmulator, auth: OAuth2Client) =>
  google.sheets({ version: 'v4', auth, rootUrl: `${emulator.url}/` });

interface ChooserForm {
  action: string;
  hidden: Array<[string, string]>;
  /** Every checkbox, with its label's text. */
  checkboxes: Array<{ name: string; value: string; checked: boolean; label: string }>;
  /** The values of the ticked `scope` checkboxes. */
  scopes: string[];
  accounts: string[];
  hasCancel: boolean;
}

const decode = (text: string) =>
  text
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
const attribute = (tag: string, name: string) => {
  const match = new RegExp(`\\s${name}="([^"]*)"`).exec(tag);
  return match ? decode(match[1]!) : undefined;
};

/** Reads the chooser page as a browser without JavaScript would: its form, checkboxes and buttons. */
export function parseChooser(html: string, pageUrl: string): ChooserForm {
  const form = /<form\b([^>]*)>([\s\S]*?)<\/form>/.exec(html);
  if (!form) throw new Error(`no form on the chooser page:\n${html.slice(0, 500)}`);
  const body = form[2]!;
  const inputs = [...body.matchAll(/<input\b([^>]*)>/g)].map((match) => match[1]!);
  const labelFor = (id: string | undefined) =>
    decode(new RegExp(`<label for="${id}">([^<]*)</label>`).exec(body)?.[1] ?? '');
  const buttons = [...body.matchAll(/<button\b([^>]*)>([\s\S]*?)<\/button>/g)].map((match) => ({
    tag: match[1]!,
    label: decode(match[2]!.replace(/<[^>]*>/g, '').trim()),
  }));
  return {
    action: new URL(attribute(form[1]!, 'action') ?? pageUrl, pageUrl).toString(),
    hidden: inputs
      .filter((tag) => attribute(tag, 'type') === 'hidden')
      .map((tag) => [attribute(tag, 'name')!, attribute(tag, 'value') ?? '']),
    checkboxes: inputs
      .filter((tag) => attribute(tag, 'type') === 'checkbox')
      .map((tag) => ({
        name: attribute(tag, 'name')!,
        value: attribute(tag, 'value')!,
        checked: /\schecked\b/.test(tag),
        label: labelFor(attribute(tag, 'id')),
      })),
    scopes: inputs
      .filter(
        (tag) =>
          attribute(tag, 'type') === 'checkbox' &&
          attribute(tag, 'name') === 'scope' &&
          /\schecked\b/.test(tag),
      )
      .map((tag) => attribute(tag, 'value')!),
    accounts: buttons
      .filter((button) => attribute(button.tag, 'name') === 'account')
      .map((button) => button.label),
    hasCancel: buttons.some((button) => button.label === 'Cancel'),
  };
}

/**
 * Opens the authorization URL, picks `account` (or "Cancel") with the ticked boxes except those in
 * `untick`, plus those whose value or name is in `tick`, and returns the redirect's URL.
 */
export async function consent(
  authorizationUrl: string,
  choice: { account: string; untick?: string[]; tick?: string[] } | 'cancel',
) {
  const page = await fetch(authorizationUrl);
  if (page.status !== 200) throw new Error(`chooser answered ${page.status}: ${await page.text()}`);
  const chooser = parseChooser(await page.text(), authorizationUrl);
  const form = new URLSearchParams(chooser.hidden);
  if (choice === 'cancel') {
    form.set('cancel', '1');
  } else {
    for (const box of chooser.checkboxes) {
      const ticked = box.checked && !choice.untick?.includes(box.value);
      if (ticked || choice.tick?.includes(box.value) || choice.tick?.includes(box.name))
        form.append(box.name, box.value);
    }
    form.set('account', choice.account);
  }
  const answer = await fetch(chooser.action, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: form.toString(),
    redirect: 'manual',
  });
  const location = answer.headers.get('location');
  if (answer.status !== 302 || !location)
    throw new Error(`expected a redirect, got ${answer.status}: ${await answer.text()}`);
  return new URL(location);
}

/**
 * The whole code flow with PKCE through google-auth-library: authorization URL, chooser, code
 * exchange. Returns the client (holding the tokens) and the token response.
 */
export async function signIn(
  emulator: GoogleEmulator,
  client: TestClient,
  options: { account?: string; scopes: string[]; untick?: string[]; offline?: boolean; nonce?: string },
) {
  const auth = oauthClientFor(emulator, client);
  const { codeVerifier, codeChallenge } = await auth.generateCodeVerifierAsync();
  const state = randomBytes(8).toString('hex');
  const url = auth.generateAuthUrl({
    scope: options.scopes,
    access_type: options.offline === false ? 'online' : 'offline',
    prompt: 'consent',
    state,
    code_challenge: codeChallenge!,
    code_challenge_method: CodeChallengeMethod.S256,
    ...(options.nonce ? { nonce: options.nonce } : {}),
  } as Parameters<OAuth2Client['generateAuthUrl']>[0]);
  const redirect = await consent(url, {
    account: options.account ?? 'alice@example.com',
    ...(options.untick ? { untick: options.untick } : {}),
  });
  if (redirect.searchParams.get('state') !== state) throw new Error('state not returned');
  const code = redirect.searchParams.get('code');
  if (!code) throw new Error(`no code in ${redirect}`);
  const { tokens } = await auth.getToken({ code, codeVerifier });
  auth.setCredentials(tokens);
  return { auth, tokens, redirect };
}

/** Calls the admin API; returns status and parsed body. */
export async function admin(emulator: GoogleEmulator, method: string, path: string, body?: unknown) {
  const response = await fetch(`${emulator.url}/__emulator${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : undefined };
}

/** The HTTP status of a failed googleapis call. */
export async function statusOf(call: Promise<unknown>): Promise<number> {
  try {
    await call;
  } catch (error) {
    const status =
      (error as { status?: number; response?: { status?: number } }).status ??
      (error as { response?: { status?: number } }).response?.status;
    if (typeof status === 'number') return status;
    throw error;
  }
  throw new Error('expected the call to fail');
}

/** What a failed googleapis / google-auth-library call throws (a GaxiosError), read by shape. */
export interface ClientError<Data = unknown> {
  status?: number;
  response?: { status: number; data: Data; headers: Headers };
}

/** The error a call fails with; throws if it succeeds. */
export async function failureOf<
  Data = {
    error: {
      code: number;
      status: string;
      message: string;
      errors: Array<{ reason: string; location?: string }>;
    };
  },
>(call: Promise<unknown>): Promise<ClientError<Data>> {
  try {
    await call;
  } catch (error) {
    if (error && typeof error === 'object' && 'response' in error) return error as ClientError<Data>;
    throw error;
  }
  throw new Error('expected the call to fail');
}
