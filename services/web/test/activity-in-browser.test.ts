import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type BrowserStack,
  createKeyInDashboard,
  newPerson,
  type Person,
  sessionCookieOf,
  signInWithGoogle,
  startBrowserStack,
} from './support/browser-stack.ts';
import { chromiumMissing, expectAccessibleInEveryLook } from './support/chromium.ts';

// The dashboard's Activity (docs/design.md §11.8), in Chromium against the whole stack: what an
// API key changed through the MCP endpoint is listed per spreadsheet with the key's name, a link
// to the spreadsheet and whether undo_change can undo it; undone and unundoable changes say so;
// another person sees none of it. Its Undo button (web → mcp's ChangeUndoService) restores the
// cells in the emulator, is refused naming the cells changed since until "Undo anyway", works by
// keyboard alone, and refuses a forged post.

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

const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

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

  it('undoes a change with the Undo button, by keyboard alone; refuses over cells changed since, naming them, until Undo anyway', async () => {
    const { spreadsheetId } = (await tool('create_spreadsheet', {
      title: 'Undo here',
      values: [['Item'], ['Pens'], ['Paper']],
    })) as { spreadsheetId: string };
    const cells = async (range: string) =>
      ((await tool('read_range', { spreadsheetId, range })) as { values?: unknown[][] }).values ?? [];
    const inkWrite = await tool('write_range', { spreadsheetId, range: 'A2', values: [['Ink']] });
    const glueWrite = await tool('write_range', { spreadsheetId, range: 'A3', values: [['Glue']] });
    // The ranges as the journal lists them (with the tab): what the buttons' names say.
    const { changes } = (await tool('list_changes', { spreadsheetId })) as {
      changes: Array<{ changeId: string; ranges: string[] }>;
    };
    const rangeOf = (id: unknown) => changes.find((change) => change.changeId === id)!.ranges[0]!;
    const [inkRange, glueRange] = [rangeOf(inkWrite.changeId), rangeOf(glueWrite.changeId)];
    expect(await cells('A1:A3')).toEqual([['Item'], ['Ink'], ['Glue']]);

    const { page } = alice;
    const activity = `${env.stack.baseUrl}/dashboard/activity?spreadsheet=${spreadsheetId}`;
    await page.goto(activity);
    const undoInk = page.getByRole('button', {
      name: new RegExp(`^Undo write_range of ${escaped(inkRange)},`),
    });
    expect(await undoInk.count()).toBe(1);
    // Only changes that stand and can be undone have a button: creating the file cannot be undone.
    expect(await page.getByRole('button', { name: /^Undo create_spreadsheet/ }).count()).toBe(0);
    // (axe has looked at the list with its Undo buttons in the first test.)

    // Keyboard only: Tab to the button its name describes, Enter.
    for (let presses = 0; presses < 80; presses++) {
      await page.keyboard.press('Tab');
      const focused = await page.evaluate('document.activeElement.getAttribute("aria-label") || ""');
      if (String(focused).startsWith(`Undo write_range of ${inkRange},`)) break;
    }
    expect(await page.evaluate('document.activeElement.getAttribute("aria-label") || ""')).toMatch(
      /^Undo write_range of /,
    );
    await page.keyboard.press('Enter');
    await page.waitForURL(/notice=undone/);
    expect(await page.getByRole('status').textContent()).toContain(`write_range of ${inkRange} is back`);
    expect(await cells('A1:A3')).toEqual([['Item'], ['Pens'], ['Glue']]);
    const rows = (await page.locator('tbody tr').allTextContents()).map((text) => text.replace(/\s+/g, ' '));
    // The undo is the newest change, the dashboard's; the change it undid says Undone.
    expect(rows[0]).toMatch(/Dashboard \(you\).*undo_change.*undid/);
    expect(rows.some((text) => new RegExp(`write_range ${escaped(inkRange)} .*Undone`).test(text))).toBe(
      true,
    );

    // Someone edits A3 after the agent did: Undo is refused, naming the cell.
    await tool('write_range', { spreadsheetId, range: 'A3', values: [['Tape']] });
    await page.goto(activity);
    await page
      .getByRole('button', { name: new RegExp(`^Undo write_range of ${escaped(glueRange)},`) })
      .last()
      .click();
    const refusal = page.getByRole('alert');
    expect((await refusal.textContent())?.replace(/\s+/g, ' ')).toContain(
      `This cell was changed since change ${glueWrite.changeId}: ${glueRange.split(':')[0]}.`,
    );
    expect(await cells('A3')).toEqual([['Tape']]);
    await expectAccessibleInEveryLook(page, 'the refused undo');
    // Undo anyway, by keyboard too.
    await refusal.getByRole('button', { name: 'Undo anyway' }).focus();
    await page.keyboard.press('Enter');
    await page.waitForURL(/notice=undone/);
    expect(await cells('A1:A3')).toEqual([['Item'], ['Pens'], ['Paper']]);
  });

  it('refuses an Undo post without its CSRF token, with a wrong one, or from another site; and an unknown change is not found', async () => {
    const { spreadsheetId } = (await tool('create_spreadsheet', { title: 'Forged', values: [['kept']] })) as {
      spreadsheetId: string;
    };
    const written = await tool('write_range', { spreadsheetId, range: 'A1', values: [['new']] });
    const { page, context } = alice;
    await page.goto(`${env.stack.baseUrl}/dashboard`);
    // A real token of this session, for another form.
    const otherFormsToken = await page
      .getByRole('form', { name: 'Create API key' })
      .locator('input[name="csrf"]')
      .getAttribute('value');
    await page.goto(`${env.stack.baseUrl}/dashboard/activity`);
    const undoToken = await page
      .locator('form[action="/dashboard/activity/undo"] input[name="csrf"]')
      .first()
      .getAttribute('value');
    const cookie = await sessionCookieOf(context, env.stack.baseUrl);
    const post = (fields: Record<string, string>, origin = env.stack.baseUrl) =>
      fetch(`${env.stack.baseUrl}/dashboard/activity/undo`, {
        method: 'POST',
        redirect: 'manual',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          origin,
          cookie: `sg_session=${cookie}`,
        },
        body: new URLSearchParams(fields).toString(),
      });
    const change = String(written.changeId);
    expect((await post({ change })).status).toBe(403);
    expect((await post({ change, csrf: 'forged' })).status).toBe(403);
    expect((await post({ change, csrf: otherFormsToken! })).status).toBe(403);
    expect((await post({ change, csrf: undoToken! }, 'https://evil.example')).status).toBe(403);
    const values = async () =>
      ((await tool('read_range', { spreadsheetId, range: 'A1' })) as { values?: unknown[][] }).values;
    expect(await values()).toEqual([['new']]);

    // A change that never existed (another person's is the same "not found", mcp's test shows):
    // nothing changed.
    const unknown = await post({ change: '00000000-0000-4000-8000-000000000000', csrf: undoToken! });
    expect(unknown.status).toBe(303);
    await page.goto(`${env.stack.baseUrl}${unknown.headers.get('location')}`);
    expect(await page.getByRole('alert').textContent()).toContain(
      'That change was not found among your changes',
    );
    expect(await values()).toEqual([['new']]);
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
