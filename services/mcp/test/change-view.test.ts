import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import AxeBuilder from '@axe-core/playwright';
import type { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { createChangeJournalClient } from '@sheetgate/proto';
import { chromiumMissing, launchChromium } from '@sheetgate/test-harness';
import { type Browser, chromium, type Frame, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appOnlyTools } from '../src/apps/app-only-tools.ts';
import { SHEETGATE_VIEWS } from '../src/apps/views.ts';
import type { ToolDeps } from '../src/tools/kit/tool-deps.ts';
import {
  type AppsHost,
  openAppsHost,
  type ShownView,
  type ToolResult,
} from './support/apps-host/apps-host.ts';
import { type McpUnderTest, startMcpUnderTest } from './support/stack.ts';

// The change view (docs/design.md §11.11) in Chromium, hosted by the official SDK's AppBridge in a
// sandboxed iframe (support/apps-host), against real auth, mcp and Google emulator processes: the
// host's MCP client holds a real credential and forwards the view's calls (read_change_cells,
// undo_change) to the service. What the view shows is checked against the journal (auth's
// ChangeJournalService) and the emulator's cells.

const missing = chromiumMissing();
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
// The README's screenshot is refreshed on request (UPDATE_SCREENSHOTS=1), as services/web's are.
const SCREENSHOTS = process.env.UPDATE_SCREENSHOTS
  ? path.join(repoRoot, 'docs/screenshots')
  : path.join(os.tmpdir(), 'sheetgate-screenshots');

const HTML_CELL = '<img src="https://example.invalid/x.png">';
const PLAN = [
  ['Item', 'Amount', 'Note'],
  ['Rent', 1200, 'monthly'],
  ['Food', 300, HTML_CELL],
  ['Travel', 150, '=B2+B3'],
];
const TABS = ['Write', 'Refuse', 'Keys', 'Loss', 'Wide', 'Era legacy', 'Era modern'];

let stack: McpUnderTest;
let browser: Browser | undefined;
let token: string;
let userId: string;
let sessionCookie: string;
let spreadsheetId: string;
const hosts: AppsHost[] = [];

beforeAll(async () => {
  [stack, browser] = await Promise.all([startMcpUnderTest(), missing ? undefined : launchChromium(chromium)]);
  ({ userId, sessionCookie } = await stack.signIn('alice@example.com'));
  token = await stack.sign({ sub: userId });
  [spreadsheetId] = (await stack.seed('alice@example.com', [
    { name: 'Change view', sheets: TABS.map((title) => ({ title, values: PLAN })) },
  ])) as [string];
});
afterAll(async () => {
  await Promise.all(hosts.map((host) => host.close()));
  await browser?.close();
  await stack?.stop();
});

async function host(
  options: {
    era?: 'legacy' | 'modern';
    theme?: 'light' | 'dark';
    credential?: string;
    sandboxPolicy?: 'none';
  } = {},
) {
  const opened = await openAppsHost({
    chromium: browser!,
    mcpUrl: stack.mcpUrl,
    credential: options.credential ?? token,
    era: options.era ?? 'legacy',
    ...(options.theme ? { theme: options.theme } : {}),
    ...(options.sandboxPolicy ? { sandboxPolicy: options.sandboxPolicy } : {}),
  });
  hosts.push(opened);
  return opened;
}

/** A call as the model makes it, through the host's own client: its structured answer. */
async function call(on: AppsHost, name: string, args: Record<string, unknown>) {
  const result = (await on.client.callTool({ name, arguments: args })) as ToolResult;
  if (result.isError) throw new Error(`${name}: ${result.content?.[0]?.text}`);
  return result.structuredContent!;
}

/** The cells of a range as the emulator holds them (FORMULA rendering). */
async function sheetCells(range: string): Promise<unknown[][]> {
  const google = await stack.googleAccessToken(userId);
  const response = await fetch(
    `${stack.emulatorUrl}/v4/spreadsheets/${spreadsheetId}/values/${encodeURIComponent(range)}?valueRenderOption=FORMULA`,
    { headers: { authorization: `Bearer ${google}` } },
  );
  return ((await response.json()) as { values?: unknown[][] }).values ?? [];
}

/** A journal entry's payload as auth keeps it (ChangeJournalService.GetChange). */
async function journalPayload(changeId: string) {
  const journal = createChangeJournalClient({ address: stack.grpcAddress, serviceToken: stack.serviceToken });
  try {
    const found = await journal.getChange({ userId, changeId, credentialId: '', spreadsheetId: '' });
    return JSON.parse(found.payload.toString('utf8')) as {
      kind: string;
      areas: Array<{ top: number; left: number; before: unknown[][]; after: unknown[][] }>;
    };
  } finally {
    journal.close();
  }
}

const MARKS = / \((altered|changed since)\)$/;

/** One side's grid as shown: column letters, row numbers, each cell's text (its mark's words left out). */
async function grid(view: Frame, side: 'before' | 'after') {
  const table = view.locator(`#${side}`);
  const rows = table.locator('tbody tr');
  const cells: string[][] = [];
  for (let row = 0; row < (await rows.count()); row++)
    cells.push((await rows.nth(row).locator('td').allTextContents()).map((text) => text.replace(MARKS, '')));
  return {
    columns: (await table.locator('thead th').allTextContents()).slice(1),
    rows: await table.locator('tbody th').allTextContents(),
    cells,
  };
}

/** The A1 addresses of one side's cells carrying a mark (`c` altered, `s` changed since). */
async function marked(view: Frame, side: 'before' | 'after', mark: 'c' | 's') {
  const found = view.locator(`#${side} td.${mark}`);
  const addresses: string[] = [];
  for (let index = 0; index < (await found.count()); index++)
    addresses.push((await found.nth(index).getAttribute('data-a1'))!);
  return addresses.sort();
}

const text = (values: unknown[][]) => values.map((row) => row.map((cell) => String(cell ?? '')));

/** Waits until the view drew the window `range` of cells. */
async function drawn(view: Frame, range: string) {
  await view.locator('#area').filter({ hasText: range }).waitFor();
}

describe.skipIf(missing)('the change view', () => {
  describe.each(['legacy', 'modern'] as const)('in a host speaking the %s era', (era) => {
    it("shows a change's cells before (the journal's) and now (the sheet's) side by side, the altered ones marked", async () => {
      const tab = `Era ${era}`;
      const on = await host({ era });
      const { changeId } = await call(on, 'write_range', {
        spreadsheetId,
        range: `'${tab}'!B2:C3`,
        values: [
          [1300, 'monthly'],
          [350, '<b>bold</b>'],
        ],
      });
      const shown = await on.show('list_changes', { spreadsheetId, pageSize: 5 });
      try {
        const range = `'${tab}'!B2:C3`;
        await drawn(shown.view, range);
        const payload = await journalPayload(String(changeId));
        const [area] = payload.areas;
        const before = await grid(shown.view, 'before');
        expect(before.columns).toEqual(['B', 'C']);
        expect(before.rows).toEqual(['2', '3']);
        expect(before.cells).toEqual(text(area!.before));
        expect(before.cells).toEqual([
          ['1200', 'monthly'],
          ['300', HTML_CELL],
        ]);
        const after = await grid(shown.view, 'after');
        expect(after.cells).toEqual(text(await sheetCells(range)));
        expect(after.cells).toEqual(text(area!.after));
        // Altered: what the write changed; C2 was written as it was.
        expect(await marked(shown.view, 'before', 'c')).toEqual(['B2', 'B3', 'C3']);
        expect(await marked(shown.view, 'after', 'c')).toEqual(['B2', 'B3', 'C3']);
        expect(await marked(shown.view, 'after', 's')).toEqual([]);
        // The first change of the list is shown, and the view asked the host for it.
        const asked = shown.calls.filter((made) => made.params.name === 'read_change_cells');
        expect(asked.map((made) => made.params.arguments)).toEqual([{ changeId, area: 0, offset: 0 }]);
        expect(await shown.view.getByRole('button', { name: 'Undo this change' }).isVisible()).toBe(true);
      } finally {
        await shown.close();
      }
    });
  });

  it('undoes the change shown by its Undo button, through the host, and the emulator holds the cells again', async () => {
    const on = await host();
    const { changeId } = await call(on, 'write_range', {
      spreadsheetId,
      range: 'Write!A2:B3',
      values: [
        ['Lease', 1500],
        ['Groceries', 320],
      ],
    });
    expect(text(await sheetCells('Write!A2:B3'))).toEqual([
      ['Lease', '1500'],
      ['Groceries', '320'],
    ]);
    const shown = await on.show('list_changes', { spreadsheetId, pageSize: 1 });
    try {
      await drawn(shown.view, 'Write!A2:B3');
      await screenshot(shown, 'change-view.png');
      await shown.view.getByRole('button', { name: 'Undo this change' }).click();
      await expect
        .poll(() => shown.view.locator('#status').textContent())
        .toContain(`Undid change ${changeId}`);
      expect(text(await sheetCells('Write!A2:B3'))).toEqual([
        ['Rent', '1200'],
        ['Food', '300'],
      ]);
      const undo = shown.calls.find((made) => made.params.name === 'undo_change');
      expect(undo?.params.arguments).toEqual({ changeId });
      // Drawn again: now as before, the change undone, no Undo offered.
      await expect
        .poll(async () => (await grid(shown.view, 'after')).cells)
        .toEqual([
          ['Rent', '1200'],
          ['Food', '300'],
        ]);
      await expect.poll(() => shown.view.locator('#status').textContent()).toContain('Undone by change');
      expect(await shown.view.getByRole('button', { name: 'Undo this change' }).isHidden()).toBe(true);
      expect(await shown.view.locator('#changes tbody tr').first().textContent()).toContain('Undone');
    } finally {
      await shown.close();
    }
  });

  it('shows the refusal of cells changed since in words, marks them, and undoes anyway only when asked', async () => {
    const on = await host();
    const { changeId } = await call(on, 'write_range', {
      spreadsheetId,
      range: 'Refuse!B2:B3',
      values: [[1], [2]],
    });
    await call(on, 'write_range', { spreadsheetId, range: 'Refuse!B3', values: [[99]] });
    // The model asked to undo it: undo_change refused, and the view says why beside the cells.
    const shown = await on.show('undo_change', { changeId });
    try {
      expect(shown.result.isError).toBe(true);
      await drawn(shown.view, 'Refuse!B2:B3');
      const alert = shown.view.getByRole('alert');
      expect(await alert.textContent()).toContain(
        `Not undone: this was changed since change ${changeId}: Refuse!B3.`,
      );
      expect(await marked(shown.view, 'after', 's')).toEqual(['B3']);
      expect((await grid(shown.view, 'after')).cells).toEqual([['1'], ['99']]);
      expect(await shown.view.getByRole('button', { name: 'Undo this change' }).isHidden()).toBe(true);
      // Keeping the later edits changes nothing; Undo comes back.
      await shown.view.getByRole('button', { name: 'Keep the later edits' }).click();
      expect(await shown.view.locator('#status').textContent()).toContain('the later edits are kept');
      expect(text(await sheetCells('Refuse!B2:B3'))).toEqual([['1'], ['99']]);
      // Undo again from the view: refused again, then forced.
      await shown.view.getByRole('button', { name: 'Undo this change' }).click();
      await shown.view.getByRole('button', { name: 'Undo anyway' }).waitFor();
      expect(await alert.textContent()).toContain('Refuse!B3');
      await shown.view.getByRole('button', { name: 'Undo anyway' }).click();
      await expect
        .poll(() => shown.view.locator('#status').textContent())
        .toContain(`Undid change ${changeId}`);
      expect(text(await sheetCells('Refuse!B2:B3'))).toEqual([['1200'], ['300']]);
      const undos = shown.calls.filter((made) => made.params.name === 'undo_change');
      expect(undos.map((made) => made.params.arguments)).toEqual([{ changeId }, { changeId, force: true }]);
    } finally {
      await shown.close();
    }
  });

  it("shows a destructive dry run's cells that would be lost: before as the sheet holds them, nothing after", async () => {
    const on = await host();
    const clear = await on.show('clear_range', { spreadsheetId, range: 'Loss!A1:C4', dryRun: true });
    try {
      await drawn(clear.view, 'Loss!A1:C4');
      expect(await clear.view.locator('h1').textContent()).toBe(
        'Dry run: clear_range would clear the values of Loss!A1:C4',
      );
      expect(await clear.view.locator('#status').textContent()).toContain(
        String(clear.result.structuredContent!.wouldLose),
      );
      expect((await grid(clear.view, 'before')).cells).toEqual(text(await sheetCells('Loss!A1:C4')));
      expect((await grid(clear.view, 'after')).cells).toEqual(PLAN.map((row) => row.map(() => '')));
      expect(await marked(clear.view, 'before', 'c')).toHaveLength(12);
      expect(await clear.view.getByRole('button', { name: 'Undo this change' }).isHidden()).toBe(true);
    } finally {
      await clear.close();
    }
    const tabs = await call(on, 'get_spreadsheet', { spreadsheetId });
    const loss = (tabs.sheets as Array<{ sheetId: number; title: string }>).find(
      (tab) => tab.title === 'Loss',
    )!;
    const deletion = await on.show('delete_dimension', {
      spreadsheetId,
      sheetId: loss.sheetId,
      dimension: 'ROWS',
      startIndex: 1,
      endIndex: 3,
      dryRun: true,
    });
    try {
      await drawn(deletion.view, 'Loss!A2:');
      expect((await grid(deletion.view, 'before')).rows).toEqual(['2', '3']);
      expect((await grid(deletion.view, 'before')).cells.map((row) => row.slice(0, 3))).toEqual(
        text(await sheetCells('Loss!A2:C3')),
      );
      expect(await deletion.view.locator('#after').isHidden()).toBe(true);
      expect(await deletion.view.locator('#legend').textContent()).toContain('The cells would be deleted.');
      // Nothing was changed.
      expect(text(await sheetCells('Loss!A1:C4'))).toEqual(text(PLAN));
    } finally {
      await deletion.close();
    }
  });

  it('works by keyboard alone: the list, the grids by arrows, and Undo by Enter', async () => {
    const on = await host();
    const { changeId } = await call(on, 'write_range', {
      spreadsheetId,
      range: 'Keys!A1:B2',
      values: [
        ['Thing', 'Sum'],
        ['Flat', 900],
      ],
    });
    const shown = await on.show('list_changes', { spreadsheetId, pageSize: 2 });
    try {
      await drawn(shown.view, 'Keys!A1:B2');
      const keys = shown.page.keyboard;
      const focused = () =>
        shown.view.evaluate(
          '(document.activeElement.dataset.a1 ? document.activeElement.closest("table").id + " " + document.activeElement.dataset.a1 : document.activeElement.getAttribute("aria-label") || document.activeElement.textContent)',
        );
      const tabTo = async (name: string) => {
        for (let presses = 0; presses < 12 && (await focused()) !== name; presses++) await keys.press('Tab');
        expect(await focused()).toBe(name);
      };
      await keys.press('Tab');
      expect(await focused()).toBe('Open in Google Sheets');
      await keys.press('Tab');
      expect(await focused()).toBe('Undo this change');
      await tabTo('before A1');
      await keys.press('ArrowDown');
      await keys.press('ArrowRight');
      expect(await focused()).toBe('before B2');
      await keys.press('Home');
      expect(await focused()).toBe('before A2');
      await keys.press('Tab');
      expect(await focused()).toBe('after A1');
      await keys.press('End');
      expect(await focused()).toBe('after B1');
      // Back to the list's buttons, each named with what its change did and when.
      await keys.press('Shift+Tab');
      await keys.press('Shift+Tab');
      expect(String(await focused())).toMatch(/^Show the cells of: .+, \d{4}-\d\d-\d\d \d\d:\d\d$/);
      // Undo by Enter, and the focus lands on what happened.
      await tabTo('Undo this change');
      await keys.press('Enter');
      await expect
        .poll(() => shown.view.locator('#status').textContent())
        .toContain(`Undid change ${changeId}`);
      expect(await shown.view.evaluate('document.activeElement.id')).toBe('status');
      expect(text(await sheetCells('Keys!A1:B2'))).toEqual([
        ['Item', 'Amount'],
        ['Rent', '1200'],
      ]);
    } finally {
      await shown.close();
    }
  });

  it('has no serious or critical WCAG A/AA violation, light and dark, with cells marked and a refusal shown', async () => {
    const on = await host();
    const { changeId } = await call(on, 'write_range', {
      spreadsheetId,
      range: 'Wide!C2:C3',
      values: [['a'], ['b']],
    });
    await call(on, 'write_range', { spreadsheetId, range: 'Wide!C2', values: [['later']] });
    for (const theme of ['light', 'dark'] as const) {
      const shown = await (await host({ theme })).show('undo_change', { changeId });
      try {
        await drawn(shown.view, 'Wide!C2:C3');
        await shown.view.getByRole('button', { name: 'Undo anyway' }).waitFor();
        expect(await severeViolations(shown.page), theme).toEqual([]);
        const background = await shown.view.evaluate('getComputedStyle(document.body).backgroundColor');
        expect(background, theme).toBe(theme === 'dark' ? 'rgb(27, 27, 27)' : 'rgb(255, 255, 255)');
      } finally {
        await shown.close();
      }
    }
  });

  describe('holds nothing from outside', () => {
    it('writes a cell holding HTML as text, and the view holds no credential', async () => {
      const shown = await (await host()).show('clear_range', {
        spreadsheetId,
        range: 'Loss!C3',
        dryRun: true,
      });
      try {
        await drawn(shown.view, 'Loss!C3:C3');
        expect((await grid(shown.view, 'before')).cells).toEqual([[HTML_CELL]]);
        expect(await shown.view.locator('img').count()).toBe(0);
        expect(shown.outside).toEqual([]);
        expect(await shown.view.evaluate('document.cookie')).toBe('');
        expect(await shown.view.content()).not.toContain(token);
        expect(shown.calls.every((made) => made.method === 'tools/call')).toBe(true);
      } finally {
        await shown.close();
      }
    });

    it('blocks an image injected into the view, by the policy the host built and by its own', async () => {
      for (const sandboxPolicy of [undefined, 'none'] as const) {
        const shown = await (await host(sandboxPolicy ? { sandboxPolicy } : {})).show('clear_range', {
          spreadsheetId,
          range: 'Loss!A1:B2',
          dryRun: true,
        });
        try {
          await drawn(shown.view, 'Loss!A1:B2');
          expect(await injectImage(shown.view, 'https://example.invalid/x.png')).toEqual({
            blockedURI: 'https://example.invalid/x.png',
            directive: 'img-src',
          });
          expect(shown.outside).toEqual([]);
        } finally {
          await shown.close();
        }
      }
    });
  });
});

describe("read_change_cells, the view's own tool", () => {
  let plain: LegacyClient;
  let ui: AppsHost;
  beforeAll(async () => {
    plain = await stack.connectClient(userId, 'plain-host');
    ui = await openAppsHost({
      chromium: undefined as never,
      mcpUrl: stack.mcpUrl,
      credential: token,
      era: 'legacy',
    });
    hosts.push(ui);
  });
  afterAll(() => plain?.close());

  it('is in a view as app-only, and every app-only tool is in one', () => {
    const named = SHEETGATE_VIEWS.flatMap((view) => view.appOnlyTools ?? []);
    expect(appOnlyTools({} as ToolDeps).map((tool) => tool.name)).toEqual(named);
    expect(named).toContain('read_change_cells');
  });

  it('is neither listed nor callable for a host without MCP Apps, and listed for views only to one with it', async () => {
    const tools = (await plain.listTools()).tools;
    expect(tools.map((tool) => tool.name)).not.toContain('read_change_cells');
    expect(tools.filter((tool) => tool._meta !== undefined)).toEqual([]);
    await expect(
      plain.callTool({ name: 'read_change_cells', arguments: { changeId: 'x' } }),
    ).rejects.toMatchObject({ code: -32602 });
    const listed = (await ui.client.listTools()).tools;
    expect(listed.find((tool) => tool.name === 'read_change_cells')?._meta).toEqual({
      ui: { resourceUri: 'ui://sheetgate/change', visibility: ['app'] },
      'ui/resourceUri': 'ui://sheetgate/change',
    });
    for (const name of ['list_changes', 'undo_change', 'clear_range', 'delete_dimension', 'delete_sheet'])
      expect(listed.find((tool) => tool.name === name)?._meta?.ui, name).toEqual({
        resourceUri: 'ui://sheetgate/change',
      });
  });

  it("finds no other person's change, as undo_change does", async () => {
    const { changeId } = await call(ui, 'write_range', { spreadsheetId, range: 'Wide!A5', values: [['x']] });
    const bob = (await stack.signIn('bob@example.com')).userId;
    const bobs = await openAppsHost({
      chromium: undefined as never,
      mcpUrl: stack.mcpUrl,
      credential: await stack.sign({ sub: bob }),
      era: 'legacy',
    });
    hosts.push(bobs);
    const result = (await bobs.client.callTool({
      name: 'read_change_cells',
      arguments: { changeId },
    })) as ToolResult;
    expect(result.isError).toBe(true);
    expect(result.content?.[0]?.text).toBe(
      `Change ${changeId} was not found among your changes (list_changes lists them; changes are kept for a limited time).`,
    );
  });

  it("shows a change only to a credential with its tool's toolset, and a dry run's loss likewise", async () => {
    const tabs = await call(ui, 'get_spreadsheet', { spreadsheetId });
    const wide = (tabs.sheets as Array<{ sheetId: number; title: string }>).find(
      (tab) => tab.title === 'Wide',
    )!;
    await call(ui, 'write_range', { spreadsheetId, range: 'Wide!E1:E2', values: [['e1'], ['e2']] });
    const { changeId } = await call(ui, 'delete_dimension', {
      spreadsheetId,
      sheetId: wide.sheetId,
      dimension: 'COLUMNS',
      startIndex: 4,
      endIndex: 5,
    });
    const { secret } = await stack.createApiKey(sessionCookie, { toolsets: ['core-read', 'core-write'] });
    const keyed = await openAppsHost({
      chromium: undefined as never,
      mcpUrl: stack.mcpUrl,
      credential: secret,
      era: 'legacy',
    });
    hosts.push(keyed);
    const refused = (await keyed.client.callTool({
      name: 'read_change_cells',
      arguments: { changeId },
    })) as ToolResult;
    expect(refused.isError).toBe(true);
    expect(refused.content?.[0]?.text).toMatch(
      new RegExp(
        `^Not shown: change ${changeId} was made by delete_dimension, in the toolset "structure" \\(.+\\), which this API key does not enable`,
      ),
    );
    const loss = (await keyed.client.callTool({
      name: 'read_change_cells',
      arguments: { wouldLose: { tool: 'delete_sheet', spreadsheetId, sheetId: wide.sheetId } },
    })) as ToolResult;
    expect(loss.isError).toBe(true);
    expect(loss.content?.[0]?.text).toMatch(/^Not shown: delete_sheet is in the toolset "structure"/);
    // With the set, the deleted column's cells, gone from the sheet.
    const shown = await call(ui, 'read_change_cells', { changeId });
    expect(shown.window).toMatchObject({
      range: 'Wide!E1:E2',
      before: [['e1'], ['e2']],
      after: null,
      changed: [
        [0, 0],
        [1, 0],
      ],
    });
  });

  it('answers a bounded window of a large change, and the rest by offset', async () => {
    const values = Array.from({ length: 60 }, (_, row) =>
      Array.from({ length: 30 }, (_, column) => row * 100 + column),
    );
    const { changeId } = await call(ui, 'write_range', { spreadsheetId, range: 'Wide!A10', values });
    const first = (await call(ui, 'read_change_cells', { changeId })) as {
      window: {
        range: string;
        before: unknown[][];
        after: unknown[][];
        nextOffset: number;
        columnsCut: boolean;
      };
    };
    expect(first.window.range).toBe('Wide!A10:Z28');
    expect(first.window.before).toHaveLength(19);
    expect(first.window.before[0]).toHaveLength(26);
    expect(first.window.after[18]![25]).toBe(1825);
    expect(first.window.columnsCut).toBe(true);
    expect(first.window.nextOffset).toBe(19);
    const last = (await call(ui, 'read_change_cells', { changeId, offset: 57 })) as typeof first;
    expect(last.window.range).toBe('Wide!A67:Z69');
    expect(last.window.nextOffset).toBeNull();
  });
});

/** Appends an image to the view's document; the Content-Security-Policy violation it caused. */
async function injectImage(view: Frame, src: string) {
  return view.evaluate(`new Promise((resolve) => {
    document.addEventListener('securitypolicyviolation', (event) =>
      resolve({ blockedURI: event.blockedURI, directive: event.effectiveDirective }));
    const image = document.createElement('img');
    image.alt = '';
    image.onload = () => resolve('loaded');
    image.onerror = () => setTimeout(() => resolve('failed without a violation'), 500);
    image.src = ${JSON.stringify(src)};
    document.body.append(image);
  })`);
}

const WCAG_A_AA = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'];

/** axe-core over the host page and its frames (the view's included): serious and critical only. */
async function severeViolations(page: Page): Promise<string[]> {
  const results = await new AxeBuilder({ page }).withTags(WCAG_A_AA).analyze();
  return results.violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map(
      (violation) =>
        `${violation.id}: ${violation.help} (${violation.nodes.map((node) => node.target).join(', ')})`,
    );
}

async function screenshot(shown: ShownView, name: string) {
  const frame = await shown.page.$('iframe');
  await frame!.screenshot({ path: path.join(SCREENSHOTS, name) });
}
