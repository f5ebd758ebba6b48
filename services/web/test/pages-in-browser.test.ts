import { mkdir } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { repoRoot } from '@sheetgate/test-harness';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type BrowserStack,
  chooseGoogleAccount,
  createKeyInDashboard,
  newPerson,
  type Person,
  refuseNextGoogleCode,
  sessionCookieOf,
  signInWithGoogle,
  startBrowserStack,
  storedKeys,
  tableRow,
} from './support/browser-stack.ts';
import { chromiumMissing } from './support/chromium.ts';
import {
  authorizationRequest,
  callTool,
  listTools,
  registerClient,
  tokenRequest,
} from './support/oauth-app.ts';

// Playwright (playwright-core + Debian's Chromium) against the whole stack as `pnpm start` runs it:
// auth, mcp, web, the gateway and the Google emulator's account chooser. Accessibility of every
// page state is checked in accessibility-in-browser.test.ts.

// The README's screenshots are refreshed on request (UPDATE_SCREENSHOTS=1), so that a test run
// leaves the checkout as it found it; otherwise they go to a temporary folder.
const SCREENSHOTS = process.env.UPDATE_SCREENSHOTS
  ? path.join(repoRoot, 'docs/screenshots')
  : path.join(os.tmpdir(), 'sheetgate-screenshots');

let env: BrowserStack;
let stack: BrowserStack['stack'];

const missing = chromiumMissing();
if (missing) console.warn(`browser tests skipped: ${missing}`);

beforeAll(async () => {
  if (missing) return;
  env = await startBrowserStack();
  stack = env.stack;
  await mkdir(SCREENSHOTS, { recursive: true });
}, 120_000);

afterAll(async () => {
  await env?.stop();
});

const redirectUri = () => env.redirectUri;
const DAY_MS = 86_400_000;

describe.skipIf(Boolean(missing))('sign-in and the dashboard', { timeout: 60_000 }, () => {
  let person: Person;
  beforeAll(async () => {
    person = await newPerson(env);
  });
  afterAll(async () => {
    await person.context.close();
  });

  it('sends a visitor without a session from /dashboard to /login', async () => {
    const { page } = person;
    await page.goto(`${stack.baseUrl}/dashboard`);
    expect(new URL(page.url()).pathname).toBe('/login');
    await expect.poll(() => page.getByRole('link', { name: 'Sign in with Google' }).count()).toBe(1);
  });

  it('signs in with Google (the emulator chooser) and shows the connection', async () => {
    const { page } = person;
    await signInWithGoogle(page, 'alice@example.com');
    expect(await page.getByText('Connected as alice@example.com').count()).toBe(1);
    // The domain Google named in the ID token: what "outside your account" is judged against.
    expect(
      await page.getByText('Connected as alice@example.com (Workspace domain example.com).').count(),
    ).toBe(1);
    expect(await page.getByRole('link', { name: 'Reconnect Google' }).getAttribute('href')).toBe(
      '/api/auth/google/start?return_to=%2Fdashboard',
    );
  });

  it('makes "Never" the default expiry and stores each chosen expiry, shown in the list', async () => {
    const { page, context } = person;
    const expires = page.getByRole('form', { name: 'Create API key' }).getByLabel('Expires');
    expect(await expires.inputValue()).toBe('never');
    expect(await expires.locator('option:checked').textContent()).toBe('Never');

    await createKeyInDashboard(page, { name: 'Default expiry' });
    const chosen: Array<{ name: string; expires: string; days?: number; date?: string }> = [
      { name: 'Thirty days', expires: '30 days', days: 30 },
      { name: 'Ninety days', expires: '90 days', days: 90 },
      { name: 'A year', expires: '365 days', days: 365 },
      {
        name: 'On a date',
        expires: 'On a date',
        date: new Date(Date.now() + 40 * DAY_MS).toISOString().slice(0, 10),
      },
    ];
    const window: Record<string, { from: number; to: number }> = {};
    for (const key of chosen) {
      await page.goto(`${stack.baseUrl}/dashboard`);
      const from = Date.now();
      await createKeyInDashboard(page, key.date ? { ...key, date: key.date } : key);
      window[key.name] = { from, to: Date.now() };
    }

    await page.goto(`${stack.baseUrl}/dashboard`);
    const stored = new Map((await storedKeys(env, context)).map((key) => [key.name, key]));
    expect(stored.get('Default expiry')!.expiresAt).toBe('');
    expect((await tableRow(page, 'Default expiry')).Expires).toEqual({ text: 'Never' });
    for (const key of chosen) {
      const expiresAt = stored.get(key.name)!.expiresAt;
      if (key.days) {
        const at = Date.parse(expiresAt);
        expect(at).toBeGreaterThanOrEqual(window[key.name]!.from + key.days * DAY_MS);
        expect(at).toBeLessThanOrEqual(window[key.name]!.to + key.days * DAY_MS);
      } else {
        expect(expiresAt).toBe(`${key.date}T00:00:00.000Z`);
      }
      const cell = (await tableRow(page, key.name)).Expires!;
      expect(new Date(cell.time!).toISOString()).toBe(new Date(expiresAt).toISOString());
      expect(cell.text).toBe(`${new Date(expiresAt).toISOString().slice(0, 16).replace('T', ' ')} UTC`);
    }
  });

  it('creates a key, shows it once with a copy button, never again after reload; lists it; it works', async () => {
    const { page, context } = person;
    const createdFrom = Date.now();
    const form = page.getByRole('form', { name: 'Create API key' });
    await form.getByLabel('Name').fill('CI pipeline');
    await form.getByLabel('Expires').selectOption({ label: '90 days' });
    await form.getByRole('radio', { name: 'Read only' }).check();
    await form.getByRole('button', { name: 'Create API key' }).click();
    const shown = page.getByTestId('new-api-key');
    const secret = (await shown.textContent())!.trim();
    const createdTo = Date.now();
    expect(secret).toMatch(/^sg_live_/);
    await page.getByRole('button', { name: 'Copy key' }).click();
    await expect.poll(() => page.locator('#new-api-key-status').textContent()).toBe('Copied.');
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(secret);
    expect(await page.getByText('it will not be shown again').count()).toBe(1);
    expect(await page.locator('#new-key-cursor').textContent()).toContain(`"x-api-key": "${secret}"`);

    // Reloading re-sends the form: no second key, and the secret is gone.
    await page.reload();
    expect(await page.getByTestId('new-api-key').count()).toBe(0);
    expect(await page.content()).not.toContain(secret);
    await page.goto(`${stack.baseUrl}/dashboard`);
    expect(await page.content()).not.toContain(secret);
    const rows = page.locator('tr', { hasText: 'CI pipeline' });
    expect(await rows.count()).toBe(1);

    // The list: name, prefix, access, created, last used (not yet), expiry — as auth stored them.
    const stored = (await storedKeys(env, context)).find((key) => key.name === 'CI pipeline')!;
    const listed = await tableRow(page, 'CI pipeline');
    expect(listed.Name!.text).toBe('CI pipeline');
    expect(listed.Prefix!.text).toBe(`${stored.displayPrefix}…`);
    expect(secret.startsWith(stored.displayPrefix)).toBe(true);
    expect(listed.Access!.text).toBe('Read only');
    expect(Date.parse(listed.Created!.time!)).toBe(Date.parse(stored.createdAt));
    expect(Date.parse(stored.createdAt)).toBeGreaterThanOrEqual(createdFrom - 1_000);
    expect(Date.parse(stored.createdAt)).toBeLessThanOrEqual(createdTo + 1_000);
    expect(listed['Last used']).toEqual({ text: 'Never' });
    expect(Date.parse(listed.Expires!.time!)).toBe(Date.parse(stored.expiresAt));

    // The key works at the MCP endpoint; auth records the use in batches, so the list shows it
    // after the next flush.
    const usedFrom = Date.now();
    expect((await listTools(stack.baseUrl, { 'x-api-key': secret })).status).toBe(200);
    await expect
      .poll(
        async () => {
          await page.goto(`${stack.baseUrl}/dashboard`);
          return (await tableRow(page, 'CI pipeline'))['Last used']!.time ?? 'Never';
        },
        { timeout: 20_000, interval: 500 },
      )
      .not.toBe('Never');
    const lastUsed = Date.parse((await tableRow(page, 'CI pipeline'))['Last used']!.time!);
    expect(lastUsed).toBeGreaterThanOrEqual(usedFrom - 1_000);
    expect(lastUsed).toBeLessThanOrEqual(Date.now() + 1_000);

    // Revoke, confirmed on its own page.
    await rows.getByRole('button', { name: 'Revoke' }).click();
    expect(await page.getByRole('heading', { name: /Revoke the API key/ }).count()).toBe(1);
    await page.getByRole('button', { name: 'Revoke' }).click();
    await page.waitForURL(/notice=key_revoked/);
    expect(await page.locator('tr', { hasText: 'CI pipeline' }).count()).toBe(0);
    expect((await listTools(stack.baseUrl, { 'x-api-key': secret })).status).toBe(401);
  });

  it('asks for consent with the app, its redirect host and the account; Allow returns a code', async () => {
    const { page } = person;
    const clientId = await registerClient(stack.baseUrl, 'Sheets Helper', redirectUri());
    const request = authorizationRequest(stack.baseUrl, clientId, redirectUri());
    await page.goto(request.url);
    await page.waitForURL(/\/authorize\?interaction=/);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe(
      'Sheets Helper wants to access your Google Sheets',
    );
    const text = (await page.locator('main').textContent())!;
    expect(text).toContain(new URL(redirectUri()).host);
    expect(text).toContain('on this computer');
    expect(text).toContain('has not verified this app');
    expect(text).toContain('alice@example.com');
    expect(text).toContain('Create, change and delete spreadsheets');
    expect(await page.getByRole('button', { name: 'Sign out' }).count()).toBe(1);
    await page.screenshot({ path: path.join(SCREENSHOTS, 'consent.png'), fullPage: true });

    const allowedFrom = Date.now();
    await page.getByRole('button', { name: 'Allow' }).click();
    await page.waitForURL((url) => url.href.startsWith(redirectUri()));
    const code = new URL(page.url()).searchParams.get('code');
    expect(code).toBeTruthy();
    const tokens = await tokenRequest(stack.baseUrl, {
      grant_type: 'authorization_code',
      code: code!,
      redirect_uri: redirectUri(),
      client_id: clientId,
      code_verifier: request.verifier,
    });
    expect(tokens.status).toBe(200);
    expect(
      (await listTools(stack.baseUrl, { authorization: `Bearer ${tokens.body.access_token}` })).status,
    ).toBe(200);

    // The app refreshes its tokens (rotation) a little later.
    const refreshedFrom = Date.now();
    const refreshed = await tokenRequest(stack.baseUrl, {
      grant_type: 'refresh_token',
      refresh_token: tokens.body.refresh_token,
      client_id: clientId,
    });
    expect(refreshed.status).toBe(200);

    // The dashboard lists the app: its redirect host, what it may do, first and last use.
    await page.goto(`${stack.baseUrl}/dashboard`);
    expect(await page.locator('tr', { hasText: 'Sheets Helper' }).count()).toBe(1);
    const listed = await tableRow(page, 'Sheets Helper');
    expect(listed.App!.text).toBe('Sheets Helper');
    expect(listed['Redirect host']!.text).toBe(new URL(redirectUri()).host);
    expect(listed.Access!.text).toContain('See your spreadsheets');
    expect(listed.Access!.text).toContain('Create, change and delete spreadsheets');
    const sessionCookie = await sessionCookieOf(person.context, stack.baseUrl);
    const { apps } = await env.accounts.listConnectedApps({ sessionCookie });
    const stored = apps.find((app) => app.clientId === clientId)!;
    expect([...stored.scopes].sort()).toEqual(['sheets:read', 'sheets:write']);
    const firstUsed = Date.parse(listed['First used']!.time!);
    const lastUsed = Date.parse(listed['Last used']!.time!);
    expect(firstUsed).toBe(Date.parse(stored.firstUsedAt));
    expect(lastUsed).toBe(Date.parse(stored.lastUsedAt));
    // Auth keeps these to the second.
    expect(firstUsed).toBeGreaterThanOrEqual(Math.floor(allowedFrom / 1_000) * 1_000);
    expect(firstUsed).toBeLessThanOrEqual(refreshedFrom);
    expect(lastUsed).toBeGreaterThanOrEqual(Math.floor(refreshedFrom / 1_000) * 1_000);
    expect(lastUsed).toBeLessThanOrEqual(Date.now());

    const form = page.getByRole('form', { name: 'Create API key' });
    await form.getByLabel('Name').fill('Nightly report');
    await form.getByLabel('Expires').selectOption({ label: 'On a date' });
    await form
      .getByLabel('Expiry date')
      .fill(new Date(Date.now() + 40 * 86_400_000).toISOString().slice(0, 10));
    await form.getByRole('button', { name: 'Create API key' }).click();
    await page.goto(`${stack.baseUrl}/dashboard`);
    await page.screenshot({ path: path.join(SCREENSHOTS, 'dashboard.png'), fullPage: true });

    // Disconnecting it kills its refresh token.
    await page
      .locator('tr', { hasText: 'Sheets Helper' })
      .getByRole('button', { name: 'Disconnect' })
      .click();
    await page.getByRole('button', { name: 'Disconnect' }).click();
    await page.waitForURL(/notice=app_disconnected/);
    expect(await page.locator('tr', { hasText: 'Sheets Helper' }).count()).toBe(0);
    const refusedRefresh = await tokenRequest(stack.baseUrl, {
      grant_type: 'refresh_token',
      refresh_token: refreshed.body.refresh_token,
      client_id: clientId,
    });
    expect(refusedRefresh.status).toBe(400);
    expect(refusedRefresh.body.error).toBe('invalid_grant');
  });

  it('Deny returns access_denied to the app', async () => {
    const { page } = person;
    const clientId = await registerClient(stack.baseUrl, 'Denied App', redirectUri());
    await page.goto(authorizationRequest(stack.baseUrl, clientId, redirectUri()).url);
    await page.waitForURL(/\/authorize\?interaction=/);
    await page.getByRole('button', { name: 'Deny' }).click();
    await page.waitForURL((url) => url.href.startsWith(redirectUri()));
    expect(new URL(page.url()).searchParams.get('error')).toBe('access_denied');
    expect(new URL(page.url()).searchParams.get('code')).toBeNull();
  });

  it('renders a hostile client name inertly (markup, 5,000 characters, right-to-left override)', async () => {
    const { page } = person;
    const hostile = `<img src=x onerror="alert(1)"><script>alert(2)</script>${'A'.repeat(5_000)}\u202Egnp.exe`;
    const clientId = await registerClient(stack.baseUrl, hostile, redirectUri());
    let dialogs = 0;
    page.on('dialog', (dialog) => {
      dialogs++;
      void dialog.dismiss();
    });
    await page.goto(authorizationRequest(stack.baseUrl, clientId, redirectUri()).url);
    await page.waitForURL(/\/authorize\?interaction=/);
    expect(await page.locator('main img, main script').count()).toBe(0);
    const heading = (await page.getByRole('heading', { level: 1 }).textContent())!;
    expect(heading).toContain('<img src=x onerror="alert(1)">');
    expect(heading).not.toContain('\u202E');
    expect(heading.length).toBeLessThan(200);
    expect(dialogs).toBe(0);
    await page.getByRole('button', { name: 'Deny' }).click();
    await page.waitForURL((url) => url.href.startsWith(redirectUri()));
  });

  it('refuses a cross-site form post without the CSRF token, and refuses to be framed', async () => {
    const { page } = person;
    // A page on a sibling port of the same host: "same-site", so SameSite=Lax still sends the cookie.
    const attacker = http.createServer((request, response) => {
      response.setHeader('content-type', 'text/html');
      if (request.url === '/frame') {
        response.end(`<!doctype html><iframe id="victim" src="${stack.baseUrl}/dashboard"></iframe>`);
        return;
      }
      response.end(`<!doctype html><form id="f" method="post" action="${stack.baseUrl}/dashboard/api-keys">
<input name="name" value="planted by attacker"><input name="expires" value="never"><input name="access" value="write">
</form><script>document.getElementById('f').submit()</script>`);
    });
    await new Promise<void>((resolve) => attacker.listen(0, '127.0.0.1', resolve));
    const attackerUrl = `http://localhost:${(attacker.address() as AddressInfo).port}`;
    try {
      const posted = page.waitForResponse((response) => response.url().endsWith('/dashboard/api-keys'));
      await page.goto(`${attackerUrl}/post`);
      expect((await posted).status()).toBe(403);
      await page.goto(`${stack.baseUrl}/dashboard`);
      expect(await page.locator('tr', { hasText: 'planted by attacker' }).count()).toBe(0);

      await page.goto(`${attackerUrl}/frame`);
      await page.waitForTimeout(500);
      // Chromium replaces a refused frame with its error page; the dashboard never loads inside.
      const frame = await (await page.locator('#victim').elementHandle())!.contentFrame();
      expect(frame!.url()).not.toContain('/dashboard');
      expect(await frame!.locator('text=Your dashboard').count()).toBe(0);
      for (const pathname of ['/', '/login', '/dashboard', '/authorize?interaction=x']) {
        const response = await fetch(`${stack.baseUrl}${pathname}`, { redirect: 'manual' });
        expect(response.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
        expect(response.headers.get('x-frame-options')).toBe('DENY');
      }
    } finally {
      attacker.close();
    }
  });

  it('shows a Google revocation and reconnecting restores it', async () => {
    const { page } = person;
    await page.goto(`${stack.baseUrl}/dashboard`);
    const form = page.getByRole('form', { name: 'Create API key' });
    await form.getByLabel('Name').fill('Probe');
    await form.getByRole('button', { name: 'Create API key' }).click();
    const secret = (await page.getByTestId('new-api-key').textContent())!.trim();
    const working = await callTool(stack.baseUrl, { 'x-api-key': secret }, 'list_spreadsheets');
    expect(working.status).toBe(200);
    expect(working.result?.isError).not.toBe(true);
    await fetch(`${stack.emulatorUrl}/__emulator/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'alice@example.com' }),
    });
    const refused = await callTool(stack.baseUrl, { 'x-api-key': secret }, 'list_spreadsheets');
    expect(refused.status).toBe(200);
    expect(refused.result?.isError).toBe(true);
    expect(refused.result?.content?.[0]?.text).toContain(`${stack.baseUrl}/dashboard`);
    await page.goto(`${stack.baseUrl}/dashboard`);
    expect(await page.getByText("Google no longer accepts Sheetgate's access").count()).toBe(1);
    expect(await page.getByText('Connected as').count()).toBe(0);
    await page.getByRole('link', { name: 'Reconnect Google' }).click();
    await chooseGoogleAccount(page, 'alice@example.com');
    expect(await page.getByText('Connected as alice@example.com').count()).toBe(1);
    expect(await page.getByText("Google no longer accepts Sheetgate's access").count()).toBe(0);

    // The same key's tool call works again: a real answer from Google, not an error.
    const restored = await callTool(stack.baseUrl, { 'x-api-key': secret }, 'list_spreadsheets');
    expect(restored.status).toBe(200);
    expect(restored.result, restored.text).toBeDefined();
    expect(restored.result!.isError, restored.text).not.toBe(true);
    expect(restored.result!.structuredContent, restored.text).toEqual(
      expect.objectContaining({ spreadsheets: expect.any(Array) }),
    );
  });

  it('shows a partial Google grant as such, and reconnecting with every box ticked completes it', async () => {
    const { context, page } = await newPerson(env);
    const driveFile =
      'See, edit, create, and delete only the specific Google Drive files you use with this app';
    try {
      await page.goto(`${stack.baseUrl}/login`);
      await signInWithGoogle(page, 'bob@example.com', { untick: [driveFile] });
      const sessionCookie = await sessionCookieOf(context, stack.baseUrl);
      const connection = await env.accounts.getGoogleConnection({ sessionCookie });
      expect(connection.partial).toBe(true);
      expect(connection.grantedScopes).not.toContain('https://www.googleapis.com/auth/drive.file');

      const google = page.getByRole('region', { name: 'Google connection' });
      expect(await google.getByText('Connected as bob@example.com').count()).toBe(1);
      const warning = (await google.getByRole('alert').textContent())!.replace(/\s+/g, ' ');
      expect(warning).toContain('Google gave Sheetgate only part of the access it needs.');
      expect(warning).toContain(
        'Missing: create and convert files (only those Sheetgate created or opened). Tools that need it will fail.',
      );
      const allowed = await google.getByRole('listitem').allTextContents();
      expect(allowed).toContain(
        'Not allowed: Create and convert files (only those Sheetgate created or opened)',
      );
      expect(allowed).toContain('Allowed: Read and edit your Google Sheets');

      await google.getByRole('link', { name: 'Reconnect Google' }).click();
      await chooseGoogleAccount(page, 'bob@example.com');
      expect(await google.getByRole('alert').count()).toBe(0);
      expect(await google.getByRole('listitem').allTextContents()).toContain(
        'Allowed: Create and convert files (only those Sheetgate created or opened)',
      );
      expect(
        (
          await env.accounts.getGoogleConnection({
            sessionCookie: await sessionCookieOf(context, stack.baseUrl),
          })
        ).partial,
      ).toBe(false);
    } finally {
      await context.close();
    }
  });

  it('signs out and signs in as the other account', async () => {
    const { page } = person;
    await page.goto(`${stack.baseUrl}/dashboard`);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(/\/login\?signed_out=1/);
    expect(await page.getByText('You are signed out.').count()).toBe(1);
    await page.goto(`${stack.baseUrl}/dashboard`);
    expect(new URL(page.url()).pathname).toBe('/login');
    await signInWithGoogle(page, 'bob@example.com');
    expect(await page.getByText('Connected as bob@example.com').count()).toBe(1);
    expect(await page.locator('tr', { hasText: 'Nightly report' }).count()).toBe(0);
  });
});

describe.skipIf(Boolean(missing))('signing in during an OAuth authorization', { timeout: 60_000 }, () => {
  it('names the app on /login, explains a cancelled Google sign-in, then reaches consent', async () => {
    const { context, page } = await newPerson(env);
    try {
      const clientId = await registerClient(stack.baseUrl, 'Report Builder', redirectUri());
      await page.goto(authorizationRequest(stack.baseUrl, clientId, redirectUri()).url);
      await page.waitForURL(/\/login\?interaction=/);
      const uid = new URL(page.url()).searchParams.get('interaction')!;
      expect(await page.locator('main').textContent()).toContain(
        'Report Builder wants to use your Google Sheets',
      );
      expect(await page.getByRole('link', { name: 'Sign in with Google' }).getAttribute('href')).toBe(
        `/api/auth/google/start?return_to=${encodeURIComponent(`/api/auth/interaction/${uid}`)}`,
      );

      await page.getByRole('link', { name: 'Sign in with Google' }).click();
      await page.getByRole('button', { name: 'Cancel' }).click();
      await page.waitForURL(/\/login\?error=google_cancelled/);
      expect(await page.getByRole('alert').textContent()).toContain('You cancelled signing in with Google.');
      expect(await page.locator('main').textContent()).toContain('Report Builder');

      await signInWithGoogle(page, 'bob@example.com', { landsOn: /\/authorize\?interaction=/ });
      expect(await page.locator('main').textContent()).toContain('bob@example.com');
      await page.getByRole('button', { name: 'Allow' }).click();
      await page.waitForURL((url) => url.href.startsWith(redirectUri()));
      expect(new URL(page.url()).searchParams.get('code')).toBeTruthy();
    } finally {
      await context.close();
    }
  });

  it('explains that Google refused the sign-in (its token endpoint refused the code), then signs in', async () => {
    const { context, page } = await newPerson(env);
    try {
      const clientId = await registerClient(stack.baseUrl, 'Refused Helper', redirectUri());
      await page.goto(authorizationRequest(stack.baseUrl, clientId, redirectUri()).url);
      await page.waitForURL(/\/login\?interaction=/);
      const uid = new URL(page.url()).searchParams.get('interaction')!;
      await refuseNextGoogleCode(page);
      await signInWithGoogle(page, 'alice@example.com', { landsOn: /\/login\?/ });

      const landed = new URL(page.url());
      expect(landed.searchParams.get('error')).toBe('google_failed');
      expect(landed.searchParams.get('interaction')).toBe(uid);
      const alert = (await page.getByRole('alert').textContent())!.replace(/\s+/g, ' ');
      expect(alert).toContain('Google did not complete the sign-in.');
      expect(alert).toContain('Google refused the request or could not be reached. Try again');
      expect(await page.locator('main').textContent()).toContain(
        'Refused Helper wants to use your Google Sheets',
      );
      expect(await context.cookies(stack.baseUrl)).not.toContainEqual(
        expect.objectContaining({ name: 'sg_session' }),
      );

      // Trying again works and continues the authorization to consent.
      await signInWithGoogle(page, 'alice@example.com', { landsOn: /\/authorize\?interaction=/ });
      expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe(
        'Refused Helper wants to access your Google Sheets',
      );
    } finally {
      await context.close();
    }
  });

  it('"Not you? Sign out" on the consent screen signs out, then continues the app\'s request as whoever signs in', async () => {
    const { context, page } = await newPerson(env);
    try {
      const clientId = await registerClient(stack.baseUrl, 'Switch Helper', redirectUri());
      const request = authorizationRequest(stack.baseUrl, clientId, redirectUri());
      await page.goto(request.url);
      await page.waitForURL(/\/login\?interaction=/);
      await signInWithGoogle(page, 'alice@example.com', { landsOn: /\/authorize\?interaction=/ });
      const notYou = page.locator('.not-you');
      expect((await notYou.textContent())!.replace(/\s+/g, ' ').trim()).toBe('Not you? Sign out');
      await notYou.getByRole('button', { name: 'Sign out' }).click();

      await page.waitForURL(/\/login\?signed_out=1&return_to=/);
      expect(await page.getByText('You are signed out.').count()).toBe(1);
      expect(await page.locator('main').textContent()).toContain(
        'Sign in with the account the app should use: you will then be asked again whether to allow it.',
      );
      expect(await context.cookies(stack.baseUrl)).not.toContainEqual(
        expect.objectContaining({ name: 'sg_session' }),
      );

      // Bob signs in on that page and lands on the same app's consent, as himself.
      await signInWithGoogle(page, 'bob@example.com', { landsOn: /\/authorize\?interaction=/ });
      const consent = (await page.locator('main').textContent())!;
      expect(consent).toContain('Switch Helper wants to access your Google Sheets');
      expect(consent).toContain('The app will act as bob@example.com');
      expect(consent).not.toContain('alice@example.com');
      await page.getByRole('button', { name: 'Allow' }).click();
      await page.waitForURL((url) => url.href.startsWith(redirectUri()));
      // The app gets its answer to its own request (its state), redeemable with its own verifier.
      const answer = new URL(page.url()).searchParams;
      expect(answer.get('state')).toBe(new URL(request.url).searchParams.get('state'));
      const tokens = await tokenRequest(stack.baseUrl, {
        grant_type: 'authorization_code',
        code: answer.get('code')!,
        redirect_uri: redirectUri(),
        client_id: clientId,
        code_verifier: request.verifier,
      });
      expect(tokens.status).toBe(200);
      // The connection is Bob's: his dashboard lists the app.
      await page.goto(`${stack.baseUrl}/dashboard`);
      expect(await page.locator('header').textContent()).toContain('bob@example.com');
      expect(await page.locator('tr', { hasText: 'Switch Helper' }).count()).toBe(1);
    } finally {
      await context.close();
    }
  });

  it('explains an expired or unknown authorization instead of a blank error', async () => {
    const { context, page } = await newPerson(env);
    try {
      const response = await page.goto(`${stack.baseUrl}/authorize?interaction=does-not-exist`);
      expect(response?.status()).toBe(400);
      expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('This request has expired');
      await page.goto(`${stack.baseUrl}/login?interaction=does-not-exist`);
      expect(await page.getByText('This sign-in request has expired.').count()).toBe(1);
    } finally {
      await context.close();
    }
  });
});
