import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import { chromiumMissing, launchChromium } from '@sheetgate/test-harness';
import { type Browser, type BrowserContext, chromium, type Locator, type Page } from 'playwright-core';
import type { RecordingOAuthProvider } from './oauth-client.ts';

// A person in Debian's Chromium (the launcher and flags web's browser tests use) on the real
// pages: Sheetgate's /login, /authorize and /dashboard, and the Google emulator's account chooser.

export { chromiumMissing };

export function launchBrowser(): Promise<Browser> {
  return launchChromium(chromium);
}

export interface Person {
  context: BrowserContext;
  page: Page;
  /** Origins of web apps this browser answers for (see newPerson). */
  appOrigins: string[];
}

/**
 * A fresh browser profile. `appOrigins` are web apps whose redirect URIs nothing listens on
 * (an https callback): the browser answers for them with a page that has a "Connect" link to
 * Sheetgate (`/connect?to=<authorization URL>`), or else a plain "the app received the answer".
 * Any other origin, such as mcp-remote's loopback callback, is reached for real.
 */
export async function newPerson(browser: Browser, appOrigins: string[] = []): Promise<Person> {
  const context = await browser.newContext();
  context.setDefaultTimeout(10_000);
  for (const origin of appOrigins) {
    await context.route(`${origin}/**`, (route) => {
      const url = new URL(route.request().url());
      const to = url.pathname === '/connect' ? url.searchParams.get('to') : null;
      return to
        ? route.fulfill({
            contentType: 'text/html',
            body: `<!doctype html><title>App</title><a href="${to.replaceAll('&', '&amp;').replaceAll('"', '&quot;')}">Connect Sheetgate</a>`,
          })
        : route.fulfill({ contentType: 'text/plain', body: 'the app received the answer' });
    });
  }
  return { context, page: await context.newPage(), appOrigins };
}

/** What the person went through between the app's authorization URL and its redirect URI. */
export interface AuthorizationInBrowser {
  /** The app's redirect URI as the browser reached it (with `code` or `error`). */
  redirect: URL;
  /** Sheetgate asked who signs in (/login, then the emulator's account chooser). */
  signInAsked: boolean;
  /** The consent page's text (app, redirect host, account, scopes), when consent was asked. */
  consentAsked: string | undefined;
}

/** How a form's toolset boxes are sent: as the page checks them, or every one checked. */
export type ToolsetBoxes = 'default' | 'every';

/** Checks every box of the "Toolsets" group inside `form` (the key form, the consent screen). */
async function checkEveryToolset(form: Locator): Promise<void> {
  for (const box of await form.getByRole('group', { name: 'Toolsets' }).getByRole('checkbox').all()) {
    await box.check();
  }
}

/**
 * The person's part of an OAuth authorization, on the real pages: opens the app's authorization
 * URL, signs in with Google as `email` if Sheetgate asks, answers the consent page with
 * `decision` if it is shown (with its toolset boxes as they come, or every one checked), and ends
 * when the browser reaches the app's redirect URI.
 */
export async function authorizeInBrowser(
  person: Person,
  authorizationUrl: URL,
  options: { email: string; decision?: 'Allow' | 'Deny'; toolsets?: ToolsetBoxes },
): Promise<AuthorizationInBrowser> {
  const { page } = person;
  const redirectUri = authorizationUrl.searchParams.get('redirect_uri');
  if (!redirectUri) throw new Error('the authorization URL names no redirect_uri');
  const sheetgatePage = (url: URL, pathname: string) =>
    url.origin === authorizationUrl.origin && url.pathname === pathname;
  const arrived = (url: URL) => url.href.startsWith(redirectUri);
  let signInAsked = false;
  let consentAsked: string | undefined;

  const appOrigin = new URL(redirectUri).origin;
  if (person.appOrigins.includes(appOrigin)) {
    // A web app sends the person from its own page. (Playwright answers for the app's origin
    // only on navigations the page starts: a redirect chain that page.goto starts reaches the
    // real network, where the app's host does not resolve.)
    await page.goto(`${appOrigin}/connect?to=${encodeURIComponent(authorizationUrl.href)}`);
    await page.getByRole('link', { name: 'Connect Sheetgate' }).click();
  } else {
    await page.goto(authorizationUrl.href);
  }
  await page.waitForURL(
    (url) => arrived(url) || sheetgatePage(url, '/login') || sheetgatePage(url, '/authorize'),
  );
  if (sheetgatePage(new URL(page.url()), '/login')) {
    signInAsked = true;
    await page.getByRole('link', { name: 'Sign in with Google' }).click();
    await page.getByRole('button', { name: options.email }).click();
    await page.waitForURL((url) => arrived(url) || sheetgatePage(url, '/authorize'));
  }
  if (sheetgatePage(new URL(page.url()), '/authorize')) {
    consentAsked = ((await page.locator('main').textContent()) ?? '').replace(/\s+/g, ' ').trim();
    if (options.toolsets === 'every') await checkEveryToolset(page.locator('main'));
    await page.getByRole('button', { name: options.decision ?? 'Allow' }).click();
    await page.waitForURL(arrived);
  }
  // The app's page loaded (not a browser error page carrying its URL).
  if (person.appOrigins.includes(appOrigin)) await page.getByText('the app received the answer').waitFor();
  return { redirect: new URL(page.url()), signInAsked, consentAsked };
}

/**
 * Connects the official MCP SDK client over OAuth: the SDK discovers, registers, refreshes and
 * exchanges the code; when it needs the person (`redirectToAuthorization`), the browser does the
 * authorization. `fetch` lets a test watch the HTTP answers the SDK gets.
 */
export async function connectThroughBrowser(
  mcpUrl: string,
  provider: RecordingOAuthProvider,
  person: Person & { email: string; toolsets?: ToolsetBoxes },
  fetch?: FetchLike,
): Promise<{ client: Client; authorization?: AuthorizationInBrowser }> {
  const url = new URL(mcpUrl);
  const transport = () =>
    new StreamableHTTPClientTransport(url, { authProvider: provider, ...(fetch ? { fetch } : {}) });
  const client = new Client({ name: 'sheetgate-e2e-browser', version: '1.0.0' });
  try {
    await client.connect(transport());
    return { client };
  } catch (error) {
    if (!(error instanceof UnauthorizedError)) throw error;
  }
  const authorization = await authorizeInBrowser(person, provider.authorizationUrl!, person);
  const code = authorization.redirect.searchParams.get('code');
  if (!code) throw new Error(`the app got no code: ${authorization.redirect.href}`);
  await transport().finishAuth(code);
  const connected = new Client({ name: 'sheetgate-e2e-browser', version: '1.0.0' });
  await connected.connect(transport());
  return { client: connected, authorization };
}

/** Signs in to the dashboard from /login with Google as `email`. */
export async function signInToDashboard(page: Page, baseUrl: string, email: string): Promise<void> {
  await page.goto(`${baseUrl}/login`);
  await page.getByRole('link', { name: 'Sign in with Google' }).click();
  await page.getByRole('button', { name: email }).click();
  await page.waitForURL(`${baseUrl}/dashboard`);
}

/** A credential's two choices as the key form, the consent screen and the dashboard's rows name them. */
export const CHOICE_LABELS = {
  mayActOutbound: 'May share and send outside your account',
  mayDestroyUnasked: 'A client that cannot ask me may delete and clear without asking',
} as const;

export type ChoiceBoxes = Partial<Record<keyof typeof CHOICE_LABELS, boolean>>;

/** Ticks or unticks the named choices inside `scope` (a form or a row's form); the others stay as shown. */
async function setChoices(scope: Locator, choices: ChoiceBoxes): Promise<void> {
  for (const [choice, ticked] of Object.entries(choices) as Array<[keyof typeof CHOICE_LABELS, boolean]>) {
    await scope.getByRole('checkbox', { name: CHOICE_LABELS[choice], exact: true }).setChecked(ticked);
  }
}

/**
 * Fills and sends the dashboard's "Create API key" form, with its choices as the page shows them
 * unless `choices` turns some; returns the secret it shows once.
 */
export async function createKeyInDashboard(
  page: Page,
  baseUrl: string,
  name: string,
  toolsets: ToolsetBoxes = 'default',
  choices: ChoiceBoxes = {},
): Promise<string> {
  await page.goto(`${baseUrl}/dashboard`);
  const form = page.getByRole('form', { name: 'Create API key' });
  await form.getByLabel('Name').fill(name);
  if (toolsets === 'every') await checkEveryToolset(form);
  await setChoices(form.getByRole('group', { name: 'Sharing and deleting' }), choices);
  await form.getByRole('button', { name: 'Create API key' }).click();
  const secret = (await page.getByTestId('new-api-key').textContent())?.trim();
  if (!secret) throw new Error(`no key shown after creating "${name}"`);
  return secret;
}

/**
 * Changes the choices of the dashboard's key or app row named `rowName` in place (its boxes, then
 * "Save"); resolves with the notice the dashboard shows.
 */
export async function saveRowChoices(
  page: Page,
  baseUrl: string,
  rowName: string,
  choices: ChoiceBoxes,
): Promise<string> {
  await page.goto(`${baseUrl}/dashboard`);
  const save = page.getByRole('button', { name: `Save choices for ${rowName}`, exact: true });
  await setChoices(page.locator('form.choices').filter({ has: save }), choices);
  await save.click();
  await page.waitForURL(/\/dashboard\?notice=/);
  return new URL(page.url()).searchParams.get('notice') ?? '';
}

/**
 * Presses a row's button in the dashboard's key or app list ("Revoke", "Disconnect"), then the
 * same button on its confirmation page; resolves with the notice the dashboard shows.
 */
export async function confirmRowAction(
  page: Page,
  baseUrl: string,
  rowName: string,
  action: 'Revoke' | 'Disconnect',
): Promise<string> {
  await page.goto(`${baseUrl}/dashboard`);
  await page.locator('tr', { hasText: rowName }).getByRole('button', { name: action }).click();
  await page.getByRole('button', { name: action }).click();
  await page.waitForURL(/\/dashboard\?notice=/);
  return new URL(page.url()).searchParams.get('notice') ?? '';
}

/** The browser's dashboard session cookie (HttpOnly: only the browser profile can tell). */
export async function sessionCookieOf(context: BrowserContext, baseUrl: string): Promise<string> {
  const cookie = (await context.cookies(baseUrl)).find((entry) => entry.name === 'sg_session');
  if (!cookie) throw new Error('no dashboard session in this browser');
  return cookie.value;
}
