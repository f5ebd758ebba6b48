import { mkdir } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { freePort, repoRoot, type Stack, startStack } from '@sheetgate/test-harness';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumMissing, expectAccessible, launchChromium } from './support/chromium.ts';
import {
  authorizationRequest,
  callTool,
  listTools,
  registerClient,
  tokenRequest,
} from './support/oauth-app.ts';

// Playwright (playwright-core + Debian's Chromium) against the whole stack as `pnpm start` runs it:
// auth, mcp, web, the gateway and the Google emulator's account chooser.

const SCREENSHOTS = path.join(repoRoot, 'docs/screenshots');

let stack: Stack;
let chromium: Browser;
let appPort: number;

const missing = chromiumMissing();
if (missing) console.warn(`browser tests skipped: ${missing}`);

beforeAll(async () => {
  if (missing) return;
  [stack, chromium] = await Promise.all([startStack(), launchChromium()]);
  appPort = await freePort();
  await mkdir(SCREENSHOTS, { recursive: true });
}, 120_000);

afterAll(async () => {
  await chromium?.close();
  await stack?.stop();
});

/** A fresh browser profile; requests to the app's loopback redirect URI are answered here. */
async function newPerson(): Promise<{ context: BrowserContext; page: Page }> {
  const context = await chromium.newContext({ viewport: { width: 1100, height: 900 } });
  context.setDefaultTimeout(8_000);
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: stack.baseUrl });
  await context.route(`http://127.0.0.1:${appPort}/**`, (route) =>
    route.fulfill({ status: 200, contentType: 'text/plain', body: 'app received the answer' }),
  );
  return { context, page: await context.newPage() };
}

/** Signs in through the login page and the emulator's chooser; ends on `landsOn`. */
async function signInWithGoogle(page: Page, email: string, landsOn: RegExp = /\/dashboard$/) {
  await page.getByRole('link', { name: 'Sign in with Google' }).click();
  await page.getByRole('button', { name: email }).click();
  await page.waitForURL(landsOn);
}

const redirectUri = () => `http://127.0.0.1:${appPort}/callback`;

describe.skipIf(Boolean(missing))('sign-in and the dashboard', { timeout: 60_000 }, () => {
  let person: { context: BrowserContext; page: Page };
  beforeAll(async () => {
    person = await newPerson();
  });
  afterAll(async () => {
    await person.context.close();
  });

  it('sends a visitor without a session from /dashboard to /login, which is accessible', async () => {
    const { page } = person;
    await page.goto(`${stack.baseUrl}/dashboard`);
    expect(new URL(page.url()).pathname).toBe('/login');
    await expect.poll(() => page.getByRole('link', { name: 'Sign in with Google' }).count()).toBe(1);
    await expectAccessible(page);
  });

  it('signs in with Google (the emulator chooser) and shows the connection', async () => {
    const { page } = person;
    await signInWithGoogle(page, 'alice@example.com');
    expect(await page.getByText('Connected as alice@example.com').count()).toBe(1);
    expect(await page.getByRole('link', { name: 'Reconnect Google' }).getAttribute('href')).toBe(
      '/api/auth/google/start?return_to=%2Fdashboard',
    );
    await expectAccessible(page);
  });

  it('creates a key, shows it once with a copy button, and never again after reload', async () => {
    const { page } = person;
    const form = page.getByRole('form', { name: 'Create API key' });
    await form.getByLabel('Name').fill('CI pipeline');
    await form.getByLabel('Expires').selectOption({ label: '90 days' });
    await form.getByRole('radio', { name: 'Read only' }).check();
    await form.getByRole('button', { name: 'Create API key' }).click();
    const shown = page.getByTestId('new-api-key');
    const secret = (await shown.textContent())!.trim();
    expect(secret).toMatch(/^sg_live_/);
    await page.getByRole('button', { name: 'Copy key' }).click();
    await expect.poll(() => page.locator('#new-api-key-status').textContent()).toBe('Copied.');
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(secret);
    expect(await page.getByText('it will not be shown again').count()).toBe(1);
    expect(await page.locator('#mcp-config').textContent()).toContain(`"x-api-key": "${secret}"`);
    await expectAccessible(page);

    // The key works at the MCP endpoint.
    expect((await listTools(stack.baseUrl, { 'x-api-key': secret })).status).toBe(200);

    // Reloading re-sends the form: no second key, and the secret is gone.
    await page.reload();
    expect(await page.getByTestId('new-api-key').count()).toBe(0);
    expect(await page.content()).not.toContain(secret);
    await page.goto(`${stack.baseUrl}/dashboard`);
    expect(await page.content()).not.toContain(secret);
    const rows = page.locator('tr', { hasText: 'CI pipeline' });
    expect(await rows.count()).toBe(1);
    expect(await rows.textContent()).toContain('Read only');

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
    expect(text).toContain(`127.0.0.1:${appPort}`);
    expect(text).toContain('on this computer');
    expect(text).toContain('has not verified this app');
    expect(text).toContain('alice@example.com');
    expect(text).toContain('Create, change and delete spreadsheets');
    expect(await page.getByRole('button', { name: 'Sign out' }).count()).toBe(1);
    await expectAccessible(page);
    await page.screenshot({ path: path.join(SCREENSHOTS, 'consent.png'), fullPage: true });

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

    // The dashboard lists the app; disconnecting it kills its refresh token.
    await page.goto(`${stack.baseUrl}/dashboard`);
    const row = page.locator('tr', { hasText: 'Sheets Helper' });
    expect(await row.count()).toBe(1);
    expect(await row.textContent()).toContain(`127.0.0.1:${appPort}`);
    const form = page.getByRole('form', { name: 'Create API key' });
    await form.getByLabel('Name').fill('Nightly report');
    await form.getByLabel('Expires').selectOption({ label: 'On a date' });
    await form
      .getByLabel('Expiry date')
      .fill(new Date(Date.now() + 40 * 86_400_000).toISOString().slice(0, 10));
    await form.getByRole('button', { name: 'Create API key' }).click();
    await page.goto(`${stack.baseUrl}/dashboard`);
    await expectAccessible(page);
    await page.screenshot({ path: path.join(SCREENSHOTS, 'dashboard.png'), fullPage: true });

    await page
      .locator('tr', { hasText: 'Sheets Helper' })
      .getByRole('button', { name: 'Disconnect' })
      .click();
    await page.getByRole('button', { name: 'Disconnect' }).click();
    await page.waitForURL(/notice=app_disconnected/);
    expect(await page.locator('tr', { hasText: 'Sheets Helper' }).count()).toBe(0);
    const refreshed = await tokenRequest(stack.baseUrl, {
      grant_type: 'refresh_token',
      refresh_token: tokens.body.refresh_token,
      client_id: clientId,
    });
    expect(refreshed.status).toBe(400);
    expect(refreshed.body.error).toBe('invalid_grant');
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
    expect((await callTool(stack.baseUrl, { 'x-api-key': secret }, 'list_spreadsheets')).status).toBe(200);
    await fetch(`${stack.emulatorUrl}/__emulator/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'alice@example.com' }),
    });
    const refused = await callTool(stack.baseUrl, { 'x-api-key': secret }, 'list_spreadsheets');
    expect(refused.text).toContain(`${stack.baseUrl}/dashboard`);
    await page.goto(`${stack.baseUrl}/dashboard`);
    expect(await page.getByText("Google no longer accepts Sheetgate's access").count()).toBe(1);
    expect(await page.getByText('Connected as').count()).toBe(0);
    await page.getByRole('link', { name: 'Reconnect Google' }).click();
    await page.getByRole('button', { name: 'alice@example.com' }).click();
    await page.waitForURL(/\/dashboard$/);
    expect(await page.getByText('Connected as alice@example.com').count()).toBe(1);
    const restored = await callTool(stack.baseUrl, { 'x-api-key': secret }, 'list_spreadsheets');
    expect(restored.text).not.toContain('Authentication required');
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
    const { context, page } = await newPerson();
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
      await expectAccessible(page);

      await page.getByRole('link', { name: 'Sign in with Google' }).click();
      await page.getByRole('button', { name: 'Cancel' }).click();
      await page.waitForURL(/\/login\?error=google_cancelled/);
      expect(await page.getByRole('alert').textContent()).toContain('You cancelled signing in with Google.');
      expect(await page.locator('main').textContent()).toContain('Report Builder');

      await signInWithGoogle(page, 'bob@example.com', /\/authorize\?interaction=/);
      expect(await page.locator('main').textContent()).toContain('bob@example.com');
      await page.getByRole('button', { name: 'Allow' }).click();
      await page.waitForURL((url) => url.href.startsWith(redirectUri()));
      expect(new URL(page.url()).searchParams.get('code')).toBeTruthy();
    } finally {
      await context.close();
    }
  });

  it('explains an expired or unknown authorization instead of a blank error', async () => {
    const { context, page } = await newPerson();
    try {
      const response = await page.goto(`${stack.baseUrl}/authorize?interaction=does-not-exist`);
      expect(response?.status()).toBe(400);
      expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('This request has expired');
      await page.goto(`${stack.baseUrl}/login?interaction=does-not-exist`);
      expect(await page.getByText('This sign-in request has expired.').count()).toBe(1);
      await expectAccessible(page);
    } finally {
      await context.close();
    }
  });
});
