import {
  HttpError,
  healthRoutes,
  jsonErrors,
  type Logger,
  notImplemented,
  requestLog,
} from '@sheetgate/service-runtime';
import Koa from 'koa';
import { securityHeaders } from './security-headers.ts';

const PAGES_NOT_BUILT = new Set(['/login', '/authorize', '/dashboard']);

/**
 * The web service's HTTP app. The sign-in, consent and dashboard pages arrive with the web issue
 * and answer 501 until then; `/` says what Sheetgate is and where its endpoint lives.
 */
export function createWebApp(options: { logger: Logger; baseUrl: string }): Koa {
  const app = new Koa({ proxy: false });
  app.use(healthRoutes([]));
  app.use(requestLog(options.logger));
  app.use(securityHeaders());
  app.use(jsonErrors(options.logger));
  const home = homePage(options.baseUrl);
  app.use(async (ctx) => {
    // Unknown discovery documents must be JSON, never an HTML page (DESIGN §2).
    if (ctx.path.startsWith('/.well-known/'))
      throw new HttpError(404, 'not_found', 'no such metadata document');
    if (PAGES_NOT_BUILT.has(ctx.path)) notImplemented(`the ${ctx.path} page`);
    if (ctx.path === '/' && (ctx.method === 'GET' || ctx.method === 'HEAD')) {
      ctx.type = 'html';
      ctx.body = home;
      return;
    }
    throw new HttpError(404, 'not_found', 'no such page');
  });
  return app;
}

function homePage(baseUrl: string): string {
  const endpoint = escapeHtml(`${baseUrl}/api/mcp`);
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Sheetgate</title></head>
<body>
<main>
<h1>Sheetgate</h1>
<p>Sheetgate lets MCP clients and scripts read and write your Google Sheets, with your consent.</p>
<p>MCP endpoint: <code>${endpoint}</code></p>
</main>
</body>
</html>
`;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}
