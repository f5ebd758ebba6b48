import { DEFAULT_TOOLSETS, TOOLSETS } from '@sheetgate/proto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type BrowserStack,
  createKeyInDashboard,
  newPerson,
  type Person,
  signInWithGoogle,
  startBrowserStack,
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

// Toolsets on the dashboard and the consent screen (docs/design.md §10–11), in Chromium against
// the whole stack: the "Create API key" form and the consent screen offer one checkbox per set,
// reading and writing checked, and a key or a connected app keeps to the sets chosen for it at the
// MCP endpoint.

const missing = chromiumMissing();
if (missing) console.warn(`toolset browser tests skipped: ${missing}`);

let env: BrowserStack;
let person: Person;

beforeAll(async () => {
  if (missing) return;
  env = await startBrowserStack();
  person = await newPerson(env);
  await person.page.goto(`${env.stack.baseUrl}/login`);
  await signInWithGoogle(person.page, 'alice@example.com');
}, 120_000);

afterAll(async () => {
  await person?.context.close();
  await env?.stop();
});

describe.skipIf(Boolean(missing))('toolsets on the Create API key form', () => {
  it('offers one checkbox per set, labelled with its title, reading and writing checked', async () => {
    const { page } = person;
    await page.goto(`${env.stack.baseUrl}/dashboard`);
    const group = page.getByRole('form', { name: 'Create API key' }).getByRole('group', { name: 'Toolsets' });
    const boxes = group.getByRole('checkbox');
    expect(await boxes.count()).toBe(TOOLSETS.length);
    for (const [index, set] of TOOLSETS.entries()) {
      const box = boxes.nth(index);
      expect(await box.getAttribute('value')).toBe(set.name);
      expect((await box.locator('xpath=..').textContent())?.trim().startsWith(set.title)).toBe(true);
      expect(await box.isChecked(), set.name).toBe(DEFAULT_TOOLSETS.includes(set.name));
    }
  });

  it('a key created with only reading lists only the reading tools and refuses the others naming the set', async () => {
    const { page } = person;
    await page.goto(`${env.stack.baseUrl}/dashboard`);
    const secret = await createKeyInDashboard(page, { name: 'Reader', toolsets: ['Reading'] });
    const response = await listTools(env.stack.baseUrl, { 'x-api-key': secret });
    expect(response.status).toBe(200);
    const names = (
      (await response.json()) as { result: { tools: Array<{ name: string }> } }
    ).result.tools.map((tool) => tool.name);
    expect(names).toContain('read_range');
    expect(names).toContain('list_spreadsheets');
    expect(names).not.toContain('write_range');
    expect(names).not.toContain('add_sheet');
    expect(names).not.toContain('create_spreadsheet');

    const refused = await callTool(env.stack.baseUrl, { 'x-api-key': secret }, 'write_range');
    expect(refused.text).toContain('-32602');
    expect(refused.text).toContain('core-write');
    expect(refused.text).toContain('/dashboard');

    await page.goto(`${env.stack.baseUrl}/dashboard`);
    expect((await tableRow(page, 'Reader')).Toolsets).toEqual({ text: 'Reading' });
  });

  it('a key with the default sets lists reading and writing tools, not structure or files', async () => {
    const { page } = person;
    await page.goto(`${env.stack.baseUrl}/dashboard`);
    const secret = await createKeyInDashboard(page, { name: 'Defaults' });
    const response = await listTools(env.stack.baseUrl, { 'x-api-key': secret });
    const names = (
      (await response.json()) as { result: { tools: Array<{ name: string }> } }
    ).result.tools.map((tool) => tool.name);
    expect(names).toEqual(expect.arrayContaining(['read_range', 'write_range', 'append_rows']));
    expect(names).not.toContain('batch_update');
    expect(names).not.toContain('convert_file');
  });

  it('with no box checked, auth refuses and the form keeps what was typed', async () => {
    const { page } = person;
    await page.goto(`${env.stack.baseUrl}/dashboard`);
    const form = page.getByRole('form', { name: 'Create API key' });
    await form.getByLabel('Name').fill('Nothing chosen');
    for (const box of await form.getByRole('group', { name: 'Toolsets' }).getByRole('checkbox').all())
      await box.uncheck();
    await form.getByRole('button', { name: 'Create API key' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('Choose at least one toolset');
    expect(await form.getByLabel('Name').inputValue()).toBe('Nothing chosen');
    expect(await page.getByTestId('new-api-key').count()).toBe(0);
  });
});

/** The tool names a credential's tools/list shows. */
async function toolNames(headers: Record<string, string>): Promise<string[]> {
  const response = await listTools(env.stack.baseUrl, headers);
  expect(response.status).toBe(200);
  return ((await response.json()) as { result: { tools: Array<{ name: string }> } }).result.tools.map(
    (tool) => tool.name,
  );
}

describe.skipIf(Boolean(missing))('toolsets on the consent screen', () => {
  /** Registers an app and opens its consent screen in the person's browser. */
  async function openConsent(appName: string) {
    const clientId = await registerClient(env.stack.baseUrl, appName, env.redirectUri);
    const request = authorizationRequest(env.stack.baseUrl, clientId, env.redirectUri);
    await person.page.goto(request.url);
    await person.page.waitForURL(/\/authorize\?interaction=/);
    const boxes = person.page.getByRole('group', { name: 'Toolsets' }).getByRole('checkbox');
    return { clientId, request, boxes };
  }

  /** Allow, then the code exchanged for an access token. */
  async function allow(clientId: string, verifier: string): Promise<string> {
    await person.page.getByRole('button', { name: 'Allow' }).click();
    await person.page.waitForURL((url) => url.href.startsWith(env.redirectUri));
    const tokens = await tokenRequest(env.stack.baseUrl, {
      grant_type: 'authorization_code',
      code: new URL(person.page.url()).searchParams.get('code')!,
      redirect_uri: env.redirectUri,
      client_id: clientId,
      code_verifier: verifier,
    });
    expect(tokens.status).toBe(200);
    return tokens.body.access_token as string;
  }

  it('an app allowed with only Reading lists only the reading tools, and the dashboard says so', async () => {
    const { clientId, request, boxes } = await openConsent('Reading Helper');
    expect(await boxes.count()).toBe(TOOLSETS.length);
    for (const [index, set] of TOOLSETS.entries())
      expect(await boxes.nth(index).isChecked(), set.name).toBe(DEFAULT_TOOLSETS.includes(set.name));
    await person.page.getByRole('checkbox', { name: 'Writing' }).uncheck();
    const token = await allow(clientId, request.verifier);

    const names = await toolNames({ authorization: `Bearer ${token}` });
    expect(names).toContain('read_range');
    expect(names).not.toContain('write_range');
    expect(names).not.toContain('add_sheet');
    const refused = await callTool(env.stack.baseUrl, { authorization: `Bearer ${token}` }, 'write_range');
    expect(refused.text).toContain('core-write');
    expect(refused.text).toContain('consent screen');

    await person.page.goto(`${env.stack.baseUrl}/dashboard`);
    expect((await tableRow(person.page, 'Reading Helper')).Toolsets).toEqual({ text: 'Reading' });
  });

  it('Allow with no box checked shows the screen again saying so; checking one then connects', async () => {
    const { clientId, request, boxes } = await openConsent('Undecided Helper');
    for (const box of await boxes.all()) await box.uncheck();
    await person.page.getByRole('button', { name: 'Allow' }).click();
    await person.page.waitForURL(/problem=no-toolsets/);
    expect(await person.page.getByRole('alert').textContent()).toContain('Choose at least one toolset');
    await person.page.getByRole('checkbox', { name: 'Files' }).check();
    const token = await allow(clientId, request.verifier);
    const names = await toolNames({ authorization: `Bearer ${token}` });
    expect(names).toEqual(expect.arrayContaining(['create_spreadsheet', 'convert_file']));
    expect(names).not.toContain('read_range');
  });
});
