import { createHash, randomBytes } from 'node:crypto';
import { freePort, readJson, type Stack, startStack } from '@sheetgate/test-harness';
import fc from 'fast-check';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  chromiumMissing,
  launchBrowser,
  newPerson,
  type Person,
  signInToDashboard,
} from './support/person-in-browser.ts';

// A client's name is whatever its registrant typed (RFC 7591 registration is open), and Sheetgate
// shows it to a person on the consent page and the dashboard. Property-based, in Chromium on the
// real pages: any registered name — markup, script, event handlers, quotes, other scripts — shows as
// that text and nothing else: no element made from it, no script run, no dialog, no CSP violation.
// (That any metadata registers cleanly or is refused: services/auth/test/registration-properties.)

const missing = chromiumMissing();
if (missing) console.warn(`hostile-client-names: skipped (outside CI only): ${missing}`);

const EMAIL = 'alice@example.com';
let stack: Stack;
let browser: Browser;
let person: Person;
let callbackPort: number;
const consoleErrors: string[] = [];
const dialogs: string[] = [];

const printable = fc.oneof(
  fc.integer({ min: 0x20, max: 0x7e }).map((code) => String.fromCharCode(code)),
  fc.constantFrom('é', 'ß', '表', 'ж', '😀', '—'),
);
const hostileName = fc
  .oneof(
    fc.constantFrom(
      '<script>window.hostile=1</script>',
      '<img src=x onerror="window.hostile=1">',
      '"><svg onload=window.hostile=1>',
      "'><iframe src=javascript:window.hostile=1>",
      '</bdi></td></tr></table><b id=injected>bold</b>',
      // Template syntax of several engines, meant literally.
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the name is this literal text
      '{{7*7}} ${7*7} <%= 7*7 %>',
      '&lt;script&gt; &amp; &#x3C;b&#x3E;',
      'javascript:window.hostile=1',
    ),
    fc.string({ unit: printable, minLength: 1, maxLength: 60 }),
  )
  .filter((name) => name.trim() !== '');

beforeAll(async () => {
  if (missing) return;
  stack = await startStack({ LOG_LEVEL: 'debug' });
  callbackPort = await freePort();
  browser = await launchBrowser();
  person = await newPerson(browser, [`http://127.0.0.1:${callbackPort}`]);
  person.page.on('console', (message) => {
    if (message.type() === 'error') consoleErrors.push(message.text());
  });
  person.page.on('dialog', (dialog) => {
    dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  await signInToDashboard(person.page, stack.baseUrl, EMAIL);
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

async function register(name: string) {
  const response = await fetch(`${stack.baseUrl}/api/auth/oauth2/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      client_name: name,
      redirect_uris: [`http://127.0.0.1:${callbackPort}/callback`],
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
    }),
  });
  expect(response.status).toBe(201);
  return (await readJson(response)).client_id as string;
}

/** The untrusted-name elements' text on the page, and what the page made of anything else. */
async function inspect() {
  const { page } = person;
  return {
    names: await page.locator('bdi.untrusted').allTextContents(),
    injected: await page
      .locator('#injected, [onerror], [onload], iframe, object, embed, main script')
      .count(),
    hostile: await page.evaluate(() => (globalThis as { hostile?: unknown }).hostile),
  };
}

describe.skipIf(missing !== undefined)(
  'a client registered with any name (property-based, in Chromium)',
  () => {
    it('is shown as that text on the consent page and the dashboard, and as nothing else', async () => {
      await fc.assert(
        fc.asyncProperty(hostileName, async (name) => {
          const clientId = await register(name);
          const verifier = randomBytes(32).toString('base64url');
          const authorize = new URL(`${stack.baseUrl}/api/auth/oauth2/authorize`);
          for (const [key, value] of Object.entries({
            client_id: clientId,
            redirect_uri: `http://127.0.0.1:${callbackPort}/callback`,
            response_type: 'code',
            scope: 'sheets:read',
            state: randomBytes(8).toString('hex'),
            code_challenge: createHash('sha256').update(verifier).digest('base64url'),
            code_challenge_method: 'S256',
            resource: `${stack.baseUrl}/api/mcp`,
          }))
            authorize.searchParams.set(key, value);

          const { page } = person;
          await page.goto(authorize.href);
          await page.waitForURL((url) => url.pathname === '/authorize');
          const consent = await inspect();
          expect(consent.names).toContain(name.trim());
          expect(consent.injected).toBe(0);
          expect(consent.hostile).toBeUndefined();

          await page.getByRole('button', { name: 'Allow' }).click();
          await page.waitForURL((url) => url.port === String(callbackPort));
          await page.goto(`${stack.baseUrl}/dashboard`);
          const dashboard = await inspect();
          expect(dashboard.names).toContain(name.trim());
          expect(dashboard.injected).toBe(0);
          expect(dashboard.hostile).toBeUndefined();
        }),
        { numRuns: 12 },
      );
      // Nothing was blocked by the pages' CSP either: no markup from a name ever tried to run.
      expect(consoleErrors.filter((text) => /Content Security Policy|Refused to/.test(text))).toEqual([]);
      expect(dialogs).toEqual([]);
      // The person's session never reached a log.
      const session = (await person.context.cookies(stack.baseUrl)).find(
        (cookie) => cookie.name === 'sg_session',
      );
      expect(session?.value).toEqual(expect.any(String));
      expect(stack.output.join('')).not.toContain(session!.value);
    }, 120_000);
  },
);
