import { approvalLinkPath, type CallConsentClient, createCallConsentClient } from '@sheetgate/proto';
import type { Page, Request } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type BrowserStack,
  newPerson,
  type Person,
  sessionCookieOf,
  signInWithGoogle,
  startBrowserStack,
} from './support/browser-stack.ts';
import { chromiumMissing, expectAccessibleInEveryLook } from './support/chromium.ts';

// The approval page (URL-mode elicitation, docs/design.md §11.10) in Chromium on the whole stack:
// approvals made as the MCP service makes them (CallConsentService.CreateCallApproval), answered
// on the page by mouse and by keyboard alone, read back as the MCP service reads them
// (GetCallApproval). One answer answers one call; a reused link shows the answer, an altered one
// the not-found page; the page never sends its address as a referrer; axe-core finds nothing.

const missing = chromiumMissing();
if (missing) console.warn(`approval page browser tests skipped: ${missing}`);

const SENTENCE = 'Shares "Q3 <budget>" with anyone who has the link (anyone on the internet can open it)';

let env: BrowserStack;
let consent: CallConsentClient;
let alice: Person;
let aliceId: string;
let keyId: string;

/** A pending approval of alice's API key; its link as the MCP service gives it to the client. */
async function pendingApproval(validForMs = 300_000) {
  const { approvalId } = await consent.createCallApproval({
    credential: { userId: aliceId, apiKeyId: keyId },
    tool: 'share_spreadsheet',
    sentence: SENTENCE,
    validForMs,
  });
  return { approvalId, url: `${env.stack.baseUrl}${approvalLinkPath(env.stack.serviceToken, approvalId)}` };
}

const stateOf = async (approvalId: string) =>
  (await consent.getCallApproval({ approvalId, userId: aliceId })).state;

const mainText = async (page: Page) =>
  ((await page.locator('main').textContent()) ?? '').replace(/\s+/g, ' ');

const statusText = async (page: Page) =>
  ((await page.getByRole('status').textContent()) ?? '').replace(/\s+/g, ' ');

/** Tab (only) until the button named `name` has focus, then Enter. */
async function pressByKeyboard(page: Page, name: string): Promise<void> {
  const focused = async () =>
    String(await page.evaluate('document.activeElement?.textContent?.trim() ?? ""'));
  for (let presses = 0; presses < 20 && (await focused()) !== name; presses++)
    await page.keyboard.press('Tab');
  expect(await focused()).toBe(name);
  await page.keyboard.press('Enter');
}

beforeAll(async () => {
  if (missing) return;
  env = await startBrowserStack();
  consent = createCallConsentClient({
    address: `127.0.0.1:${env.stack.ports.AUTH_GRPC_PORT}`,
    serviceToken: env.stack.serviceToken,
  });
  alice = await newPerson(env);
  await alice.page.goto(`${env.stack.baseUrl}/login`);
  await signInWithGoogle(alice.page, 'alice@example.com');
  const sessionCookie = await sessionCookieOf(alice.context, env.stack.baseUrl);
  aliceId = (await env.accounts.getSession({ sessionCookie })).user!.id;
  const { key } = await env.accounts.createApiKey({
    sessionCookie,
    name: 'Nightly import',
    scopes: ['sheets:read', 'sheets:write'],
    expiresAt: '',
  });
  keyId = key!.id;
}, 120_000);

afterAll(async () => {
  consent?.close();
  await env?.stop();
});

describe.skipIf(Boolean(missing))('the approval page in Chromium', { timeout: 120_000 }, () => {
  it('approves exactly one call, sending no referrer; the reused link shows the answer without buttons', async () => {
    const { page } = alice;
    const approved = await pendingApproval();
    const other = await pendingApproval();
    const sent: Request[] = [];
    page.on('request', (request) => sent.push(request));
    await page.goto(approved.url);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Approve this call?');
    const text = await mainText(page);
    expect(text).toContain(
      'Asked by the API key Nightly import (API key), to run the tool share_spreadsheet',
    );
    expect(await page.locator('.call-sentence').textContent()).toBe(SENTENCE);
    await page.getByRole('button', { name: 'Approve' }).click();
    await page.getByRole('heading', { name: 'You approved this call' }).waitFor();
    expect(await statusText(page)).toContain('You can return to the program using your API key');
    page.removeAllListeners('request');

    expect(await stateOf(approved.approvalId)).toBe('CALL_APPROVAL_STATE_APPROVED');
    expect(await stateOf(other.approvalId)).toBe('CALL_APPROVAL_STATE_PENDING');
    // Neither the page's own requests (its stylesheet, the answer) nor anything else named the link.
    const answer = sent.find((request) => request.method() === 'POST')!;
    expect(answer.url()).toBe(approved.url);
    // Under no-referrer Chromium sends `Origin: null` with the page's own post: web's check of the
    // answer goes by Fetch Metadata then (call-approval-routes.ts).
    expect(await answer.headerValue('origin')).toBe('null');
    for (const request of sent) expect(await request.headerValue('referer'), request.url()).toBeNull();

    await page.goto(approved.url);
    expect(await mainText(page)).toMatch(/You approved this call at .* UTC; it cannot be answered again\./);
    expect(await page.getByRole('button', { name: 'Approve' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Decline' }).count()).toBe(0);
    expect(await stateOf(approved.approvalId)).toBe('CALL_APPROVAL_STATE_APPROVED');
  });

  it('declines exactly one call', async () => {
    const { page } = alice;
    const declined = await pendingApproval();
    const other = await pendingApproval();
    await page.goto(declined.url);
    await page.getByRole('button', { name: 'Decline' }).click();
    await page.getByRole('heading', { name: 'You declined this call' }).waitFor();
    expect(await statusText(page)).toContain('nothing is changed or sent for it');
    expect(await stateOf(declined.approvalId)).toBe('CALL_APPROVAL_STATE_DECLINED');
    expect(await stateOf(other.approvalId)).toBe('CALL_APPROVAL_STATE_PENDING');
    await page.goto(declined.url);
    expect(await mainText(page)).toMatch(/You declined this call at .*; it cannot be answered again\./);
    expect(await page.getByRole('button', { name: 'Approve' }).count()).toBe(0);
  });

  it('shows the not-found page for an altered link', async () => {
    const { page } = alice;
    const { approvalId, url } = await pendingApproval();
    const last = url.at(-1) === 'A' ? 'B' : 'A';
    const response = await page.goto(`${url.slice(0, -1)}${last}`);
    expect(response?.status()).toBe(404);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Page not found');
    expect(await page.getByRole('button', { name: 'Approve' }).count()).toBe(0);
    expect(await stateOf(approvalId)).toBe('CALL_APPROVAL_STATE_PENDING');
  });

  it('sends a signed-out browser to sign in, and back to the call', async () => {
    const person = await newPerson(env);
    try {
      const { approvalId, url } = await pendingApproval();
      await person.page.goto(url);
      expect(new URL(person.page.url()).pathname).toBe('/login');
      await signInWithGoogle(person.page, 'alice@example.com', { landsOn: /\/approve\// });
      expect(person.page.url()).toBe(url);
      expect(await person.page.getByRole('heading', { level: 1 }).textContent()).toBe('Approve this call?');
      expect(await stateOf(approvalId)).toBe('CALL_APPROVAL_STATE_PENDING');
    } finally {
      await person.context.close();
    }
  });

  it('is answered with the keyboard alone: Tab to Approve or Decline, Enter', async () => {
    const { page } = alice;
    const approved = await pendingApproval();
    const declined = await pendingApproval();
    await page.goto(approved.url);
    await pressByKeyboard(page, 'Approve');
    await page.getByRole('heading', { name: 'You approved this call' }).waitFor();
    await page.goto(declined.url);
    await pressByKeyboard(page, 'Decline');
    await page.getByRole('heading', { name: 'You declined this call' }).waitFor();
    expect(await stateOf(approved.approvalId)).toBe('CALL_APPROVAL_STATE_APPROVED');
    expect(await stateOf(declined.approvalId)).toBe('CALL_APPROVAL_STATE_DECLINED');
  });

  it('is accessible pending, answered and expired', async () => {
    const { page } = alice;
    const { url } = await pendingApproval();
    await page.goto(url);
    await expectAccessibleInEveryLook(page, 'the approval page, pending');
    await page.getByRole('button', { name: 'Approve' }).click();
    await page.getByRole('heading', { name: 'You approved this call' }).waitFor();
    await expectAccessibleInEveryLook(page, 'the approval page, just approved');
    await page.goto(url);
    await expectAccessibleInEveryLook(page, 'the approval page, answered before');

    // Pending for one millisecond: expired by the time the page asks.
    const expired = await pendingApproval(1);
    await page.goto(expired.url);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('This request has expired');
    expect(await page.getByRole('button', { name: 'Approve' }).count()).toBe(0);
    await expectAccessibleInEveryLook(page, 'the approval page, expired');
  });
});
