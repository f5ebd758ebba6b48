import { randomBytes } from 'node:crypto';
import type { ServerUnaryCall, sendUnaryData } from '@grpc/grpc-js';
import {
  type AccountServiceClientApi,
  type AccountServiceServer,
  AccountServiceService,
  accountService,
  approvalLinkPath,
  type CallConsentClient,
  type CallCredential,
  createAccountServiceClient,
  createCallConsentClient,
  type RunningGrpcServer,
  startGrpcServer,
} from '@sheetgate/proto';
import {
  type Browser,
  createBrowser,
  type RunningService,
  type Stack,
  startServiceProcess,
  startStack,
  withFreePorts,
} from '@sheetgate/test-harness';
import { parse } from 'node-html-parser';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createFormTokens } from '../src/forms/form-tokens.ts';
import { registerClient } from './support/oauth-app.ts';

// The approval page (URL-mode elicitation, docs/design.md §11.10) over HTTP, web as a real process
// in front of a real auth (the whole stack): approvals are created as the MCP service creates them
// (CallConsentService.CreateCallApproval) and read back as it reads them (GetCallApproval). Web
// reaches auth's AccountService through a forwarder that records each call's name, so a test can
// say that an altered link was refused with nothing asked of auth.

interface Person {
  email: string;
  browser: Browser;
  session: string;
  userId: string;
}

let stack: Stack;
let accounts: AccountServiceClientApi;
let consent: CallConsentClient;
let forwarder: RunningGrpcServer;
let web: RunningService;
let alice: Person;
let bob: Person;
let aliceKeyId: string;
let appClientId: string;
/** The AccountService methods web called, in order, since the last reset. */
const calls: string[] = [];

const SENTENCE = 'Shares "Budget <2026>" with anyone who has the link\n& sends "hi" to eve@outside.example';
const KEY_NAME = 'Nightly <b>import</b>';
const APP_NAME = 'Report <i>writer</i>';

/** A gRPC AccountService that passes every call to auth's, recording its name. */
async function startRecordingForwarder(): Promise<RunningGrpcServer> {
  type Forwarded = (request: unknown) => Promise<unknown>;
  const handlers: Record<string, unknown> = {};
  for (const name of Object.keys(AccountServiceService)) {
    const forward = (accounts as unknown as Record<string, Forwarded>)[name]!.bind(accounts);
    handlers[name] = (call: ServerUnaryCall<unknown, unknown>, callback: sendUnaryData<unknown>) => {
      calls.push(name);
      forward(call.request).then(
        (answer) => callback(null, answer),
        (error) => callback(error),
      );
    };
  }
  return startGrpcServer({
    host: '127.0.0.1',
    port: 0,
    serviceToken: stack.serviceToken,
    services: [accountService(handlers as Partial<AccountServiceServer>)],
  });
}

async function signIn(email: string): Promise<Person> {
  const browser = createBrowser();
  const chooser = await browser.navigate(`${stack.baseUrl}/api/auth/google/start?return_to=%2Fdashboard`);
  const chosen = await browser.pressButton(
    { url: chooser.redirects.at(-1) ?? chooser.url, body: chooser.body },
    email,
  );
  await browser.navigate(chosen.location!, {}, (url) => url.pathname === '/dashboard');
  const cookie = (await browser.jar.getCookies(stack.baseUrl)).find((entry) => entry.key === 'sg_session');
  if (!cookie) throw new Error(`${email}: no dashboard session after signing in`);
  const { user } = await accounts.getSession({ sessionCookie: cookie.value });
  return { email, browser, session: cookie.value, userId: user!.id };
}

/** A pending approval of alice's API key (or `credential`), and its link's path. */
async function pendingApproval(
  options: { credential?: Partial<CallCredential>; validForMs?: number; sentence?: string } = {},
) {
  const { approvalId } = await consent.createCallApproval({
    credential: { userId: alice.userId, apiKeyId: aliceKeyId, ...options.credential },
    tool: 'share_spreadsheet',
    sentence: options.sentence ?? SENTENCE,
    validForMs: options.validForMs ?? 300_000,
  });
  return { approvalId, path: approvalLinkPath(stack.serviceToken, approvalId) };
}

const stateOf = async (approvalId: string, person: Person = alice) =>
  (await consent.getCallApproval({ approvalId, userId: person.userId })).state;

const cookieOf = (person: Person) => ({ cookie: `sg_session=${person.session}` });

function get(path: string, headers: Record<string, string> = {}) {
  return fetch(`${web.url}${path}`, { redirect: 'manual', headers });
}

/** Posts the approval form as the page's own post arrives from a browser (no referrer: `Origin: null`). */
function post(path: string, fields: Record<string, string>, headers: Record<string, string> = {}) {
  return fetch(`${web.url}${path}`, {
    method: 'POST',
    redirect: 'manual',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      origin: 'null',
      'sec-fetch-site': 'same-origin',
      ...cookieOf(alice),
      ...headers,
    },
    body: new URLSearchParams(fields).toString(),
  });
}

/** The CSRF token of the page's form, as the page renders it for alice. */
async function csrfOf(path: string, person: Person = alice): Promise<string> {
  const page = parse(await (await get(path, cookieOf(person))).text());
  const token = page.querySelector('main form input[name=csrf]')?.getAttribute('value');
  if (!token) throw new Error(`no approval form on ${path}`);
  return token;
}

const textOf = (body: string) => parse(body).querySelector('main')!.textContent.replace(/\s+/g, ' ').trim();
const buttonsOf = (body: string) =>
  parse(body)
    .querySelectorAll('main button')
    .map((button) => button.textContent.trim());

beforeAll(async () => {
  stack = await startStack({ GOOGLE_EMULATOR_ACCOUNTS: 'alice@example.com,bob@example.com' });
  accounts = createAccountServiceClient({
    address: `127.0.0.1:${stack.ports.AUTH_GRPC_PORT}`,
    serviceToken: stack.serviceToken,
  });
  consent = createCallConsentClient({
    address: `127.0.0.1:${stack.ports.AUTH_GRPC_PORT}`,
    serviceToken: stack.serviceToken,
  });
  forwarder = await startRecordingForwarder();
  web = await withFreePorts(1, ([port]) =>
    startServiceProcess(
      'web',
      {
        WEB_PORT: String(port),
        BASE_URL: `http://127.0.0.1:${port}`,
        INTERNAL_SERVICE_TOKEN: stack.serviceToken,
        AUTH_GRPC_ADDRESS: `127.0.0.1:${forwarder.port}`,
      },
      port!,
    ),
  );
  alice = await signIn('alice@example.com');
  bob = await signIn('bob@example.com');
  const { key } = await accounts.createApiKey({
    sessionCookie: alice.session,
    name: KEY_NAME,
    scopes: ['sheets:read', 'sheets:write'],
    expiresAt: '',
  });
  aliceKeyId = key!.id;
  appClientId = await registerClient(stack.baseUrl, APP_NAME, 'http://127.0.0.1:4000/callback');
}, 120_000);

afterAll(async () => {
  await web?.stop();
  await forwarder?.close();
  consent?.close();
  accounts?.close();
  await stack?.stop();
});

beforeEach(() => {
  calls.length = 0;
});

describe('the approval page', { timeout: 30_000 }, () => {
  it('shows a pending call to its person: who asks, the tool, the sentence escaped, the expiry, Approve and Decline', async () => {
    const { approvalId, path } = await pendingApproval();
    const response = await get(path, cookieOf(alice));
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.headers.get('referrer-policy')).toBe('no-referrer');
    expect(response.headers.get('x-frame-options')).toBe('DENY');
    expect(response.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    const body = await response.text();
    const page = parse(body);
    expect(page.querySelector('h1')!.textContent).toBe('Approve this call?');
    expect(textOf(body)).toContain(
      'Asked by the API key Nightly <b>import</b> (API key), to run the tool share_spreadsheet',
    );
    // The sentence as given, newline and all, as text: no markup of its own reaches the page.
    expect(page.querySelector('.call-sentence')!.textContent).toBe(SENTENCE);
    expect(body).not.toContain('<2026>');
    expect(body).not.toContain('<b>import');
    const { expiresAt } = (await accounts.showCallApproval({ sessionCookie: alice.session, approvalId }))
      .approval!;
    expect(page.querySelector('main time')!.getAttribute('datetime')).toBe(expiresAt);
    const form = page.querySelector('main form')!;
    expect(form.getAttribute('method')).toBe('post');
    expect(form.getAttribute('action')).toBe(path);
    expect(buttonsOf(body)).toEqual(['Approve', 'Decline']);
    expect(form.querySelector('input[name=csrf]')!.getAttribute('value')).toMatch(/^[\w-]{43}$/);
    expect(page.querySelector('.account')!.textContent).toContain('alice@example.com');
    expect(calls).toContain('showCallApproval');
  });

  it("names an app's call by the app's registered name", async () => {
    const { path } = await pendingApproval({ credential: { apiKeyId: undefined, clientId: appClientId } });
    const body = await (await get(path, cookieOf(alice))).text();
    expect(textOf(body)).toContain('Asked by the app Report <i>writer</i> (app)');
    expect(body).not.toContain('<i>writer');
  });

  it('sends a browser without a session to sign in, and back to the same link after', async () => {
    const { path } = await pendingApproval();
    for (const headers of [{}, { cookie: 'sg_session=not-a-live-session' }] as Record<string, string>[]) {
      const response = await get(path, headers);
      expect(response.status).toBe(303);
      const location = new URL(response.headers.get('location')!, web.url);
      expect(location.pathname).toBe('/login');
      expect(location.searchParams.get('return_to')).toBe(path);
    }
    // Signing in through auth's Google start comes back to the link, signed in.
    const person = createBrowser();
    const login = new URL((await get(path)).headers.get('location')!, stack.baseUrl);
    const chooser = await person.navigate(
      `${stack.baseUrl}/api/auth/google/start?return_to=${encodeURIComponent(login.searchParams.get('return_to')!)}`,
    );
    const chosen = await person.pressButton(
      { url: chooser.redirects.at(-1) ?? chooser.url, body: chooser.body },
      'alice@example.com',
    );
    const back = await person.navigate(chosen.location!, {}, (url) => url.pathname.startsWith('/approve/'));
    expect(new URL(back.redirects.at(-1)!).pathname).toBe(path);
  });

  it('answers an altered link with the not-found page, asking auth nothing', async () => {
    const { approvalId, path } = await pendingApproval();
    const other = await pendingApproval();
    const link = path.slice('/approve/'.length);
    const [id, signature] = link.split('.') as [string, string];
    const swap = (text: string, at: number, by: string) => `${text.slice(0, at)}${by}${text.slice(at + 1)}`;
    const differentFrom = (character: string, candidates: string) =>
      [...candidates].find((candidate) => candidate !== character)!;
    const flipCase = (character: string) =>
      character === character.toLowerCase() ? character.toUpperCase() : character.toLowerCase();
    const letterAt = [...signature].findIndex((character) => /[A-Za-z]/.test(character));
    const altered = [
      // One character of the id or of the signature, by each class of character.
      `${swap(id, 0, differentFrom(id[0]!, 'ab'))}.${signature}`,
      `${swap(id, 5, differentFrom(id[5]!, '01'))}.${signature}`,
      `${swap(id, 21, differentFrom(id[21]!, '-_'))}.${signature}`,
      `${id}.${swap(signature, 0, differentFrom(signature[0]!, 'AB'))}`,
      `${id}.${swap(signature, 31, differentFrom(signature[31]!, '89'))}`,
      `${id}.${swap(signature, 10, differentFrom(signature[10]!, '_-'))}`,
      `${id}.${swap(signature, letterAt, flipCase(signature[letterAt]!))}`,
      // Characters a link never holds.
      `${id}.${swap(signature, 3, '~')}`,
      `${id}.${swap(signature, 3, '%2F')}`,
      `${id}.${swap(signature, 3, '%C3%A9')}`,
      `${id}.${signature}%00`,
      `${id}%20.${signature}`,
      `${id}_${signature}`,
      // Truncated, and extra segments.
      `${id}.${signature.slice(0, -1)}`,
      `${id}.`,
      id,
      `${id.slice(1)}.${signature}`,
      `${id}.${signature}.${signature}`,
      `${id}.${signature}A`,
      `${link}/`,
      `${link}/extra`,
      // Another approval's signature, and a link signed with another secret.
      `${id}.${other.path.split('.')[1]}`,
      approvalLinkPath(randomBytes(32).toString('base64url'), approvalId).slice('/approve/'.length),
      // A malformed percent-encoding.
      `${id}.${signature}%E0%A4%A`,
    ];
    // The real link's token: the post would be good but for its link.
    const csrf = await csrfOf(path);
    for (const candidate of altered) {
      for (const method of ['GET', 'POST'] as const) {
        calls.length = 0;
        const response =
          method === 'GET'
            ? await get(`/approve/${candidate}`, cookieOf(alice))
            : await post(`/approve/${candidate}`, { answer: 'approve', csrf });
        const body = await response.text();
        expect(response.status, `${method} ${candidate}`).toBe(404);
        expect(parse(body).querySelector('h1')!.textContent, candidate).toBe('Page not found');
        expect(response.headers.get('referrer-policy'), candidate).toBe('no-referrer');
        // Not even the session was asked about.
        expect(calls, `${method} ${candidate}`).toEqual([]);
      }
    }
    expect(await stateOf(approvalId)).toBe('CALL_APPROVAL_STATE_PENDING');
  });

  it('answers an oversized link with the not-found page, asking auth nothing', async () => {
    const { path } = await pendingApproval();
    for (const candidate of [`${path}${'A'.repeat(5_000)}`, `/approve/${'A'.repeat(8_000)}`]) {
      const response = await get(candidate, cookieOf(alice));
      expect(response.status).toBe(404);
      expect(parse(await response.text()).querySelector('h1')!.textContent).toBe('Page not found');
    }
    expect(calls).toEqual([]);
  });

  it("shows another person's call as not found: the very page an altered link gets", async () => {
    const { approvalId, path } = await pendingApproval();
    const asBob = await get(path, cookieOf(bob));
    expect(asBob.status).toBe(404);
    const altered = await get(`${path.slice(0, -1)}${path.endsWith('A') ? 'B' : 'A'}`, cookieOf(bob));
    expect(await asBob.text()).toBe(await altered.text());
    // Bob's own, valid CSRF token for this approval and his session: auth finds nothing to answer.
    const token = createFormTokens(stack.serviceToken).issue(
      'answer-call-approval',
      `${approvalId}\n${bob.session}`,
    );
    const answered = await post(path, { answer: 'approve', csrf: token }, cookieOf(bob));
    expect(answered.status).toBe(404);
    expect(await stateOf(approvalId)).toBe('CALL_APPROVAL_STATE_PENDING');
    expect(await stateOf(approvalId, bob)).toBe('CALL_APPROVAL_STATE_UNKNOWN');
  });

  it("refuses an answer without its CSRF token, with another approval's, or from another site", async () => {
    const { approvalId, path } = await pendingApproval();
    const other = await pendingApproval();
    const refusals: Array<[Record<string, string>, Record<string, string>]> = [
      [{ answer: 'approve' }, {}],
      [{ answer: 'approve', csrf: '' }, {}],
      [{ answer: 'approve', csrf: 'x'.repeat(43) }, {}],
      [{ answer: 'approve', csrf: await csrfOf(other.path) }, {}],
      [{ answer: 'approve', csrf: await csrfOf(path, alice) }, { origin: 'https://evil.example' }],
      [{ answer: 'approve', csrf: await csrfOf(path, alice) }, { 'sec-fetch-site': 'cross-site' }],
      // `Origin: null` is our own no-referrer page only when Fetch Metadata says same-origin.
      [{ answer: 'approve', csrf: await csrfOf(path, alice) }, { 'sec-fetch-site': 'same-site' }],
      [{ answer: 'approve', csrf: await csrfOf(path, alice) }, { 'sec-fetch-site': '' }],
    ];
    for (const [fields, headers] of refusals) {
      calls.length = 0;
      const response = await post(path, fields, headers);
      expect(response.status, JSON.stringify([fields, headers])).toBe(403);
      expect(parse(await response.text()).querySelector('h1')!.textContent).toBe('This form has expired');
      expect(calls).toEqual([]);
    }
    expect(await stateOf(approvalId)).toBe('CALL_APPROVAL_STATE_PENDING');
    // A post without a session cookie signs in first, and comes back to the link.
    const signedOut = await post(path, { answer: 'approve', csrf: await csrfOf(path) }, { cookie: '' });
    expect(signedOut.status).toBe(303);
    expect(new URL(signedOut.headers.get('location')!, web.url).searchParams.get('return_to')).toBe(path);
    expect(await stateOf(approvalId)).toBe('CALL_APPROVAL_STATE_PENDING');
  });

  it('records Approve once: a second answer changes nothing and the page says it was answered', async () => {
    const { approvalId, path } = await pendingApproval();
    const csrf = await csrfOf(path);
    const approved = await post(path, { answer: 'approve', csrf });
    expect(approved.status).toBe(200);
    expect(approved.headers.get('referrer-policy')).toBe('no-referrer');
    expect(approved.headers.get('cache-control')).toBe('no-store');
    const body = await approved.text();
    expect(parse(body).querySelector('h1')!.textContent).toBe('You approved this call');
    expect(textOf(body)).toContain(
      'You can return to the program using your API key Nightly <b>import</b>; it goes on when it retries.',
    );
    expect(buttonsOf(body).filter((name) => name !== 'Sign out')).toEqual([]);
    expect(await stateOf(approvalId)).toBe('CALL_APPROVAL_STATE_APPROVED');

    const again = await post(path, { answer: 'decline', csrf });
    expect(again.status).toBe(409);
    const againText = textOf(await again.text());
    expect(againText).toMatch(
      /You approved this call at \d{4}-\d\d-\d\d \d\d:\d\d UTC; it cannot be answered again\./,
    );
    expect(await stateOf(approvalId)).toBe('CALL_APPROVAL_STATE_APPROVED');

    const reopened = await get(path, cookieOf(alice));
    expect(reopened.status).toBe(200);
    const reopenedBody = await reopened.text();
    expect(textOf(reopenedBody)).toMatch(/You approved this call at .*; it cannot be answered again\./);
    expect(parse(reopenedBody).querySelector('main form')).toBeNull();
  });

  it('records Decline, for that call only', async () => {
    const { approvalId, path } = await pendingApproval({
      credential: { apiKeyId: undefined, clientId: appClientId },
    });
    const untouched = await pendingApproval();
    const declined = await post(path, { answer: 'decline', csrf: await csrfOf(path) });
    expect(declined.status).toBe(200);
    const text = textOf(await declined.text());
    expect(text).toContain('You declined this call');
    expect(text).toContain('You can return to Report <i>writer</i>; it goes on when it retries.');
    expect(await stateOf(approvalId)).toBe('CALL_APPROVAL_STATE_DECLINED');
    expect(await stateOf(untouched.approvalId)).toBe('CALL_APPROVAL_STATE_PENDING');
    const again = await post(path, { answer: 'approve', csrf: await csrfOf(untouched.path) });
    // The other approval's token is no token for this one.
    expect(again.status).toBe(403);
    expect(await stateOf(approvalId)).toBe('CALL_APPROVAL_STATE_DECLINED');
    const reopened = textOf(await (await get(path, cookieOf(alice))).text());
    expect(reopened).toMatch(/You declined this call at .*; it cannot be answered again\./);
  });

  it('shows an expired call as expired, without buttons, and takes no answer for it', async () => {
    const { approvalId, path } = await pendingApproval({ validForMs: 1 });
    // Pending for one millisecond: by the time it is read it has expired.
    await new Promise((resolve) => setTimeout(resolve, 5));
    const csrf = createFormTokens(stack.serviceToken).issue(
      'answer-call-approval',
      `${approvalId}\n${alice.session}`,
    );
    const shown = await get(path, cookieOf(alice));
    expect(shown.status).toBe(200);
    const body = await shown.text();
    expect(parse(body).querySelector('h1')!.textContent).toBe('This request has expired');
    expect(parse(body).querySelector('main form')).toBeNull();
    const answered = await post(path, { answer: 'approve', csrf });
    expect(answered.status).toBe(409);
    expect(textOf(await answered.text())).toContain('This request has expired');
    expect(await stateOf(approvalId)).toBe('CALL_APPROVAL_STATE_EXPIRED');
  });

  it('refuses an answer that is neither Approve nor Decline', async () => {
    const { approvalId, path } = await pendingApproval();
    const response = await post(path, { answer: 'yes', csrf: await csrfOf(path) });
    expect(response.status).toBe(400);
    expect(await stateOf(approvalId)).toBe('CALL_APPROVAL_STATE_PENDING');
  });
});
