import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type BrowserStack,
  chooseGoogleAccount,
  createKeyInDashboard,
  newPerson,
  startBrowserStack,
} from './support/browser-stack.ts';
import { chromiumMissing } from './support/chromium.ts';
import { authorizationRequest, registerClient, tokenRequest } from './support/oauth-app.ts';

// "No secret in a URL" (issue 6), watched from the browser: every request Chromium makes during
// sign-in, key creation (with the reload that re-sends the form), consent and disconnecting is
// recorded, and none may carry the API key, the PKCE verifier, a cookie value, a CSRF token or an
// OAuth token. And the new key's curl block, run as shown, answers.

const run = promisify(execFile);

let env: BrowserStack;

const missing = chromiumMissing();
if (missing) console.warn(`browser tests skipped: ${missing}`);

beforeAll(async () => {
  if (!missing) env = await startBrowserStack();
}, 120_000);

afterAll(async () => {
  await env?.stop();
});

/** Every value of `name` in the page's hidden inputs (auth's and web's CSRF tokens). */
const hiddenValues = (page: Page, name: string) =>
  page
    .locator(`input[type=hidden][name=${name}]`)
    .evaluateAll((inputs) => inputs.map((input) => input.getAttribute('value') ?? ''));

describe.skipIf(Boolean(missing))('secrets stay out of URLs', { timeout: 90_000 }, () => {
  it('no URL the browser requests carries a key, verifier, cookie, CSRF token or token; the curl example runs', async () => {
    const { baseUrl } = env.stack;
    const { context, page } = await newPerson(env);
    const urls: string[] = [];
    context.on('request', (request) => urls.push(request.url()));
    const secrets = new Map<string, string>();
    const remember = async (what: string, values: string[]) => {
      for (const value of values) if (value) secrets.set(value, what);
    };
    // oidc-provider's interaction cookies hold the interaction's uid, which is public by design
    // (`/authorize?interaction=<uid>`); their `.sig` companions, the part that binds it to this
    // browser, are watched with every other cookie.
    const rememberCookies = async () =>
      remember(
        'a cookie value',
        (await context.cookies())
          .filter((cookie) => cookie.name !== 'sg_oidc_interaction' && cookie.name !== 'sg_oidc_resume')
          .map((cookie) => cookie.value),
      );
    try {
      await page.goto(`${baseUrl}/login`);
      await page.getByRole('link', { name: 'Sign in with Google' }).click();
      await page.waitForURL((url) => url.href.startsWith(env.stack.emulatorUrl));
      await rememberCookies(); // the Google sign-in's browser binding
      await chooseGoogleAccount(page, 'alice@example.com');
      await rememberCookies();
      await remember('a CSRF token', await hiddenValues(page, 'csrf'));

      // Key creation, the reload that re-sends the form, and the dashboard after it.
      const secret = await createKeyInDashboard(page, { name: 'Curl check', access: 'Read only' });
      await remember('the API key', [secret]);
      const curl = (await page.locator('#new-key-curl').textContent())!;
      await page.reload();
      await page.goto(`${baseUrl}/dashboard`);
      await rememberCookies();

      // Consent, Allow, and the app's code exchange (the app, not the browser, holds the tokens).
      const clientId = await registerClient(baseUrl, 'Secret Keeper', env.redirectUri);
      const request = authorizationRequest(baseUrl, clientId, env.redirectUri);
      await remember('the PKCE verifier', [request.verifier]);
      await page.goto(request.url);
      await page.waitForURL(/\/authorize\?interaction=/);
      await remember('a CSRF token', await hiddenValues(page, 'csrf'));
      await rememberCookies();
      await page.getByRole('button', { name: 'Allow' }).click();
      await page.waitForURL((url) => url.href.startsWith(env.redirectUri));
      const tokens = await tokenRequest(baseUrl, {
        grant_type: 'authorization_code',
        code: new URL(page.url()).searchParams.get('code')!,
        redirect_uri: env.redirectUri,
        client_id: clientId,
        code_verifier: request.verifier,
      });
      expect(tokens.status).toBe(200);
      await remember('an OAuth token', [
        tokens.body.access_token,
        tokens.body.refresh_token,
        tokens.body.id_token ?? '',
      ]);

      // The dashboard with the app, the disconnect confirmation and the disconnect.
      await page.goto(`${baseUrl}/dashboard`);
      await page
        .locator('tr', { hasText: 'Secret Keeper' })
        .getByRole('button', { name: 'Disconnect' })
        .click();
      await remember('a CSRF token', await hiddenValues(page, 'csrf'));
      await page.getByRole('main').getByRole('button', { name: 'Disconnect' }).click();
      await page.waitForURL(/notice=app_disconnected/);
      await rememberCookies();

      // The watch saw the flows it is about (so an empty record cannot pass).
      expect(urls).toContainEqual(expect.stringMatching(/\/dashboard\/api-keys$/));
      expect(urls).toContainEqual(expect.stringMatching(/\/api\/auth\/interaction\/[^/]+\/consent$/));
      expect(urls).toContainEqual(expect.stringMatching(/\/callback\?code=/));
      expect(secrets.size).toBeGreaterThan(8);
      const leaks = urls.flatMap((url) =>
        [...secrets]
          .filter(([value]) => url.includes(value) || url.includes(encodeURIComponent(value)))
          .map(([, what]) => `${what} in ${url}`),
      );
      expect(leaks).toEqual([]);

      // The curl block of the new key, run as the page shows it (the key in a header, not the URL).
      expect(curl).toContain(`x-api-key: ${secret}`);
      const { stdout } = await run('bash', ['-c', curl], {
        env: { PATH: process.env.PATH },
        timeout: 15_000,
      });
      const answer = JSON.parse(
        stdout.startsWith('{')
          ? stdout
          : stdout
              .split(/\r?\n/)
              .filter((line) => line.startsWith('data:'))
              .map((line) => line.slice(5))
              .join(''),
      );
      const names = (answer.result.tools as Array<{ name: string }>).map((tool) => tool.name);
      expect(names).toContain('list_spreadsheets');
      expect(names).toContain('write_range');
    } finally {
      await context.close();
    }
  });
});
