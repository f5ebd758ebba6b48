/**
 * `pnpm bench:range-view` (services/mcp), part of `pnpm bench`: the range view (docs/design.md
 * §11.11) — its HTML's size against the 60 KB gzipped budget, and the time Chromium takes to show
 * a 1,000-cell page of read_range (100 rows × 10 columns, formulas' errors and numbers among
 * them; browser/range-view-host.ts) from the tool's result sent to the grid built, and to the
 * next frame with it laid out (goal: well under 100 ms). BENCH_RANGE_RUNS runs, the median and
 * the slowest. Not asserted by any test: a figure to compare between runs on one machine.
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

const RUNS = Number(process.env.BENCH_RANGE_RUNS ?? 20);
const ROWS = 100;
const COLUMNS = 10;
const ORIGIN = 'http://bench.sheetgate.test';

export async function measureRangeView(): Promise<void> {
  const html = readFileSync(generatedViewPath('range'), 'utf8');
  out(`range view: ${html.length} B, ${gzippedBytes(html)} B gzipped (budget ${VIEW_GZIP_BUDGET} B)`);
  const values = Array.from({ length: ROWS }, (_, row) =>
    Array.from({ length: COLUMNS }, (_, column) =>
      column === 0
        ? `Item ${row + 1}`
        : (row + column) % 17 === 0
          ? '#DIV/0!'
          : ((row * 31 + column * 7) % 1000) / 10,
    ),
  );
  const range = {
    html,
    input: { spreadsheetId: 'bench', range: `Data!A1:J${ROWS}` },
    result: {
      content: [{ type: 'text', text: 'bench' }],
      structuredContent: {
        range: `Data!A1:J${ROWS}`,
        values,
        totalRows: ROWS,
        offset: 0,
        returnedRows: ROWS,
        nextOffset: null,
        lastRow: ROWS,
        lastColumn: 'J',
        stoppedBy: 'end',
        revision: 'bench',
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
    const built: number[] = [];
    const laidOut: number[] = [];
    for (let run = 0; run < RUNS; run++) {
      const time = await page.evaluate(
        (shown) =>
          (
            globalThis as unknown as { timeRange(r: unknown): Promise<{ built: number; laidOut: number }> }
          ).timeRange(shown),
        range,
      );
      built.push(time.built);
      laidOut.push(time.laidOut);
    }
    built.sort((a, b) => a - b);
    laidOut.sort((a, b) => a - b);
    out(`showing a ${ROWS * COLUMNS}-cell page in Chromium, ${RUNS} runs (goal well under 100 ms):`);
    out(`  grid built     p50 ${ms(percentile(built, 50))}  max ${ms(built.at(-1)!)}`);
    out(`  and laid out   p50 ${ms(percentile(laidOut, 50))}  max ${ms(laidOut.at(-1)!)}`);
  } finally {
    await browser.close();
  }
}

async function hostScript(): Promise<string> {
  const build = await rolldown({
    input: path.join(path.dirname(fileURLToPath(import.meta.url)), 'browser/range-view-host.ts'),
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

if (import.meta.main) await measureRangeView();
