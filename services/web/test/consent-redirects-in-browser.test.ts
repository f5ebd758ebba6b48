import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type BrowserStack,
  type Person,
  sessionCookieOf,
  signInWithGoogle,
  startBrowserStack,
} from './support/browser-stack.ts';
import { chromiumMissing } from './support/chromium.ts';
import { authorizationRequest, listTools, registerClient, tokenRequest } from './support/oauth-app.ts';

// Every redirect shape auth's registration policy admits (services/auth/src/oidc/redirect-policy.ts),
// answered with Allow in Debian's Chromium: the consent page says where the answer goes, its CSP
// `form-action` lets the browser follow auth's redirect there, and the code the app receives
// redeems with the app's PKCE verifier. A private-use scheme opens an app, which Chromium hands
// to the operating system: the test takes the code from the browser's request for that URL.

let env: BrowserStack;
let person: Person;

const missing = chromiumMissing();
if (missing) console.warn(`browser tests skipped: ${missing}`);

beforeAll(async () => {
  if (missing) return;
  env = await startBrowserStack();
  // No routes in this profile: with request interception on, Chromium drops a redirect to an
  // app's scheme without reporting a request for it. Nothing listens at the apps' addresses; the
  // browser's request for one is what shows that the CSP let it go there.
  const context = await env.chromium.newContext();
  context.setDefaultTimeout(8_000);
  person = { context, page: await context.newPage() };
  await person.page.goto(`${env.stack.baseUrl}/login`);
  await signInWithGoogle(person.page, 'alice@example.com');
}, 120_000);

afterAll(async () => {
  await env?.stop();
});

/** The port of a native app's loopback callback (nothing listens there). */
const loopbackPort = () => new URL(env.redirectUri).port;

/** A shape: its redirect URI and what the consent page says of it, given a loopback port. */
type Shape = [
  name: string,
  redirectUri: (port: string) => string,
  where: (port: string) => string[],
  notWhere?: string,
];
const shapes: Shape[] = [
  [
    'an https web app',
    () => 'https://sheets-web.example/oauth/callback',
    () => ['goes to sheets-web.example'],
  ],
  [
    'a native app on http://127.0.0.1 with a port',
    (port) => `http://127.0.0.1:${port}/callback`,
    (port) => [`goes to 127.0.0.1:${port}`, 'on this computer'],
  ],
  [
    'a native app on http://[::1] with a port',
    (port) => `http://[::1]:${port}/callback`,
    (port) => [`goes to [::1]:${port}`, 'on this computer'],
  ],
  [
    'a native app on http://localhost with a port',
    (port) => `http://localhost:${port}/callback`,
    (port) => [`goes to localhost:${port}`, 'on this computer'],
  ],
  [
    "Cursor's private-use scheme",
    () => 'cursor://anysphere.cursor-retrieval/oauth/callback',
    () => ['opens the app that handles cursor: links on this computer'],
    'anysphere.cursor-retrieval',
  ],
  [
    'a private-use scheme whose host looks like a website',
    () => 'myapp://claude.ai/callback',
    () => ['opens the app that handles myapp: links on this computer'],
    'goes to claude.ai',
  ],
  [
    'a reverse-domain private-use scheme without a host (RFC 8252 §7.1)',
    () => 'com.example.sheets:/oauth/callback',
    () => ['opens the app that handles com.example.sheets: links on this computer'],
  ],
];

describe.skipIf(Boolean(missing))('Allow reaches every redirect shape the registration policy admits', () => {
  it.each(shapes)(
    '%s',
    async (name, redirectUriOf, where, notWhere) => {
      const redirectUri = redirectUriOf(loopbackPort());
      // A page of its own: Chromium lets a page hand only so many links to other apps.
      const page = await person.context.newPage();
      const isApp = (url: string) => url.startsWith(redirectUri);
      try {
        const clientId = await registerClient(env.stack.baseUrl, `Shape: ${name}`, redirectUri);
        const request = authorizationRequest(env.stack.baseUrl, clientId, redirectUri);
        await page.goto(request.url);
        await page.waitForURL(/\/authorize\?interaction=/);
        const text = (await page.locator('section[aria-labelledby=where]').textContent())!.replace(
          /\s+/g,
          ' ',
        );
        for (const words of where(loopbackPort())) expect(text).toContain(words);
        if (notWhere) expect(text).not.toContain(notWhere);

        // Requested only if the CSP lets the form's redirect go there (else Chromium blocks it).
        const reached = page.waitForRequest((sent) => isApp(sent.url()), { timeout: 8_000 });
        await page.getByRole('button', { name: 'Allow' }).click();
        const answer = new URL((await reached).url());
        expect(answer.searchParams.get('state')).toBe(new URL(request.url).searchParams.get('state'));
        const tokens = await tokenRequest(env.stack.baseUrl, {
          grant_type: 'authorization_code',
          code: answer.searchParams.get('code') ?? '',
          redirect_uri: redirectUri,
          client_id: clientId,
          code_verifier: request.verifier,
        });
        expect(tokens.status, JSON.stringify(tokens.body)).toBe(200);
        const tools = await listTools(env.stack.baseUrl, {
          authorization: `Bearer ${tokens.body.access_token}`,
        });
        expect(tools.status).toBe(200);
        // The dashboard's list of apps names the same place: the host, or an app's scheme.
        const sessionCookie = await sessionCookieOf(person.context, env.stack.baseUrl);
        const { apps } = await env.accounts.listConnectedApps({ sessionCookie });
        const uri = new URL(redirectUri);
        expect(apps.find((app) => app.clientId === clientId)?.redirectHost).toBe(
          uri.protocol.startsWith('http') ? uri.host : uri.protocol,
        );
      } finally {
        await page.close();
      }
    },
    60_000,
  );
});
