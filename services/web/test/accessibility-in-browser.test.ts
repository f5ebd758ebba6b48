import { randomBytes } from 'node:crypto';
import { freePort, type RunningService, startServiceProcess, withFreePorts } from '@sheetgate/test-harness';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type BrowserStack,
  chooseGoogleAccount,
  createKeyInDashboard,
  newPerson,
  type Person,
  refuseNextGoogleCode,
  signInWithGoogle,
  startBrowserStack,
} from './support/browser-stack.ts';
import { chromiumMissing, expectAccessibleInEveryLook } from './support/chromium.ts';
import { authorizationRequest, callTool, registerClient } from './support/oauth-app.ts';

// axe-core (WCAG 2.x A and AA, serious and critical) on every state of every page, each in
// light mode at desktop width, at a phone's width, and in dark mode: the states are reached the
// way a person reaches them, on the whole stack.

let env: BrowserStack;

const missing = chromiumMissing();
if (missing) console.warn(`browser tests skipped: ${missing}`);

beforeAll(async () => {
  if (!missing) env = await startBrowserStack();
}, 120_000);

afterAll(async () => {
  await env?.stop();
});

// Generous: axe-core takes seconds a page on a 2-core machine running other suites beside it.
describe.skipIf(Boolean(missing))('every page state is accessible', { timeout: 240_000 }, () => {
  it('signed out: home, /login, the 404 page, and an expired request on /login and /authorize', async () => {
    const { context, page } = await newPerson(env);
    const { baseUrl } = env.stack;
    try {
      await page.goto(`${baseUrl}/`);
      await expectAccessibleInEveryLook(page, 'home');

      await page.goto(`${baseUrl}/login`);
      expect(await page.getByRole('link', { name: 'Sign in with Google' }).count()).toBe(1);
      await expectAccessibleInEveryLook(page, '/login');

      await page.goto(`${baseUrl}/login?interaction=does-not-exist`);
      expect(await page.getByText('This sign-in request has expired.').count()).toBe(1);
      await expectAccessibleInEveryLook(page, '/login with an expired request');

      const expired = await page.goto(`${baseUrl}/authorize?interaction=does-not-exist`);
      expect(expired?.status()).toBe(400);
      await expectAccessibleInEveryLook(page, '/authorize with an expired interaction (400)');

      const notFound = await page.goto(`${baseUrl}/nowhere`);
      expect(notFound?.status()).toBe(404);
      await expectAccessibleInEveryLook(page, 'the 404 page');
    } finally {
      await context.close();
    }
  });

  it('signing in for an app: /login naming it, after Google was cancelled or refused, and signed out', async () => {
    const { context, page } = await newPerson(env);
    const { baseUrl } = env.stack;
    try {
      const clientId = await registerClient(baseUrl, 'Report Builder', env.redirectUri);
      await page.goto(authorizationRequest(baseUrl, clientId, env.redirectUri).url);
      await page.waitForURL(/\/login\?interaction=/);
      expect(await page.locator('main').textContent()).toContain('Report Builder wants to use');
      await expectAccessibleInEveryLook(page, '/login for an app');

      await page.getByRole('link', { name: 'Sign in with Google' }).click();
      await page.getByRole('button', { name: 'Cancel' }).click();
      await page.waitForURL(/\/login\?error=google_cancelled/);
      await expectAccessibleInEveryLook(page, '/login after a cancelled Google sign-in');

      await refuseNextGoogleCode(page);
      await signInWithGoogle(page, 'alice@example.com', { landsOn: /\/login\?error=google_failed/ });
      expect(await page.getByRole('alert').textContent()).toContain('Google did not complete the sign-in.');
      await expectAccessibleInEveryLook(page, '/login after Google refused');

      await page.goto(`${baseUrl}/login?signed_out=1`);
      expect(await page.getByText('You are signed out.').count()).toBe(1);
      await expectAccessibleInEveryLook(page, '/login signed out');
    } finally {
      await context.close();
    }
  });

  describe('signed in', () => {
    let person: Person;
    beforeAll(async () => {
      person = await newPerson(env);
      await person.page.goto(`${env.stack.baseUrl}/login`);
      await signInWithGoogle(person.page, 'alice@example.com');
    });
    afterAll(async () => {
      await person.context.close();
    });

    it('the dashboard, fresh and with a new key, keys and apps; consent; the confirmations; 403', async () => {
      const { page } = person;
      const { baseUrl } = env.stack;
      expect(await page.getByText('You have no API keys.').count()).toBe(1);
      await expectAccessibleInEveryLook(page, 'the fresh dashboard');

      await page.goto(`${baseUrl}/login`);
      expect(await page.getByText('You are already signed in as').count()).toBe(1);
      await expectAccessibleInEveryLook(page, '/login while signed in');

      const clientId = await registerClient(baseUrl, 'Sheets Helper', env.redirectUri);
      await page.goto(authorizationRequest(baseUrl, clientId, env.redirectUri).url);
      await page.waitForURL(/\/authorize\?interaction=/);
      await expectAccessibleInEveryLook(page, 'consent');
      await page.getByRole('button', { name: 'Allow' }).click();
      await page.waitForURL((url) => url.href.startsWith(env.redirectUri));

      await page.goto(`${baseUrl}/dashboard`);
      await createKeyInDashboard(page, { name: 'CI pipeline', expires: '30 days' });
      await expectAccessibleInEveryLook(page, 'the dashboard showing a new key');

      await page.goto(`${baseUrl}/dashboard`);
      expect(await page.locator('tr', { hasText: 'CI pipeline' }).count()).toBe(1);
      expect(await page.locator('tr', { hasText: 'Sheets Helper' }).count()).toBe(1);
      await expectAccessibleInEveryLook(page, 'the dashboard with keys and connected apps');

      await page.locator('tr', { hasText: 'CI pipeline' }).getByRole('button', { name: 'Revoke' }).click();
      await page.waitForURL(/\/dashboard\/api-keys\/revoke/);
      await expectAccessibleInEveryLook(page, 'the revoke confirmation');

      // A form whose token no longer matches (as after signing in again elsewhere): the 403 page.
      await page
        .locator('input[name=csrf]')
        .last()
        .evaluate((input: { value: string }) => {
          input.value = 'expired';
        });
      const refused = page.waitForResponse((response) => response.request().method() === 'POST');
      await page.getByRole('main').getByRole('button', { name: 'Revoke' }).click();
      expect((await refused).status()).toBe(403);
      expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('This form has expired');
      await expectAccessibleInEveryLook(page, 'the 403 page');

      await page.goto(`${baseUrl}/dashboard`);
      await page
        .locator('tr', { hasText: 'Sheets Helper' })
        .getByRole('button', { name: 'Disconnect' })
        .click();
      await page.waitForURL(/\/dashboard\/apps\/disconnect/);
      await expectAccessibleInEveryLook(page, 'the disconnect confirmation');
      await page.getByRole('main').getByRole('button', { name: 'Disconnect' }).click();
      await page.waitForURL(/notice=app_disconnected/);
      await expectAccessibleInEveryLook(page, 'the dashboard with a notice');
    });

    it('the dashboard warning that Google refused, and the one for a partial grant', async () => {
      const { page } = person;
      const { baseUrl, emulatorUrl } = env.stack;
      await page.goto(`${baseUrl}/dashboard`);
      const secret = await createKeyInDashboard(page, { name: 'Probe' });
      await fetch(`${emulatorUrl}/__emulator/revoke`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'alice@example.com' }),
      });
      // Auth learns that Google refused when a tool next needs a Google token.
      expect((await callTool(baseUrl, { 'x-api-key': secret }, 'list_spreadsheets')).text).toContain(
        `${baseUrl}/dashboard`,
      );
      await page.goto(`${baseUrl}/dashboard`);
      expect(await page.getByText("Google no longer accepts Sheetgate's access").count()).toBe(1);
      await expectAccessibleInEveryLook(page, 'the dashboard after Google refused');

      await page.getByRole('link', { name: 'Reconnect Google' }).click();
      await chooseGoogleAccount(page, 'alice@example.com', {
        untick: ['See, edit, create, and delete only the specific Google Drive files you use with this app'],
      });
      expect(await page.getByText('only part of the access it needs').count()).toBe(1);
      await expectAccessibleInEveryLook(page, 'the dashboard with a partial Google grant');
    });
  });

  it('the 503 page (web with its account service unreachable)', async () => {
    const unreachable = await freePort();
    let web: RunningService | undefined;
    const { context, page } = await newPerson(env);
    try {
      web = await withFreePorts(1, ([port]) =>
        startServiceProcess(
          'web',
          {
            WEB_PORT: String(port),
            BASE_URL: `http://127.0.0.1:${port}`,
            INTERNAL_SERVICE_TOKEN: randomBytes(32).toString('base64url'),
            AUTH_GRPC_ADDRESS: `127.0.0.1:${unreachable}`,
          },
          port!,
          // Not ready by design (its AccountService is down); alive is what this test needs.
          { waitFor: '/healthz' },
        ),
      );
      await context.addCookies([{ name: 'sg_session', value: 'any', url: web.url }]);
      const response = await page.goto(`${web.url}/dashboard`);
      expect(response?.status()).toBe(503);
      expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Sheetgate is unavailable');
      await expectAccessibleInEveryLook(page, 'the 503 page');
    } finally {
      await context.close();
      await web?.stop();
    }
  });
});
