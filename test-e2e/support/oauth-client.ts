import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import type { Browser, Stack } from '@sheetgate/test-harness';
import { accountService } from './people.ts';

const REDIRECT = 'http://127.0.0.1:43999/callback';

/**
 * An MCP client's OAuth state, as a desktop client keeps it: registration, tokens, PKCE verifier.
 * The SDK drives discovery, registration, PKCE, the code exchange and refreshes; the test only
 * plays the person in the browser when the SDK asks for it (`redirectToAuthorization`).
 */
export class RecordingOAuthProvider implements OAuthClientProvider {
  authorizationUrl: URL | undefined;
  redirects = 0;
  readonly redirectUrl: string;
  private readonly clientName: string;
  private client: OAuthClientInformationMixed | undefined;
  private saved: OAuthTokens | undefined;
  private verifier = '';

  /** A desktop client on a loopback redirect unless told otherwise (e.g. a web app's https one). */
  constructor(options: { redirectUrl?: string; clientName?: string } = {}) {
    this.redirectUrl = options.redirectUrl ?? REDIRECT;
    this.clientName = options.clientName ?? 'E2E desktop client';
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: this.clientName,
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  clientInformation() {
    return this.client;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.client = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
    this.redirects++;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
  /** The SDK calls this when the server refuses what it holds (e.g. `invalid_grant` on refresh). */
  invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery') {
    if (scope === 'all' || scope === 'client') this.client = undefined;
    if (scope === 'all' || scope === 'tokens') this.saved = undefined;
    if (scope === 'all' || scope === 'verifier') this.verifier = '';
  }
}

/**
 * The person's part of an authorization: follow the browser from the authorization URL, sign in
 * with Google at the emulator if Sheetgate asks, then Allow or Deny on the consent step.
 * Returns the app's redirect URL (with `code` or `error`).
 */
export async function authorizeAsPerson(
  stack: Stack,
  browser: Browser,
  authorizationUrl: URL,
  options: { email: string; decision?: 'allow' | 'deny' },
): Promise<URL> {
  // The client's own redirect URI, as it asked for it.
  const redirect = authorizationUrl.searchParams.get('redirect_uri') ?? REDIRECT;
  const stop = (url: URL) =>
    url.href.startsWith(redirect) || url.pathname === '/login' || url.pathname === '/authorize';
  let step = await browser.navigate(authorizationUrl.href, {}, stop);
  let at = new URL(step.redirects.at(-1) ?? step.url);
  if (at.pathname === '/login') {
    // The login page's "Sign in with Google" goes here, and comes back to the interaction.
    const uid = at.searchParams.get('interaction')!;
    const chooser = await browser.navigate(
      `${stack.baseUrl}/api/auth/google/start?return_to=${encodeURIComponent(`/api/auth/interaction/${uid}`)}`,
    );
    const chosen = await browser.pressButton(
      { url: chooser.redirects.at(-1) ?? chooser.url, body: chooser.body },
      options.email,
    );
    step = await browser.navigate(chosen.location!, {}, stop);
    at = new URL(step.redirects.at(-1) ?? step.url);
  }
  if (at.pathname === '/authorize') {
    const uid = at.searchParams.get('interaction')!;
    const session = (await browser.jar.getCookies(stack.baseUrl)).find(
      (cookie) => cookie.key === 'sg_session',
    );
    const accounts = accountService(stack);
    const interaction = await accounts.getInteraction({
      interactionUid: uid,
      sessionCookie: session?.value ?? '',
    });
    accounts.close();
    if (!interaction.found) throw new Error('the consent interaction was not found');
    const posted = await browser.submitForm(`${stack.baseUrl}/api/auth/interaction/${uid}/consent`, {
      decision: options.decision ?? 'allow',
      csrf: interaction.consentCsrfToken,
    });
    step = await browser.navigate(posted.location!, {}, (url) => url.href.startsWith(redirect));
    at = new URL(step.redirects.at(-1) ?? step.url);
  }
  if (!at.href.startsWith(redirect))
    throw new Error(`the authorization did not return to the app: ${at.href}`);
  return at;
}

/** Connects the official MCP SDK client over OAuth, doing the browser part when it is needed. */
export async function connectWithOAuth(
  stack: Stack,
  provider: RecordingOAuthProvider,
  person: { browser: Browser; email: string },
): Promise<Client> {
  const url = new URL(`${stack.baseUrl}/api/mcp`);
  const client = new Client({ name: 'sheetgate-e2e-oauth', version: '1.0.0' });
  try {
    await client.connect(new StreamableHTTPClientTransport(url, { authProvider: provider }));
    return client;
  } catch (error) {
    if ((error as Error).name !== 'UnauthorizedError' && !/Unauthorized/.test(String(error))) throw error;
  }
  const redirect = await authorizeAsPerson(stack, person.browser, provider.authorizationUrl!, {
    email: person.email,
  });
  const code = redirect.searchParams.get('code');
  if (!code) throw new Error(`no code: ${redirect.href}`);
  const transport = new StreamableHTTPClientTransport(url, { authProvider: provider });
  await transport.finishAuth(code);
  const connected = new Client({ name: 'sheetgate-e2e-oauth', version: '1.0.0' });
  await connected.connect(new StreamableHTTPClientTransport(url, { authProvider: provider }));
  return connected;
}
