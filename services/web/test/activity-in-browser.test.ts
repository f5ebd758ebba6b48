import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type BrowserStack,
  createKeyInDashboard,
  newPerson,
  type Person,
  signInWithGoogle,
  startBrowserStack,
} from './support/browser-stack.ts';
import { chromiumMissing, expectAccessibleInEveryLook } from './support/chromium.ts';

// The dashboard's Activity (docs/design.md §11.8), in Chromium against the whole stack: what an
// API key changed through the MCP endpoint is listed per spreadsheet with the key's name, a link
// to the spreadsheet and whether undo_change can undo it; undone and unundoable changes say so;
// another person sees none of it.

const missing = chromiumMissing();
if (missing) console.warn(`activity browser tests skipped: ${missing}`);

let env: BrowserStack;
let alice: Person;
let key: string;

/** A tools/call with the API key, answered with the tool's structured result. */
async function tool(name: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
  const response = await fetch(`${env.stack.baseUrl}/api/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-06-18',
      'x-api-key': key,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } }),
  });
  const text = await response.text();
  const json = text.startsWith('{')
    ? JSON.parse(text)
    : JSON.parse(
        text
          .split('\n')
          .filter((line) => line.startsWith('data:'))
          .map((line) => line.slice(5))
          .join(''),
      );
  expect(json.result, text).toBeDefined();
  expect(json.result.isError, text).not.toBe(true);
  return json.result.structuredContent;
}

beforeAll(async () => {
  if (missing) return;
  env = await startBrowserStack();
  alice = await newPerson(env);
  await alice.page.goto(`${env.stack.baseUrl}/login`);
  await signInWithGoogle(alice.page, 'alice@example.com');
  key = await createKeyInDashboard(alice.page, {
    name: 'Nightly import',
    access: 'Read and write',
    toolsets: ['Reading', 'Writing', 'Structure and formatting', 'Files'],
  });
}, 120_000);

afterAll(async () => {
  await env?.stop();
});

describe.skipIf(Boolean(missing))('Activity on the dashboard', { timeout: 120_000 }, () => {
  it("lists a key's changes per spreadsheet, with the key's name, the spreadsheet's link and what undo can do", async () => {
    const { spreadsheetId } = (await tool('create_spreadsheet', {
      title: 'Imports',
      values: [['Item'], ['Pens']],
    })) as { spreadsheetId: string };
    const written = await tool('write_range', { spreadsheetId, range: 'A2', values: [['Ink']] });
    const kept = await tool('write_range', { spreadsheetId, range: 'A3', values: [['Paper']] });
    await tool('undo_change', { changeId: written.changeId });
    const { sheets } = (await tool('get_spreadsheet', { spreadsheetId })) as {
      sheets: Array<{ sheetId: number }>;
    };
    await tool('insert_dimension', {
      spreadsheetId,
      sheetId: sheets[0]!.sheetId,
      dimension: 'ROWS',
      startIndex: 5,
      count: 1,
    });

    const { page } = alice;
    await page.goto(`${env.stack.baseUrl}/dashboard`);
    await page.getByRole('link', { name: 'see your activity' }).click();
    await page.waitForURL(/\/dashboard\/activity$/);
    const section = page.getByRole('region', { name: `Spreadsheet ${spreadsheetId}` });
    expect(
      await section
        .getByRole('link', { name: `Open spreadsheet ${spreadsheetId} in Google Sheets` })
        .getAttribute('href'),
    ).toBe(`https://docs.google.com/spreadsheets/d/${spreadsheetId}/edit`);
    const rows = await section.locator('tbody tr').allTextContents();
    const row = (needle: string) =>
      rows.map((text) => text.replace(/\s+/g, ' ')).find((text) => text.includes(needle));
    // Newest first: the insert, the undo, the kept write, the undone write, the creation.
    expect(rows).toHaveLength(5);
    expect(row('insert_dimension')).toContain('Undo is not available for insert_dimension');
    expect(row(String(kept.changeId))).toMatch(/API key Nightly import.*write_range.*A3.*Can be undone/);
    expect(row(`undid ${written.changeId}`)).toContain('undo_change');
    expect(
      rows.map((text) => text.replace(/\s+/g, ' ')).some((text) => /write_range.*A2.*Undone/.test(text)),
    ).toBe(true);
    await expectAccessibleInEveryLook(page, '/dashboard/activity');

    // Narrowed to the spreadsheet, the same changes; another person has none.
    await page.getByRole('link', { name: 'Only this spreadsheet' }).click();
    expect(await page.locator('tbody tr').count()).toBe(5);
    const bob = await newPerson(env);
    try {
      await bob.page.goto(`${env.stack.baseUrl}/login`);
      await signInWithGoogle(bob.page, 'bob@example.com');
      await bob.page.goto(`${env.stack.baseUrl}/dashboard/activity?spreadsheet=${spreadsheetId}`);
      expect(await bob.page.locator('main').textContent()).toContain('No changes yet.');
    } finally {
      await bob.context.close();
    }
  });

  it('sends a signed-out browser to sign in', async () => {
    const stranger = await newPerson(env);
    try {
      await stranger.page.goto(`${env.stack.baseUrl}/dashboard/activity`);
      await stranger.page.waitForURL(/\/login$/);
    } finally {
      await stranger.context.close();
    }
  });
});
