import type { AccountServiceClientApi } from '@sheetgate/proto';
import { createAccountServiceClient } from '@sheetgate/proto';
import { createBrowser, type Stack, startStack } from '@sheetgate/test-harness';
import { parse } from 'node-html-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// The dashboard's "Create API key" form on the whole stack: web forwards what the person typed,
// auth alone decides whether a key can be made from it, and its reason reaches the person on the
// re-shown form, which keeps what they typed.

let stack: Stack;
let accounts: AccountServiceClientApi;
let session: string;
let dashboardUrl: string;

beforeAll(async () => {
  stack = await startStack();
  accounts = createAccountServiceClient({
    address: `127.0.0.1:${stack.ports.AUTH_GRPC_PORT}`,
    serviceToken: stack.serviceToken,
  });
  const browser = createBrowser();
  const chooser = await browser.navigate(`${stack.baseUrl}/api/auth/google/start?return_to=%2Fdashboard`);
  const chosen = await browser.pressButton(
    { url: chooser.redirects.at(-1) ?? chooser.url, body: chooser.body },
    'alice@example.com',
  );
  await browser.navigate(chosen.location!);
  session = (await browser.jar.getCookies(stack.baseUrl)).find(
    (cookie) => cookie.key === 'sg_session',
  )!.value;
  dashboardUrl = `${stack.baseUrl}/dashboard`;
}, 120_000);

afterAll(async () => {
  accounts?.close();
  await stack?.stop();
});

const headers = () => ({ cookie: `sg_session=${session}` });

/** The create form's token and nonce, from the dashboard as the person sees it. */
async function createForm() {
  const page = parse(await (await fetch(dashboardUrl, { headers: headers() })).text());
  const form = page.querySelector('form[action="/dashboard/api-keys"]')!;
  const value = (name: string) => form.querySelector(`input[name=${name}]`)!.getAttribute('value')!;
  return { csrf: value('csrf'), nonce: value('nonce') };
}

async function create(fields: Record<string, string>) {
  const response = await fetch(`${stack.baseUrl}/dashboard/api-keys`, {
    method: 'POST',
    redirect: 'manual',
    headers: {
      ...headers(),
      'content-type': 'application/x-www-form-urlencoded',
      origin: stack.baseUrl,
      'sec-fetch-site': 'same-origin',
    },
    body: new URLSearchParams({ ...(await createForm()), ...fields }),
  });
  return { status: response.status, page: parse(await response.text()) };
}

const liveKeys = async () =>
  (await accounts.listApiKeys({ sessionCookie: session })).keys.filter((key) => !key.revokedAt);

describe('"Create API key", checked by auth', { timeout: 60_000 }, () => {
  it.each([
    [{ name: '   ' }, 'Give the key a name.'],
    [{ name: 'n'.repeat(101) }, 'at most 100 characters'],
    [{ name: 'tab\there' }, 'must not contain control characters'],
    [{ expires: 'date', expiry_date: '2001-01-01' }, 'must be in the future'],
    [{ expires: 'date', expiry_date: '' }, 'Choose the expiry date'],
    [{ expires: 'date', expiry_date: '2099-02-31' }, 'Choose the expiry date'],
    [{ expires: 'forever' }, 'Choose when the key expires.'],
  ])('re-shows the form with auth’s reason for %o, keeping the input', async (fields, error) => {
    const before = await liveKeys();
    const sent = { name: 'ok', expires: 'never', access: 'read', ...fields };
    const { status, page } = await create(sent);
    expect(status).toBe(400);
    expect(page.querySelector('#create-key-error')!.text).toContain(error);
    expect(page.querySelector('#key-name')!.getAttribute('value')).toBe(sent.name);
    expect(page.querySelector('input[name=access][value=read]')!.hasAttribute('checked')).toBe(true);
    expect(await liveKeys()).toEqual(before);
  });

  it('stores the name trimmed, "30 days" from now, and a picked date at midnight UTC', async () => {
    const sentAt = Date.now();
    expect((await create({ name: ' Deploy ', expires: '30', access: 'read' })).status).toBe(201);
    const date = new Date(Date.now() + 10 * 86_400_000).toISOString().slice(0, 10);
    expect((await create({ name: 'dated', expires: 'date', expiry_date: date })).status).toBe(201);
    const keys = await liveKeys();
    const deploy = keys.find((key) => key.name === 'Deploy')!;
    expect(deploy.scopes).toEqual(['sheets:read']);
    expect(Date.parse(deploy.expiresAt)).toBeGreaterThanOrEqual(sentAt + 30 * 86_400_000);
    expect(Date.parse(deploy.expiresAt)).toBeLessThanOrEqual(Date.now() + 30 * 86_400_000);
    expect(keys.find((key) => key.name === 'dated')!.expiresAt).toBe(`${date}T00:00:00.000Z`);
  });
});
