import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { generatedViewPath } from '../../src/apps/view-resources.ts';
import { SHEETGATE_VIEWS } from '../../src/apps/views.ts';
import { buildViewHtml, gzippedBytes, VIEW_GZIP_BUDGET } from './view-build.ts';

/**
 * `pnpm views:gen` writes each view's HTML to services/mcp/src/apps/gen/ (committed, as proto/gen
 * is); `pnpm views:check` (part of `pnpm check`) fails when one is missing or differs from what its
 * sources make now, or is over its size budget.
 */
const check = process.argv.includes('--check');
const problems: string[] = [];
for (const view of SHEETGATE_VIEWS) {
  const html = await buildViewHtml(view);
  const file = generatedViewPath(view.name);
  const relative = path.relative(process.cwd(), file);
  const gzipped = gzippedBytes(html);
  if (gzipped > VIEW_GZIP_BUDGET)
    problems.push(`${relative}: ${gzipped} B gzipped, over ${VIEW_GZIP_BUDGET} B`);
  if (check) {
    let committed: string | undefined;
    try {
      committed = readFileSync(file, 'utf8');
    } catch {}
    if (committed !== html) problems.push(`${relative} is not what its sources make: run pnpm views:gen`);
  } else {
    writeFileSync(file, html);
    console.log(`${relative}: ${html.length} B, ${gzipped} B gzipped`);
  }
}
if (problems.length) {
  console.error(problems.join('\n'));
  process.exit(1);
}
