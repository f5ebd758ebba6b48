import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { type Stack, startStack } from '@sheetgate/test-harness';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedFiles } from './support/google-emulator.ts';
import {
  chromiumMissing,
  createKeyInDashboard,
  launchBrowser,
  newPerson,
  type Person,
  signInToDashboard,
} from './support/person-in-browser.ts';

// Issue 23, least privilege with Google: GOOGLE_SCOPE_MODE=picked-files in Debian's Chromium
// against the whole stack as `pnpm start` runs it. The person connects Google with drive.file
// alone, chooses spreadsheets with the Google Picker on the dashboard (the emulator's stand-in,
// loaded as Google's is), and an MCP client's tools reach exactly the chosen ones; removing one
// takes it off the dashboard's list. A standard-mode stack is the control: no Picker, no widened
// CSP, every spreadsheet reachable as before.

const missing = chromiumMissing();
if (missing) console.warn(`picked-files browser tests skipped: ${missing}`);

const NOT_PICKED = 'Sheetgate cannot reach this spreadsheet';

let chromium: Browser;
/** What the dashboard's console said: a CSP violation would show here. */
const consoleLines: string[] = [];

async function mcpClient(stack: Stack, apiKey: string): Promise<Client> {
  const client = new Client({ name: 'picked-files e2e', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${stack.baseUrl}/api/mcp`), {
      requestInit: { headers: { 'x-api-key': apiKey } },
    }),
  );
  return client;
}

const textOf = (result: CallToolResult) =>
  result.content.map((part) => (part.type === 'text' ? part.text : '')).join('\n');

async function readA1(client: Client, spreadsheetId: string) {
  return (await client.callTool({
    name: 'read_range',
    arguments: { spreadsheetId, range: 'A1' },
  })) as CallToolResult;
}

async function listedNames(client: Client): Promise<string[]> {
  const listed = (await client.callTool({ name: 'list_spreadsheets', arguments: {} })) as CallToolResult;
  return (listed.structuredContent as { spreadsheets: Array<{ name: string }> }).spreadsheets
    .map((file) => file.name)
    .sort();
}

/** "Choose spreadsheets", then the names ticked in the Picker's frame and its "Select". */
async function chooseInPicker(page: Page, names: string[]): Promise<void> {
  await page.getByRole('button', { name: 'Choose spreadsheets' }).click();
  const picker = page.frameLocator('iframe[title="Google Picker"]');
  for (const name of names) await picker.getByLabel(name, { exact: true }).check();
  await picker.getByRole('button', { name: 'Select' }).click();
  await page.waitForURL(/\/dashboard\?notice=files_chosen$/);
}

const chosenRows = (page: Page) =>
  page
    .getByRole('table')
    .filter({ has: page.getByText('Spreadsheets you chose') })
    .locator('tbody tr');

beforeAll(async () => {
  if (missing) return;
  chromium = await launchBrowser();
}, 60_000);
afterAll(async () => {
  await chromium?.close();
});

describe.skipIf(Boolean(missing))('GOOGLE_SCOPE_MODE=picked-files', () => {
  let stack: Stack;
  let person: Person;
  let client: Client;
  let budget: string;
  let plans: string;

  beforeAll(async () => {
    stack = await startStack({ GOOGLE_SCOPE_MODE: 'picked-files' });
    [budget, plans] = (await seedFiles(stack, 'alice@example.com', [
      { name: 'Budget', sheets: [{ title: 'Sheet1', values: [['rent']] }] },
      { name: 'Plans', sheets: [{ title: 'Sheet1', values: [['trip']] }] },
    ])) as [string, string];
    person = await newPerson(chromium);
    person.page.on('console', (message) => consoleLines.push(message.text()));
    person.context.on('weberror', (error) => consoleLines.push(String(error.error())));
    await signInToDashboard(person.page, stack.baseUrl, 'alice@example.com');
    client = await mcpClient(stack, await createKeyInDashboard(person.page, stack.baseUrl, 'picked files'));
  }, 120_000);
  afterAll(async () => {
    await client?.close();
    await person?.context.close();
    await stack?.stop();
  });

  it('connects Google with drive.file alone and says so, with no part missing', async () => {
    const { page } = person;
    await page.goto(`${stack.baseUrl}/dashboard`);
    const google = page.getByRole('region', { name: 'Google connection' });
    expect(await google.textContent()).toContain(
      'Allowed: Read and edit only the spreadsheets you choose for Sheetgate and the files it creates',
    );
    expect(await google.textContent()).not.toContain('Not allowed');
    expect(await google.getByRole('alert').count()).toBe(0);
  });

  it('widens the dashboard’s CSP by exactly the Picker’s origin (the emulator’s), for script and frame', async () => {
    const response = await person.page.goto(`${stack.baseUrl}/dashboard`);
    const csp = (await response?.headerValue('content-security-policy')) ?? '';
    const emulator = new URL(stack.emulatorUrl).origin;
    expect(csp).toContain(`script-src 'self' ${emulator};`);
    expect(csp).toContain(`frame-src ${emulator}`);
    expect(csp).toContain("connect-src 'self';");
    expect(csp).toContain("default-src 'none'");
    // Other pages keep the strict policy.
    const home = await fetch(`${stack.baseUrl}/`);
    expect(home.headers.get('content-security-policy')).not.toContain(emulator);
  });

  it('answers a spreadsheet that was not chosen with the dashboard action, then reads it once chosen', async () => {
    const before = await readA1(client, budget);
    expect(before.isError).toBe(true);
    expect(textOf(before)).toContain(NOT_PICKED);
    expect(textOf(before)).toContain(`(Choose spreadsheets) at ${stack.baseUrl}/dashboard`);
    expect(await listedNames(client)).toEqual([]);

    const { page } = person;
    await page.goto(`${stack.baseUrl}/dashboard`);
    await chooseInPicker(page, ['Budget']);
    expect(await chosenRows(page).allTextContents()).toEqual([expect.stringContaining('Budget')]);

    const after = await readA1(client, budget);
    expect(after.isError, textOf(after)).toBeFalsy();
    expect((after.structuredContent as { values: unknown[][] }).values).toEqual([['rent']]);
    expect(await listedNames(client)).toEqual(['Budget']);
    const other = await readA1(client, plans);
    expect(other.isError).toBe(true);
    expect(textOf(other)).toContain(NOT_PICKED);
    // The Picker loaded, framed and answered within the page's CSP.
    expect(consoleLines.filter((line) => /Content Security Policy|Refused to/.test(line))).toEqual([]);
  });

  it('reads the other spreadsheet once it is chosen too', async () => {
    const { page } = person;
    await page.goto(`${stack.baseUrl}/dashboard`);
    await chooseInPicker(page, ['Plans']);
    const rows = await chosenRows(page).allTextContents();
    expect(rows).toHaveLength(2);
    const read = await readA1(client, plans);
    expect(read.isError, textOf(read)).toBeFalsy();
    expect((read.structuredContent as { values: unknown[][] }).values).toEqual([['trip']]);
    expect(await listedNames(client)).toEqual(['Budget', 'Plans']);
  });

  it('refuses the Picker’s token and the choice forms without this page’s token for that form, or from another site', async () => {
    const { page, context } = person;
    await page.goto(`${stack.baseUrl}/dashboard`);
    const tokenCsrf = (await page.locator('#picker').getAttribute('data-token-csrf')) ?? '';
    expect(tokenCsrf).not.toBe('');
    const before = await chosenRows(page).allTextContents();
    const post = (path: string, form: Record<string, string>, origin = stack.baseUrl) =>
      context.request.post(`${stack.baseUrl}${path}`, { form, headers: { origin }, maxRedirects: 0 });

    const noToken = await post('/dashboard/picker-token', { csrf: 'forged' });
    expect(noToken.status()).toBe(403);
    expect(await noToken.text()).not.toContain('accessToken');
    const crossSite = await post('/dashboard/picker-token', { csrf: tokenCsrf }, 'https://evil.example');
    expect(crossSite.status()).toBe(403);
    // A token for another form does not choose files, nor remove one.
    expect(
      (
        await post('/dashboard/picked-files', { csrf: tokenCsrf, file_id: '1forged', file_name: 'Forged' })
      ).status(),
    ).toBe(403);
    expect((await post('/dashboard/picked-files/remove', { csrf: tokenCsrf, file: budget })).status()).toBe(
      403,
    );
    await page.goto(`${stack.baseUrl}/dashboard`);
    expect(await chosenRows(page).allTextContents()).toEqual(before);
    // With its own token, from this site, the Picker's token is answered, never cached.
    const answered = await post('/dashboard/picker-token', { csrf: tokenCsrf });
    expect(answered.status()).toBe(200);
    expect(answered.headers()['cache-control']).toBe('no-store');
    expect(((await answered.json()) as { accessToken: string }).accessToken).not.toBe('');
  });

  it('Remove takes a spreadsheet off the list, and says Google’s access is Google’s to revoke', async () => {
    const { page } = person;
    await page.goto(`${stack.baseUrl}/dashboard`);
    await page.getByRole('button', { name: 'Remove Budget' }).click();
    await page.waitForURL(/\/dashboard\?notice=file_forgotten$/);
    expect(await page.getByRole('status').first().textContent()).toContain('Google keeps its access');
    const rows = await chosenRows(page).allTextContents();
    expect(rows).toHaveLength(1);
    expect(rows[0]).toContain('Plans');
    expect(await page.getByRole('link', { name: /Third-party apps/ }).getAttribute('href')).toBe(
      'https://myaccount.google.com/connections',
    );
  });
});

describe.skipIf(Boolean(missing))('GOOGLE_SCOPE_MODE=standard (the default) is as before', () => {
  let stack: Stack;
  let person: Person;
  let client: Client;
  let budget: string;

  beforeAll(async () => {
    stack = await startStack();
    [budget] = (await seedFiles(stack, 'alice@example.com', [
      { name: 'Budget', sheets: [{ title: 'Sheet1', values: [['rent']] }] },
    ])) as [string];
    person = await newPerson(chromium);
    await signInToDashboard(person.page, stack.baseUrl, 'alice@example.com');
    client = await mcpClient(stack, await createKeyInDashboard(person.page, stack.baseUrl, 'standard'));
  }, 120_000);
  afterAll(async () => {
    await client?.close();
    await person?.context.close();
    await stack?.stop();
  });

  it('offers no Picker and keeps the strict CSP; every spreadsheet is reachable', async () => {
    const response = await person.page.goto(`${stack.baseUrl}/dashboard`);
    const csp = (await response?.headerValue('content-security-policy')) ?? '';
    expect(csp).not.toContain('frame-src');
    expect(csp).toContain("script-src 'self';");
    expect(await person.page.getByRole('heading', { name: 'Spreadsheets Sheetgate can reach' }).count()).toBe(
      0,
    );
    expect(await person.page.getByRole('region', { name: 'Google connection' }).textContent()).toContain(
      'Allowed: List and read files in your Drive',
    );
    const read = await readA1(client, budget);
    expect(read.isError, textOf(read)).toBeFalsy();
    expect(await listedNames(client)).toEqual(['Budget']);
  });
});
