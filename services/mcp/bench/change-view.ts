/**
 * `pnpm bench:change-view` (services/mcp): the change view (docs/design.md §11.11) — its HTML's
 * size against the 60 KB gzipped budget, and the time Chromium takes to draw a change's largest
 * window, 500 cells before and 500 now (1,000 cells, a third of them marked altered), from the
 * tool's result sent to both grids drawn: read_change_cells called through the host (answered
 * from memory by the bench's host page, browser/change-view-host.ts) and its answer drawn (goal:
 * well under 100 ms). BENCH_CHANGE_RUNS runs, the median and the slowest.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchChromium } from '@sheetgate/test-harness';
import { chromium } from 'playwright-core';
import { rolldown } from 'rolldown';
import { generatedViewPath } from '../src/apps/view-resources.ts';
import { WINDOW_CELLS } from '../src/tools/sets/core-read/change-cells.ts';
import { gzippedBytes, VIEW_GZIP_BUDGET } from '../views/build/view-build.ts';
import { ms, out, percentile } from './one-request.ts';

const RUNS = Number(process.env.BENCH_CHANGE_RUNS ?? 20);
const COLUMNS = 25;
const ROWS = WINDOW_CELLS / COLUMNS;
const ORIGIN = 'http://bench.sheetgate.test';

export async function measureChangeView(): Promise<void> {
  const html = readFileSync(generatedViewPath('change'), 'utf8');
  out(`change view: ${html.length} B, ${gzippedBytes(html)} B gzipped (budget ${VIEW_GZIP_BUDGET} B)`);
  const grid = (value: (row: number, column: number) => string | number) =>
    Array.from({ length: ROWS }, (_, row) =>
      Array.from({ length: COLUMNS }, (_, column) => value(row, column)),
    );
  const altered = (row: number, column: number) => (row + column) % 3 === 0;
  const change = {
    html,
    result: { structuredContent: { updatedRange: 'Data!A1:Y20', changeId: 'bench' } },
    cells: {
      changeId: 'bench',
      spreadsheetId: 'bench',
      tool: 'write_range',
      summary: `wrote ${WINDOW_CELLS} cells of Data!A1:Y20`,
      undoable: true,
      undoneByChangeId: null,
      undoUnavailableReason: null,
      areas: ['Data!A1:Y20'],
      area: 0,
      note: null,
      window: {
        range: 'Data!A1:Y20',
        top: 0,
        left: 0,
        areaRows: ROWS,
        areaColumns: COLUMNS,
        before: grid((row, column) => (row * COLUMNS + column) * 3),
        after: grid((row, column) =>
          altered(row, column) ? `cell ${row}:${column}` : (row * COLUMNS + column) * 3,
        ),
        changed: grid((row, column) => (altered(row, column) ? `${row},${column}` : ''))
          .flat()
          .filter(Boolean)
          .map((key) => String(key).split(',').map(Number)),
        changedSince: [],
        wrote: null,
        nextOffset: null,
        columnsCut: false,
      },
    },
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
      `drawing a change of ${WINDOW_CELLS} cells before and now in Chromium, ${RUNS} runs (goal well under 100 ms):`,
    );
    const times: number[] = [];
    for (let run = 0; run < RUNS; run++)
      times.push(Number(await page.evaluate(`timeChange(${JSON.stringify(change)})`)));
    times.sort((a, b) => a - b);
    out(`  p50 ${ms(percentile(times, 50))}  max ${ms(times.at(-1)!)}`);
  } finally {
    await browser.close();
  }
}

async function hostScript(): Promise<string> {
  const build = await rolldown({
    input: path.join(path.dirname(fileURLToPath(import.meta.url)), 'browser/change-view-host.ts'),
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

if (import.meta.main) await measureChangeView();
