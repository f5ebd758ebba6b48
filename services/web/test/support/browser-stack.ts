import { type AccountServiceClientApi, createAccountServiceClient } from '@sheetgate/proto';
import { freePort, type Stack, startStack } from '@sheetgate/test-harness';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchChromium } from './chromium.ts';

/**
 * The whole stack as `pnpm start` runs it (auth, mcp, web, the gateway and the Google emulator),
 * Debian's Chromium, a port standing for an MCP client's loopback redirect URI, and auth's
 * AccountService (what the dashboard itself calls) for checking what the pages stored.
 */
export interface BrowserStack {
  stack: Stack;
  chromium: Browser;
  accounts: AccountServiceClientApi;
  redirectUri: string;
  stop(): Promise<void>;
}

export async function startBrowserStack(env: Record<string, string> = {}): Promise<BrowserStack> {
  const [stack, chromium, appPort] = await Promise.all([startStack(env), launchChromium(), freePort()]);
  const accounts = createAccountServiceClient({
    address: `127.0.0.1:${stack.ports.AUTH_GRPC_PORT}`,
    serviceToken: stack.serviceToken,
  });
  return {
    stack,
    chromium,
    accounts,
    redirectUri: `http://127.0.0.1:${appPort}/callback`,
    async stop() {
      accounts.close();
      await chromium.close();
      await stack.stop();
    },
  };
}

export interface Person {
  context: BrowserContext;
  page: Page;
}

/** A fresh browser profile; the MCP client's redirect URI answers inside the browser. */
export async function newPerson(
  env: BrowserStack,
  viewport: { width: number; height: number } = { width: 1100, height: 900 },
): Promise<Person> {
  const context = await env.chromium.newContext({ viewport });
  context.setDefaultTimeout(8_000);
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: env.stack.baseUrl });
  await context.route(`${new URL(env.redirectUri).origin}/**`, (route) =>
    route.fulfill({ status: 200, contentType: 'text/plain', body: 'app received the answer' }),
  );
  return { context, page: await context.newPage() };
}

/**
 * Signs in through the page's "Sign in with Google" link and the emulator's chooser, unticking
 * the Google permissions whose chooser labels `untick` names; ends on `landsOn`.
 */
export async function signInWithGoogle(
  page: Page,
  email: string,
  options: { landsOn?: RegExp; untick?: string[] } = {},
): Promise<void> {
  await page.getByRole('link', { name: 'Sign in with Google' }).click();
  await chooseGoogleAccount(page, email, options);
}

/** At the emulator's account chooser: untick permissions, pick the account, wait to land. */
export async function chooseGoogleAccount(
  page: Page,
  email: string,
  options: { landsOn?: RegExp; untick?: string[] } = {},
): Promise<void> {
  for (const label of options.untick ?? []) await page.getByLabel(label).uncheck();
  await page.getByRole('button', { name: email }).click();
  await page.waitForURL(options.landsOn ?? /\/dashboard$/);
}

/** The browser's dashboard session cookie (HttpOnly: only the browser profile can tell). */
export async function sessionCookieOf(context: BrowserContext, baseUrl: string): Promise<string> {
  const cookie = (await context.cookies(baseUrl)).find((entry) => entry.name === 'sg_session');
  if (!cookie) throw new Error('no dashboard session in this browser');
  return cookie.value;
}

export interface NewKey {
  name: string;
  /** An `Expires` option label; left at the form's default when absent. */
  expires?: string;
  /** `YYYY-MM-DD` for "On a date". */
  date?: string;
  access?: 'Read only' | 'Read and write';
  /** The toolsets to check, by title (the others are unchecked); the form's defaults when absent. */
  toolsets?: string[];
  /** "May share and send outside your account" ticked; the form's default (unticked) when absent. */
  mayActOutbound?: boolean;
}

/** Fills and sends the dashboard's "Create API key" form; returns the secret shown once. */
export async function createKeyInDashboard(page: Page, key: NewKey): Promise<string> {
  const form = page.getByRole('form', { name: 'Create API key' });
  await form.getByLabel('Name').fill(key.name);
  if (key.expires) await form.getByLabel('Expires').selectOption({ label: key.expires });
  if (key.date) await form.getByLabel('Expiry date').fill(key.date);
  if (key.access) await form.getByRole('radio', { name: key.access }).check();
  if (key.toolsets) {
    const boxes = form.getByRole('group', { name: 'Toolsets' }).getByRole('checkbox');
    for (const box of await boxes.all()) {
      const label = (await box.locator('xpath=..').textContent()) ?? '';
      await box.setChecked(key.toolsets.some((title) => label.trim().startsWith(title)));
    }
  }
  if (key.mayActOutbound !== undefined)
    await form.getByLabel('May share and send outside your account').setChecked(key.mayActOutbound);
  await form.getByRole('button', { name: 'Create API key' }).click();
  const secret = (await page.getByTestId('new-api-key').textContent())?.trim();
  if (!secret) throw new Error(`no key shown after creating "${key.name}"`);
  return secret;
}

export interface Cell {
  text: string;
  /** The `datetime` of the cell's `<time>`, when it shows one. */
  time?: string;
}

/** The dashboard's row for the key or app named `name`, cell by column label. */
export async function tableRow(page: Page, name: string): Promise<Record<string, Cell>> {
  const row = page.locator('tr', { hasText: name });
  const cells = await row.locator('td').evaluateAll((tds) =>
    tds.map((td) => {
      const text = (td.textContent ?? '').replace(/\s+/g, ' ').trim();
      const time = td.querySelector('time')?.getAttribute('datetime');
      return [td.getAttribute('data-label') ?? '', time ? { text, time } : { text }] as const;
    }),
  );
  return Object.fromEntries(cells);
}

/** What auth stored for this browser's keys, through the AccountService the dashboard uses. */
export async function storedKeys(env: BrowserStack, context: BrowserContext) {
  const sessionCookie = await sessionCookieOf(context, env.stack.baseUrl);
  return (await env.accounts.listApiKeys({ sessionCookie })).keys;
}

/**
 * Makes Google's token endpoint refuse this browser's next sign-in: the code in the chooser's
 * redirect back to auth's callback is swapped for one Google never issued, so auth's code
 * exchange at the emulator's real token endpoint gets `invalid_grant` (as for an expired or
 * replayed code). The emulator's fault injection covers only the Sheets and Drive APIs, not
 * `/token`; and Playwright cannot route a redirect's target, so the chooser's answer is fetched
 * here and passed on with the swapped code.
 */
export async function refuseNextGoogleCode(page: Page): Promise<void> {
  await page.route(
    '**/o/oauth2/v2/auth/choose',
    async (route) => {
      const answer = await route.fetch({ maxRedirects: 0 });
      const location = new URL(answer.headers().location!);
      if (!location.searchParams.has('code')) throw new Error(`the chooser sent no code: ${location}`);
      location.searchParams.set('code', `4/never-issued-${Date.now()}`);
      await route.fulfill({ status: 302, headers: { location: location.href } });
    },
    { times: 1 },
  );
}
