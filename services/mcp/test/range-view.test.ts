import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import AxeBuilder from '@axe-core/playwright';
import type { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { chromiumMissing, launchChromium } from '@sheetgate/test-harness';
import { type Browser, chromium, type Frame, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VIEW_CSP } from '../views/build/view-build.ts';
import { type AppsHost, openAppsHost, type ShownView } from './support/apps-host/apps-host.ts';
import { type McpUnderTest, startMcpUnderTest } from './support/stack.ts';

// The range view (docs/design.md §11.11) in Chromium, hosted by the official SDK's AppBridge in a
// sandboxed iframe (support/apps-host), against real auth, mcp and Google emulator processes: the
// host's MCP client holds a real access token and forwards the view's calls to the service.

const missing = chromiumMissing();
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
// The README's screenshot is refreshed on request (UPDATE_SCREENSHOTS=1), as services/web's are.
const SCREENSHOTS = process.env.UPDATE_SCREENSHOTS
  ? path.join(repoRoot, 'docs/screenshots')
  : path.join(os.tmpdir(), 'sheetgate-screenshots');

let stack: McpUnderTest;
let browser: Browser;
let token: string;
let userId: string;
let spreadsheetId: string;
const hosts: AppsHost[] = [];

const SALES = [
  ['Region', 'Units', 'Price', 'Total', 'Note'],
  ['North', 12, 2.5, '=B2*C2', 'plain'],
  ['South', 0, 3, '=D2/B3', '<img src="https://example.invalid/x.png">'],
  ['East', 7, 1.25, '=B4*C4', 'Ünïcode ✓'],
];
const LONG = Array.from({ length: 450 }, (_, index) => [`row ${index + 1}`, index + 1]);

beforeAll(async () => {
  if (missing) return;
  [stack, browser] = await Promise.all([startMcpUnderTest(), launchChromium(chromium)]);
  ({ userId } = await stack.signIn('alice@example.com'));
  token = await stack.sign({ sub: userId });
  [spreadsheetId] = (await stack.seed('alice@example.com', [
    {
      name: 'Range view',
      sheets: [
        { title: 'Sales', values: SALES },
        { title: 'Long', values: LONG },
      ],
    },
  ])) as [string];
});
afterAll(async () => {
  await Promise.all(hosts.map((host) => host.close()));
  await browser?.close();
  await stack?.stop();
});

async function host(
  era: 'legacy' | 'modern',
  options: { theme?: 'light' | 'dark'; sandboxPolicy?: 'none' } = {},
) {
  const opened = await openAppsHost({
    chromium: browser,
    mcpUrl: stack.mcpUrl,
    credential: token,
    era,
    ...options,
  });
  hosts.push(opened);
  return opened;
}

// In-page code is given as text: this program is typed for Node, without the DOM's names. (Not
// waitForFunction's text: it compiles it in the page, which the view's policy forbids.)

/** The grid as shown: column letters, row numbers and each cell's text (its tooltip text left out). */
async function grid(view: Frame) {
  return view.evaluate<{ columns: string[]; rows: string[]; cells: string[][] }>(`(() => {
    const text = (cell) => (cell.firstChild?.nodeType === Node.TEXT_NODE ? cell.firstChild.textContent : '');
    const table = document.getElementById('grid');
    return {
      columns: [...table.tHead.rows[0].cells].slice(1).map((cell) => cell.textContent),
      rows: [...table.tBodies[0].rows].map((row) => row.cells[0].textContent),
      cells: [...table.tBodies[0].rows].map((row) => [...row.cells].slice(1).map(text)),
    };
  })()`);
}

/** Waits until the view's status says the rows `first`–`last` are shown. */
async function showsRows(view: Frame, first: number, last: number) {
  await view
    .getByRole('status')
    .filter({ hasText: `Rows ${first}–${last}` })
    .waitFor();
}

const cellAt = (view: Frame, a1: string) => view.locator(`td[data-a1="${a1}"]`);

describe.skipIf(missing)('the range view', () => {
  describe.each(['legacy', 'modern'] as const)('in a host speaking the %s era', (era) => {
    it('shows the range with its own column letters and row numbers, as read_range read it', async () => {
      const shown = await (await host(era)).show('read_range', { spreadsheetId, range: 'Sales!B2:D4' });
      try {
        await showsRows(shown.view, 2, 4);
        const seen = await grid(shown.view);
        expect(seen.columns).toEqual(['B', 'C', 'D']);
        expect(seen.rows).toEqual(['2', '3', '4']);
        const values = shown.result.structuredContent!.values as unknown[][];
        expect(seen.cells).toEqual(values.map((row) => row.map(String)));
        // What the emulator computed, as Sheets shows it.
        expect(seen.cells).toEqual([
          ['12', '2.5', '30'],
          ['0', '3', '#DIV/0!'],
          ['7', '1.25', '8.75'],
        ]);
        expect(await shown.view.locator('h1').textContent()).toBe(shown.result.structuredContent!.range);
      } finally {
        await shown.close();
      }
    });

    it('pages through a long range with read_range, called through the host', async () => {
      const shown = await (await host(era)).show('read_range', {
        spreadsheetId,
        range: 'Long!A1:B450',
        limit: 200,
      });
      try {
        await showsRows(shown.view, 1, 200);
        await shown.view.getByRole('button', { name: 'Next rows' }).click();
        await showsRows(shown.view, 201, 400);
        const page = await grid(shown.view);
        expect(page.rows[0]).toBe('201');
        expect(page.rows).toHaveLength(200);
        expect(page.cells[0]).toEqual(['row 201', '201']);
        expect(page.cells.at(-1)).toEqual(['row 400', '400']);
        const reads = shown.calls.filter((call) => call.params.name === 'read_range');
        expect(reads.map((call) => call.params.arguments)).toEqual([
          { spreadsheetId, range: 'Long!A1:B450', limit: 200, offset: 200 },
        ]);
        await shown.view.getByRole('button', { name: 'Next rows' }).click();
        await showsRows(shown.view, 401, 450);
        expect(await shown.view.getByRole('button', { name: 'Next rows' }).isDisabled()).toBe(true);
        await shown.view.getByRole('button', { name: 'Previous rows' }).click();
        await showsRows(shown.view, 201, 400);
        expect((await grid(shown.view)).cells[0]).toEqual(['row 201', '201']);
      } finally {
        await shown.close();
      }
    });
  });

  it("marks formula cells and shows Google's error message on an error cell, read through the host", async () => {
    const shown = await (await host('legacy')).show('read_range', { spreadsheetId, range: 'Sales!A1:E4' });
    try {
      await showsRows(shown.view, 1, 4);
      // read_cell_details answers after the grid is drawn: the cells are marked then.
      await shown.view.waitForSelector('td[data-a1="D3"].e[aria-describedby]');
      await expect.poll(() => cellAt(shown.view, 'D2').getAttribute('class')).toContain('f');
      expect(await cellAt(shown.view, 'D4').getAttribute('class')).toContain('f');
      expect(await cellAt(shown.view, 'B2').getAttribute('class')).not.toContain('f');
      const details = shown.calls.find((call) => call.params.name === 'read_cell_details');
      expect(details?.params.arguments).toMatchObject({ spreadsheetId, range: 'Sales!A1:E4' });
      const tip = shown.view.locator('#tip');
      await cellAt(shown.view, 'D2').hover();
      await expect.poll(() => tip.textContent()).toBe('=B2*C2');
      await cellAt(shown.view, 'D3').hover();
      await expect.poll(() => tip.isVisible()).toBe(true);
      expect(await tip.textContent()).toBe('Function DIVIDE parameter 2 cannot be zero.\n=D2/B3');
      // A screen reader hears the same words as the cell's description.
      const describedBy = await cellAt(shown.view, 'D3').getAttribute('aria-describedby');
      expect(await shown.view.locator(`[id="${describedBy}"]`).textContent()).toBe(
        'Function DIVIDE parameter 2 cannot be zero.\n=D2/B3',
      );
      await screenshot(shown, 'range-view.png');
    } finally {
      await shown.close();
    }
  });

  it('works by keyboard alone: cells by arrows with their words on focus, pages and the link by Enter', async () => {
    const shown = await (await host('legacy')).show('read_range', {
      spreadsheetId,
      range: 'Sales!A1:E4',
      limit: 2,
    });
    try {
      await showsRows(shown.view, 1, 2);
      const keys = shown.page.keyboard;
      const focused = () =>
        shown.view.evaluate<string>(
          'document.activeElement.dataset.a1 ?? document.activeElement.textContent',
        );
      /** Tabs on until `name` has the focus (a few presses at most). */
      const tabTo = async (name: string) => {
        for (let presses = 0; presses < 8 && (await focused()) !== name; presses++) await keys.press('Tab');
        expect(await focused()).toBe(name);
      };
      // From the host page into the view: the link, then the grid's one cell in the tab order.
      await keys.press('Tab');
      expect(await focused()).toBe('Open in Google Sheets');
      await keys.press('Tab');
      expect(await focused()).toBe('A1');
      await keys.press('ArrowDown');
      await keys.press('ArrowRight');
      expect(await focused()).toBe('B2');
      await keys.press('End');
      expect(await focused()).toBe('E2');
      await keys.press('Home');
      expect(await focused()).toBe('A2');
      await keys.press('ArrowUp');
      await keys.press('ArrowUp');
      expect(await focused()).toBe('A1');
      // Next rows, by Tab and Enter; the previous button is disabled so not in the tab order.
      await keys.press('Tab');
      expect(await focused()).toBe('Next rows');
      await keys.press('Enter');
      await showsRows(shown.view, 3, 4);
      // Focus on the error cell shows its message as hovering does.
      await shown.view
        .locator('td[data-a1="D3"] .tip', { hasText: 'cannot be zero' })
        .waitFor({ state: 'attached' });
      await tabTo('A3');
      await keys.press('ArrowRight');
      await keys.press('ArrowRight');
      await keys.press('ArrowRight');
      expect(await focused()).toBe('D3');
      await expect.poll(() => shown.view.locator('#tip').textContent()).toContain('cannot be zero');
      expect(await shown.view.locator('#tip').isVisible()).toBe(true);
      // The link: the host opens it (ui/open-link), the view navigates nowhere.
      await tabTo('Open in Google Sheets');
      await keys.press('Enter');
      await expect
        .poll(() => shown.links)
        .toEqual([`https://docs.google.com/spreadsheets/d/${spreadsheetId}/edit`]);
    } finally {
      await shown.close();
    }
  });

  it('has no serious or critical WCAG A/AA violation, in the light and the dark theme', async () => {
    for (const theme of ['light', 'dark'] as const) {
      const shown = await (await host('legacy', { theme })).show('read_range', {
        spreadsheetId,
        range: 'Sales!A1:E4',
      });
      try {
        await showsRows(shown.view, 1, 4);
        await shown.view.waitForSelector('td[data-a1="D3"][aria-describedby]');
        await cellAt(shown.view, 'D3').hover();
        expect(await severeViolations(shown.page), theme).toEqual([]);
        const background = await shown.view.evaluate<string>(
          'getComputedStyle(document.body).backgroundColor',
        );
        expect(background, theme).toBe(theme === 'dark' ? 'rgb(27, 27, 27)' : 'rgb(255, 255, 255)');
      } finally {
        await shown.close();
      }
    }
  });

  describe('holds nothing from outside', () => {
    it('writes a cell holding HTML as text: no element is made of it and nothing is fetched', async () => {
      const shown = await (await host('legacy')).show('read_range', { spreadsheetId, range: 'Sales!A1:E4' });
      try {
        await showsRows(shown.view, 1, 4);
        expect(await cellAt(shown.view, 'E3').evaluate((td) => td.firstChild?.textContent)).toBe(
          '<img src="https://example.invalid/x.png">',
        );
        expect(await shown.view.locator('img').count()).toBe(0);
        expect(shown.outside).toEqual([]);
        // The view holds no credential: no cookie, no token in its document, its data from the host.        expect(await shown.view.evaluate<string>('document.cookie')).toBe('');
        expect(await shown.view.content()).not.toContain(token);
        expect(shown.calls.every((call) => ['tools/call'].includes(call.method))).toBe(true);
      } finally {
        await shown.close();
      }
    });

    it('blocks an image injected into the view: by the policy the host built from _meta.ui.csp, and by its own', async () => {
      for (const sandboxPolicy of ['none', undefined] as const) {
        const shown = await (await host('legacy', sandboxPolicy ? { sandboxPolicy } : {})).show(
          'read_range',
          {
            spreadsheetId,
            range: 'Sales!A1:B2',
          },
        );
        try {
          await showsRows(shown.view, 1, 2);
          if (sandboxPolicy === undefined) {
            // The host's policy allows the sandbox's own origin at most: no other host, no scheme.
            const sources = shown
              .sandboxPolicy!.split(';')
              .flatMap((part) => part.trim().split(/\s+/).slice(1));
            expect(
              sources.filter((source) => !["'none'", "'self'", "'unsafe-inline'", 'data:'].includes(source)),
            ).toEqual([]);
          } else expect(shown.sandboxPolicy).toBeUndefined();
          const violation = await injectImage(shown.view, 'https://example.invalid/x.png');
          expect(violation).toEqual({ blockedURI: 'https://example.invalid/x.png', directive: 'img-src' });
          // Nothing left the browser; a request from the host page itself would have been seen.
          expect(shown.outside).toEqual([]);
          await shown.page.evaluate(`new Image().src = 'https://example.invalid/control.png'`);
          await expect.poll(() => shown.outside).toEqual(['https://example.invalid/control.png']);
          // The view's own policy is the one it was built with.
          expect(
            await shown.view.locator('meta[http-equiv="Content-Security-Policy"]').getAttribute('content'),
          ).toBe(VIEW_CSP);
        } finally {
          await shown.close();
        }
      }
    });
  });

  describe('a host that does not declare the extension sees no change', () => {
    let plain: LegacyClient;
    beforeAll(async () => {
      plain = await stack.connectClient(userId, 'plain-host');
    });
    afterAll(() => plain?.close());

    it('its tools/list has no _meta.ui, read_range as its pinned surface; a UI host sees the view on it', async () => {
      const tools = (await plain.listTools()).tools;
      expect(tools.filter((tool) => tool._meta !== undefined)).toEqual([]);
      const { icons, ...readRange } = tools.find((tool) => tool.name === 'read_range')!;
      const pinned = JSON.parse(
        readFileSync(path.join(repoRoot, 'services/mcp/test/tool-surface/read_range.json'), 'utf8'),
      );
      expect(readRange).toEqual(pinned);
      const ui = (await (await host('legacy')).client.listTools()).tools.find(
        (tool) => tool.name === 'read_range',
      )!;
      expect(ui._meta).toEqual({
        ui: { resourceUri: 'ui://sheetgate/range' },
        'ui/resourceUri': 'ui://sheetgate/range',
      });
    });

    it('resources/read of the view is an unknown method for it', async () => {
      await expect(plain.readResource({ uri: 'ui://sheetgate/range' })).rejects.toMatchObject({
        code: -32601,
      });
    });
  });
});

/** Appends an image to the view's document; the Content-Security-Policy violation it caused. */
async function injectImage(view: Frame, src: string) {
  return view.evaluate<{ blockedURI: string; directive: string } | string>(`new Promise((resolve) => {
    document.addEventListener('securitypolicyviolation', (event) =>
      resolve({ blockedURI: event.blockedURI, directive: event.effectiveDirective }),
    );
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
