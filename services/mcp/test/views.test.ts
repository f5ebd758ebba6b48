import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { generatedViewPath, VIEW_RESOURCE_UI } from '../src/apps/view-resources.ts';
import { SHEETGATE_VIEWS } from '../src/apps/views.ts';
import {
  buildViewHtml,
  gzippedBytes,
  VIEW_CSP,
  VIEW_GZIP_BUDGET,
  VIEWS_DIR,
} from '../views/build/view-build.ts';

// Each MCP Apps view's HTML (docs/design.md §11.11) is generated from its sources and committed:
// it must be what they make now, within its size budget, one document that loads nothing.

describe.each(SHEETGATE_VIEWS.map((view) => [view.name, view] as const))('the %s view', (name, view) => {
  const file = generatedViewPath(name);
  const committed = existsSync(file) ? readFileSync(file, 'utf8') : undefined;

  it('has its sources: view.ts, view.css and view.html', () => {
    for (const source of ['view.ts', 'view.css', 'view.html'])
      expect(existsSync(path.join(VIEWS_DIR, name, source)), source).toBe(true);
  });

  it('is committed as its sources make it now (pnpm views:gen)', async () => {
    expect(committed, `${file} is missing: run pnpm views:gen`).toBeDefined();
    expect(
      committed === (await buildViewHtml(view)),
      `${file} is stale: run pnpm views:gen and commit it`,
    ).toBe(true);
  });

  it(`weighs at most ${VIEW_GZIP_BUDGET} bytes gzipped`, () => {
    const bytes = gzippedBytes(committed!);
    console.log(`${name} view: ${committed!.length} B, ${bytes} B gzipped`);
    expect(bytes).toBeLessThanOrEqual(VIEW_GZIP_BUDGET);
  });

  it('is one document whose own policy allows no origin, and asks nothing from any', () => {
    const html = committed!;
    const policy = /<meta http-equiv="Content-Security-Policy" content="([^"]+)">/.exec(html)?.[1];
    expect(policy).toBe(VIEW_CSP);
    const directives = new Map(
      policy!.split(';').map((part) => {
        const [directive, ...sources] = part.trim().split(/\s+/);
        return [directive!, sources];
      }),
    );
    expect(directives.get('default-src')).toEqual(["'none'"]);
    expect(directives.get('base-uri')).toEqual(["'none'"]);
    expect(directives.get('form-action')).toEqual(["'none'"]);
    // Nothing but the document's own inline code: no scheme, host or 'self' anywhere.
    for (const [directive, sources] of directives)
      for (const source of sources) expect(["'none'", "'unsafe-inline'"], directive).toContain(source);
    // The policy comes before anything it governs.
    expect(html.indexOf('Content-Security-Policy')).toBeLessThan(html.indexOf('<style>'));
    expect(html).not.toMatch(/<(script|link|img|iframe)\b[^>]*\b(src|href)=/i);
    expect(html.match(/<script>/g)).toHaveLength(1);
  });

  it('declares no origin and no device permission to the host', () => {
    expect(VIEW_RESOURCE_UI.csp).toEqual({
      connectDomains: [],
      resourceDomains: [],
      frameDomains: [],
      baseUriDomains: [],
    });
    expect('permissions' in VIEW_RESOURCE_UI).toBe(false);
  });
});
