import { mkdir } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { freePort, readJson, repoRoot } from '@sheetgate/test-harness';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectAccessible, launchChromium } from './support/chromium.ts';
import { authorizationRequest, listTools, registerClient, tokenRequest } from './support/oauth-app.ts';
import { type Stack, startStack } from './support/stack.ts';

// Playwright (playwright-core + Debian's Chromium) against the whole stack as `pnpm start` runs it:
// auth, mcp, web, the gateway and the Google emulator's account chooser.

const SCREENSHOTS = path.join(repoRoot, 'docs/screenshots');

let stack: Stack;
let chromium: Browser;
let appPort: number;

beforeAll(async () => {
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

describe('sign-in and the dashboard', () => {
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

  it('creates a key, shows it once with a copy button, and never again after reload', {
    timeout: 60_000,
  }, async () => {
    const { page } = person;
    const form = page.getByRole('form', { name: 'Create API key' });
    await form.getByLabel('Name').fill('CI pipeline');
    await form.getByLabel('Expires').selectOption({ label: '90 days' });
    await form.getByRole('radio', { name: 'Read only' }).check();
    await form.getByRole('button', { name: 'Create API key' }).click();
    const shown = page.getByTestId('new-api-key');
    const secret = (await shown.textContent())!.trim();
    expect(secret).toMatch(/^sg_live_/);
    expect(await page.getByRole('button', { name: 'Copy key' }).isVisible()).toBe(true);
    expect(await page.getByText('it will not be shown again').count()).toBe(1);
    expect(await page.locator('#mcp-config').textContent()).toContain(`"x-api-key": "${secret}"`);
    await expectAccessible(page);
    await page.screenshot({ path: path.join(SCREENSHOTS, 'dashboard.png'), fullPage: true });

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
});
