/**
 * `pnpm bench:chart-view` (services/mcp): the chart view (docs/design.md §11.11) — its HTML's size
 * against the 60 KB gzipped budget, and the time Chromium takes to draw a chart of 1,000 cells
 * (a domain and two series of 333 rows, read_ranges answered from memory by the bench's host page,
 * browser/chart-view-host.ts) from the tool's result sent to the chart drawn: its data parsed, its table
 * built, Chartist's SVG made (goal: well under 100 ms). BENCH_CHART_RUNS runs of each type, the
 * median and the slowest.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchChromium } from '@sheetgate/test-harness';
import { chromium } from 'playwright-core';
import { rolldown } from 'rolldown';
import { generatedViewPath } from '../src/apps/view-resources.ts';
import { gzippedBytes, VIEW_GZIP_BUDGET } from '../views/build/view-build.ts';
import { ms, out, percentile } from './one-request.ts';

const RUNS = Number(process.env.BENCH_CHART_RUNS ?? 20);
const ROWS = 333;
const ORIGIN = 'http://bench.sheetgate.test';

export async function measureChartView(): Promise<void> {
  const html = readFileSync(generatedViewPath('chart'), 'utf8');
  out(`chart view: ${html.length} B, ${gzippedBytes(html)} B gzipped (budget ${VIEW_GZIP_BUDGET} B)`);
  const cells = {
    'Data!A1:A334': [['Day'], ...Array.from({ length: ROWS }, (_, row) => [`Day ${row + 1}`])],
    'Data!B1:B334': [['North'], ...Array.from({ length: ROWS }, (_, row) => [(row * 37) % 101])],
    'Data!C1:C334': [['South'], ...Array.from({ length: ROWS }, (_, row) => [(row * 53) % 97])],
  };
  const browser = await launchChromium(chromium);
  try {
    const page = await browser.newPage();
    const host = await hostScript();
    await page.route(`${ORIGIN}/`, (route) =>
      route.fulfill({
        contentType: 'text/html',
        body: `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Bench host</title></head><body><script>${host}</script></body></html>`,
      }),
    );
    await page.goto(`${ORIGIN}/`);
    out(
      `drawing a chart of ${(ROWS + 1) * 3} cells in Chromium, ${RUNS} runs each (goal well under 100 ms):`,
    );
    for (const type of ['column', 'line', 'bar', 'area'] as const) {
      const chart = {
        html,
        input: { spreadsheetId: 'bench', type, range: 'Data!A1:C334' },
        result: {
          structuredContent: {
            chartId: 1,
            type,
            title: 'Bench',
            tab: 'Data',
            sheetId: 0,
            ownSheet: false,
            anchorCell: 'Data!E1',
            width: 600,
            height: 371,
            domain: 'Data!A1:A334',
            series: ['Data!B1:B334', 'Data!C1:C334'],
            legendPosition: 'bottom',
            xAxisTitle: null,
            yAxisTitle: null,
            stacked: false,
          },
        },
        cells,
      };
      const times: number[] = [];
      for (let run = 0; run < RUNS; run++)
        times.push(
          await page.evaluate(
            (shown) => (globalThis as unknown as { timeChart(c: unknown): Promise<number> }).timeChart(shown),
            chart,
          ),
        );
      times.sort((a, b) => a - b);
      out(`  ${type.padEnd(7)} p50 ${ms(percentile(times, 50))}  max ${ms(times.at(-1)!)}`);
    }
  } finally {
    await browser.close();
  }
}

async function hostScript(): Promise<string> {
  const build = await rolldown({
    input: path.join(path.dirname(fileURLToPath(import.meta.url)), 'browser/chart-view-host.ts'),
    platform: 'browser',
    logLevel: 'silent',
  });
  try {
    const { output } = await build.generate({ format: 'iife' });
    return output[0].code.replaceAll('</script', '<\\/script');
  } finally {
    await build.close();
  }
}

if (import.meta.main) await measureChartView();
