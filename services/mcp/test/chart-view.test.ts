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

// The chart view (docs/design.md §11.11) in Chromium, hosted by the official SDK's AppBridge in a
// sandboxed iframe (support/apps-host), against real auth, mcp and Google emulator processes:
// add_chart and update_chart make the chart in the emulator, and the view draws it from the
// tool's result and the cells it reads with read_ranges through the host. What is asserted is
// what the drawing holds — each bar's, point's and slice's value (Chartist's ct:value), the axis
// labels, the legend — and its table alternative, never pixels.

const missing = chromiumMissing();
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
// The docs' screenshot is refreshed on request (UPDATE_SCREENSHOTS=1), as services/web's are.
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
  ['Month', 'North', 'South'],
  ['Jan', 120, 80],
  ['Feb', 150, 95.5],
  ['Mar', 90, 130],
  ['Apr', 175, 110],
];
const SIZES = [
  ['Height', 'Weight'],
  [150, 50],
  [160, 58.5],
  [170, 66],
  [180, 80],
];
const SHARES = [
  ['Fruit', 'Sold'],
  ['Apples', 30],
  ['Pears', 50],
  ['<img src="https://example.invalid/x.png">', 20],
];

beforeAll(async () => {
  if (missing) return;
  [stack, browser] = await Promise.all([startMcpUnderTest(), launchChromium(chromium)]);
  ({ userId } = await stack.signIn('alice@example.com'));
  token = await stack.sign({ sub: userId });
  [spreadsheetId] = (await stack.seed('alice@example.com', [
    {
      name: 'Chart view',
      sheets: [
        { title: 'Sales', values: SALES },
        { title: 'Sizes', values: SIZES },
        { title: 'Shares', values: SHARES },
      ],
    },
  ])) as [string];
}, 120_000);
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

/** Waits until the view has drawn a chart of `type`. */
async function drawn(view: Frame, type: string) {
  await view.waitForSelector(`#chart[data-drawn="${type}"] svg`);
}

// In-page code is given as text: this program is typed for Node, without the DOM's names.

interface Drawing {
  bars: Array<Array<string | null>>;
  points: Array<Array<string | null>>;
  slices: Array<string | null>;
  horizontal: string[];
  vertical: string[];
  sliceLabels: string[];
  legend: string[];
  hoverTitles: string[];
}

/** What the drawing holds: each series' values (ct:value), the axis labels, the legend's entries. */
async function drawing(view: Frame) {
  return view.evaluate<Drawing>(`(() => {
    const svg = document.querySelector('#chart svg');
    const values = (selector) =>
      [...svg.querySelectorAll('.ct-series')].map((series) =>
        [...series.querySelectorAll(selector)].map((element) => element.getAttribute('ct:value')),
      );
    const labels = (selector) => [...svg.querySelectorAll(selector)].map((label) => label.textContent);
    return {
      bars: values('.ct-bar'),
      points: values('.ct-point'),
      slices: [...svg.querySelectorAll('.ct-slice-pie')].map((slice) => slice.getAttribute('ct:value')),
      horizontal: labels('.ct-label.ct-horizontal'),
      vertical: labels('.ct-label.ct-vertical'),
      sliceLabels: labels('text.ct-label'),
      legend: [...document.querySelectorAll('#legend li')].map((item) => item.textContent),
      hoverTitles: labels('.ct-bar > title, .ct-point > title, .ct-slice-pie > title'),
    };
  })()`);
}

/** The table alternative as shown: its head and rows. */
async function table(view: Frame) {
  return view.evaluate<{ head: string[]; rows: string[][] }>(`(() => {
    const data = document.getElementById('data');
    return {
      head: [...data.tHead.rows[0].cells].map((cell) => cell.textContent),
      rows: [...data.tBodies[0].rows].map((row) => [...row.cells].map((cell) => cell.textContent)),
    };
  })()`);
}

const text = (view: Frame, selector: string) => view.locator(selector).textContent();

describe.skipIf(missing)('the chart view', () => {
  describe.each(['legacy', 'modern'] as const)('in a host speaking the %s era', (era) => {
    it("draws add_chart's column chart from the range's numbers, read with read_ranges through the host", async () => {
      const shown = await (await host(era)).show('add_chart', {
        spreadsheetId,
        type: 'column',
        range: 'Sales!A1:C5',
        title: `Units by month (${era})`,
        xAxisTitle: 'Month',
        yAxisTitle: 'Units',
      });
      try {
        const chart = shown.result.structuredContent!;
        expect(chart).toMatchObject({
          type: 'column',
          domain: 'Sales!A1:A5',
          series: ['Sales!B1:B5', 'Sales!C1:C5'],
        });
        await drawn(shown.view, 'column');
        const seen = await drawing(shown.view);
        expect(seen.bars).toEqual([
          ['120', '150', '90', '175'],
          ['80', '95.5', '130', '110'],
        ]);
        expect(seen.horizontal).toEqual(['Jan', 'Feb', 'Mar', 'Apr']);
        expect(seen.legend).toEqual(['North', 'South']);
        expect(seen.hoverTitles[1]).toBe('North, Feb: 150');
        expect(await text(shown.view, 'h1')).toBe(`Units by month (${era})`);
        expect(await text(shown.view, '#x-title')).toBe('Month');
        expect(await text(shown.view, '#y-title')).toBe('Units');
        expect(await text(shown.view, '#status')).toBe(
          'A column chart of Sales!A1:A5, Sales!B1:B5, Sales!C1:C5: 4 rows in 2 series.',
        );
        // Two reads of the chart's own ranges, both through the host: the numbers and the words.
        const reads = shown.calls.map((call) => [call.method, call.params.name, call.params.arguments]);
        expect(reads).toEqual(
          ['UNFORMATTED_VALUE', 'FORMATTED_VALUE'].map((render) => [
            'tools/call',
            'read_ranges',
            {
              spreadsheetId,
              ranges: ['Sales!A1:A5', 'Sales!B1:B5', 'Sales!C1:C5'],
              valueRenderOption: render,
              limitPerRange: 2000,
            },
          ]),
        );
      } finally {
        await shown.close();
      }
    });
  });

  it("draws update_chart's change: a line chart under its new title, its header row kept", async () => {
    const app = await host('legacy');
    const added = await app.client.callTool({
      name: 'add_chart',
      arguments: { spreadsheetId, type: 'column', range: 'Sales!A1:B5', title: 'Before' },
    });
    const chartId = (added.structuredContent as { chartId: number }).chartId;
    const shown = await app.show('update_chart', { spreadsheetId, chartId, type: 'line', title: 'After' });
    try {
      expect(shown.result.structuredContent).toMatchObject({
        type: 'line',
        title: 'After',
        previous: { type: 'column' },
      });
      await drawn(shown.view, 'line');
      const seen = await drawing(shown.view);
      expect(seen.points).toEqual([['120', '150', '90', '175']]);
      expect(seen.horizontal).toEqual(['Jan', 'Feb', 'Mar', 'Apr']);
      expect(seen.legend).toEqual(['North']);
      expect(await text(shown.view, 'h1')).toBe('After');
    } finally {
      await shown.close();
    }
  });

  it('draws a stacked bar chart with its first label at the top, and a stacked area as running totals', async () => {
    const app = await host('legacy');
    const bars = await app.show('add_chart', {
      spreadsheetId,
      type: 'bar',
      range: 'Sales!A1:C5',
      stacked: true,
    });
    try {
      await drawn(bars.view, 'bar');
      expect(await bars.view.locator('svg.ct-horizontal-bars').count()).toBe(1);
      const seen = await drawing(bars.view);
      // Chartist draws a bar chart bottom-up: the last row first. ct:value is "x,y" for a bar
      // along the x axis; a stacked bar's value is its own.
      expect(seen.bars.map((series) => series.map((value) => value!.split(',')[0]))).toEqual([
        ['175', '90', '150', '120'],
        ['110', '130', '95.5', '80'],
      ]);
      expect(seen.vertical).toEqual(['Apr', 'Mar', 'Feb', 'Jan']);
      expect(await text(bars.view, 'h1')).toBe('Untitled bar chart');
      expect(await text(bars.view, '#status')).toContain('A stacked bar chart');
    } finally {
      await bars.close();
    }
    const area = await app.show('add_chart', {
      spreadsheetId,
      type: 'area',
      range: 'Sales!A1:C5',
      stacked: true,
    });
    try {
      await drawn(area.view, 'area');
      expect((await drawing(area.view)).points).toEqual([
        ['120', '150', '90', '175'],
        ['200', '245.5', '220', '285'],
      ]);
      // The table says each series' own numbers.
      await area.view.getByRole('button', { name: 'Data as a table' }).click();
      expect((await table(area.view)).rows[1]).toEqual(['Feb', '150', '95.5']);
    } finally {
      await area.close();
    }
  });

  it('draws a pie chart: one slice per label, its values and labels, the legend naming them as text', async () => {
    const shown = await (await host('legacy')).show('add_chart', {
      spreadsheetId,
      type: 'pie',
      range: 'Shares!A1:B4',
      legendPosition: 'right',
    });
    try {
      expect(shown.result.structuredContent).toMatchObject({
        domain: 'Shares!A2:A4',
        series: ['Shares!B2:B4'],
      });
      await drawn(shown.view, 'pie');
      const seen = await drawing(shown.view);
      expect(seen.slices).toEqual(['30', '50', '20']);
      const label = '<img src="https://example.invalid/x.png">';
      expect(seen.legend).toEqual(['Apples', 'Pears', label]);
      expect(seen.sliceLabels).toEqual(['Apples', 'Pears', label]);
      expect(seen.hoverTitles).toEqual(['Apples: 30', 'Pears: 50', `${label}: 20`]);
      // A label holding HTML is written as text: no element is made of it and nothing is fetched.
      expect(await shown.view.locator('img').count()).toBe(0);
      expect(shown.outside).toEqual([]);
      expect(await shown.view.locator('#frame').getAttribute('data-legend')).toBe('right');
    } finally {
      await shown.close();
    }
  });

  it('draws a scatter chart at its x and y values', async () => {
    const shown = await (await host('legacy')).show('add_chart', {
      spreadsheetId,
      type: 'scatter',
      range: 'Sizes!A1:B5',
    });
    try {
      await drawn(shown.view, 'scatter');
      const seen = await drawing(shown.view);
      expect(seen.points).toEqual([['150,50', '160,58.5', '170,66', '180,80']]);
      expect(seen.legend).toEqual(['Weight']);
      expect(seen.hoverTitles[1]).toBe('Weight: (160, 58.5)');
    } finally {
      await shown.close();
    }
  });

  it("draws a dry run's chart and says that nothing was changed", async () => {
    const app = await host('legacy');
    const before = (
      (await app.client.callTool({ name: 'list_charts', arguments: { spreadsheetId } }))
        .structuredContent as {
        charts: unknown[];
      }
    ).charts.length;
    const shown = await app.show('add_chart', {
      spreadsheetId,
      type: 'line',
      range: 'Sales!A1:C5',
      dryRun: true,
    });
    try {
      await drawn(shown.view, 'line');
      expect((await drawing(shown.view)).points[1]).toEqual(['80', '95.5', '130', '110']);
      expect(await text(shown.view, '#status')).toMatch(
        /^Dry run: the chart as it would be; nothing was changed\./,
      );
      const after = (
        (await app.client.callTool({ name: 'list_charts', arguments: { spreadsheetId } }))
          .structuredContent as {
          charts: unknown[];
        }
      ).charts.length;
      expect(after).toBe(before);
    } finally {
      await shown.close();
    }
  });

  it("says the tool's refusal, and draws nothing", async () => {
    const shown = await (await host('legacy')).show('add_chart', {
      spreadsheetId,
      type: 'pie',
      range: 'Sales!A1:C5',
    });
    try {
      expect(shown.result.isError).toBe(true);
      await expect.poll(() => text(shown.view, '#status')).toContain('a pie chart shows one series');
      expect(await shown.view.locator('#frame').isHidden()).toBe(true);
      expect(shown.calls).toEqual([]);
    } finally {
      await shown.close();
    }
  });

  it('works by keyboard alone: the link, then the table by Enter, its region next in the tab order', async () => {
    const shown = await (await host('legacy')).show('add_chart', {
      spreadsheetId,
      type: 'column',
      range: 'Sales!A1:C5',
      title: 'Keys',
    });
    try {
      await drawn(shown.view, 'column');
      const keys = shown.page.keyboard;
      const focused = () =>
        shown.view.evaluate<string>(
          "document.activeElement.id === 'table' ? 'table' : document.activeElement.textContent",
        );
      await keys.press('Tab');
      expect(await focused()).toBe('Open in Google Sheets');
      await keys.press('Tab');
      expect(await focused()).toBe('Data as a table');
      expect(await shown.view.locator('#table').isHidden()).toBe(true);
      await keys.press('Enter');
      expect(await shown.view.locator('#toggle').getAttribute('aria-expanded')).toBe('true');
      expect(await table(shown.view)).toEqual({
        head: ['Month', 'North', 'South'],
        rows: [
          ['Jan', '120', '80'],
          ['Feb', '150', '95.5'],
          ['Mar', '90', '130'],
          ['Apr', '175', '110'],
        ],
      });
      await keys.press('Tab');
      expect(await focused()).toBe('table');
      await keys.press('Shift+Tab');
      await keys.press('Space');
      expect(await shown.view.locator('#table').isHidden()).toBe(true);
      await keys.press('Shift+Tab');
      await keys.press('Enter');
      const sheetId = shown.result.structuredContent!.sheetId;
      await expect
        .poll(() => shown.links)
        .toEqual([`https://docs.google.com/spreadsheets/d/${spreadsheetId}/edit#gid=${sheetId}`]);
    } finally {
      await shown.close();
    }
  });

  it('has no serious or critical WCAG A/AA violation, its table shown, in the light and the dark theme', async () => {
    for (const theme of ['light', 'dark'] as const) {
      const shown = await (await host('legacy', { theme })).show('add_chart', {
        spreadsheetId,
        type: 'column',
        range: 'Sales!A1:C5',
        title: 'Units by month',
        xAxisTitle: 'Month',
        yAxisTitle: 'Units',
      });
      try {
        await drawn(shown.view, 'column');
        // The drawing is one image named by the chart's title and described by its summary.
        const image = shown.view.getByRole('img', { name: 'Units by month' });
        expect(await image.getAttribute('aria-describedby')).toBe('status');
        if (theme === 'light') await screenshot(shown, 'chart-view.png');
        await shown.view.getByRole('button', { name: 'Data as a table' }).click();
        expect(await severeViolations(shown.page), theme).toEqual([]);
      } finally {
        await shown.close();
      }
    }
  });

  describe('holds nothing from outside', () => {
    it('keeps no credential: its data only from the host', async () => {
      const shown = await (await host('legacy')).show('add_chart', {
        spreadsheetId,
        type: 'line',
        range: 'Sales!A1:C5',
      });
      try {
        await drawn(shown.view, 'line');
        expect(await shown.view.evaluate<string>('document.cookie')).toBe('');
        expect(await shown.view.content()).not.toContain(token);
        expect(
          shown.calls.every((call) => call.method === 'tools/call' && call.params.name === 'read_ranges'),
        ).toBe(true);
        expect(shown.outside).toEqual([]);
      } finally {
        await shown.close();
      }
    });

    it('blocks an image injected into the view: by the policy the host built from _meta.ui.csp, and by its own', async () => {
      for (const sandboxPolicy of [undefined, 'none'] as const) {
        const shown = await (await host('legacy', sandboxPolicy ? { sandboxPolicy } : {})).show('add_chart', {
          spreadsheetId,
          type: 'column',
          range: 'Sales!A1:B3',
        });
        try {
          await drawn(shown.view, 'column');
          if (sandboxPolicy === undefined) expect(shown.sandboxPolicy).toContain("img-src 'self' data:");
          else expect(shown.sandboxPolicy).toBeUndefined();
          expect(await injectImage(shown.view, 'https://example.invalid/x.png')).toEqual({
            blockedURI: 'https://example.invalid/x.png',
            directive: 'img-src',
          });
          expect(shown.outside).toEqual([]);
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

    it('its add_chart and update_chart have no _meta, their pinned surfaces; a UI host sees the view on them', async () => {
      const tools = (await plain.listTools()).tools;
      const ui = (await (await host('modern')).client.listTools()).tools;
      for (const name of ['add_chart', 'update_chart']) {
        const { icons: _icons, ...tool } = tools.find((each) => each.name === name)!;
        const pinned = JSON.parse(
          readFileSync(path.join(repoRoot, `services/mcp/test/tool-surface/${name}.json`), 'utf8'),
        );
        expect(tool).toEqual(pinned);
        expect(ui.find((each) => each.name === name)!._meta).toEqual({
          ui: { resourceUri: 'ui://sheetgate/chart' },
          'ui/resourceUri': 'ui://sheetgate/chart',
        });
      }
    });

    it('resources/read of the view is an unknown method for it', async () => {
      await expect(plain.readResource({ uri: 'ui://sheetgate/chart' })).rejects.toMatchObject({
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
