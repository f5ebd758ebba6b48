import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Middleware } from 'koa';

interface Asset {
  body: Buffer;
  type: string;
  /** `/assets/<name>.<hash>.<ext>`: the content hash makes a year of caching safe. */
  url: string;
}

function load(file: string, type: string): Asset {
  const body = readFileSync(new URL(file, import.meta.url));
  const hash = createHash('sha256').update(body).digest('base64url').slice(0, 12);
  const dot = file.lastIndexOf('.');
  return { body, type, url: `/assets/${file.slice(0, dot)}.${hash}${file.slice(dot)}` };
}

/**
 * The stylesheet and the progressive-enhancement scripts (copy buttons, the Google Picker). They are files because the CSP has
 * no 'unsafe-inline' (docs/design.md §7.5); pages link them by their hashed URL.
 */
export const assets = {
  stylesheet: load('app.css', 'text/css; charset=utf-8'),
  copyScript: load('copy.js', 'text/javascript; charset=utf-8'),
  pickerScript: load('picker.js', 'text/javascript; charset=utf-8'),
};

/**
 * The Sheetgate mark at a URL that never changes: MCP clients show it beside the server and its
 * tools (the `icons` of initialize, server/discover and tools/list name `/icon.svg`).
 */
const icon: Asset = { ...load('icon.svg', 'image/svg+xml'), url: '/icon.svg' };
const ICON_CACHE = 'public, max-age=86400';

const byUrl = new Map(Object.values(assets).map((asset) => [asset.url, asset]));

export function assetRoutes(): Middleware {
  return async (ctx, next) => {
    if (ctx.path === icon.url && (ctx.method === 'GET' || ctx.method === 'HEAD')) {
      ctx.set('cache-control', ICON_CACHE);
      // An SVG opened on its own could run script; this one has none, and may never.
      ctx.set('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'");
      ctx.type = icon.type;
      ctx.body = icon.body;
      return;
    }
    if (!ctx.path.startsWith('/assets/')) return next();
    const asset = byUrl.get(ctx.path);
    if (!asset || (ctx.method !== 'GET' && ctx.method !== 'HEAD')) {
      ctx.status = 404;
      ctx.type = 'text/plain';
      ctx.body = 'not found';
      return;
    }
    ctx.set('cache-control', 'public, max-age=31536000, immutable');
    ctx.type = asset.type;
    ctx.body = asset.body;
  };
}
