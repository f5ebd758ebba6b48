import {
  HttpError,
  healthRoutes,
  jsonErrors,
  type Logger,
  notImplemented,
  requestLog,
} from '@sheetgate/service-runtime';
import Koa from 'koa';
import { protectedResourceMetadata } from './protected-resource.ts';

const METADATA_PATHS = new Set([
  '/.well-known/oauth-protected-resource',
  '/.well-known/oauth-protected-resource/api/mcp',
]);

/**
 * The MCP service's HTTP app. The metadata is real; the MCP endpoint itself arrives with the MCP
 * server issue and answers 501 until then. It needs no dependency to be ready: JWKS and the
 * broker are reached per request, and cached where they may be.
 */
export function createMcpApp(options: { logger: Logger; baseUrl: string }): Koa {
  const metadata = protectedResourceMetadata(options.baseUrl);
  const app = new Koa({ proxy: false });
  app.use(healthRoutes([]));
  app.use(requestLog(options.logger));
  app.use(jsonErrors(options.logger));
  app.use(async (ctx) => {
    if (METADATA_PATHS.has(ctx.path)) {
      if (ctx.method !== 'GET' && ctx.method !== 'HEAD') {
        throw new HttpError(405, 'method_not_allowed', 'use GET', { allow: 'GET, HEAD' });
      }
      ctx.set('cache-control', 'public, max-age=3600');
      ctx.set('access-control-allow-origin', '*');
      ctx.body = metadata;
      return;
    }
    if (ctx.path === '/api/mcp') {
      if (ctx.method === 'POST') notImplemented('the MCP endpoint');
      // Stateless Streamable HTTP: no SSE stream to open (GET) and no session to end (DELETE).
      throw new HttpError(405, 'method_not_allowed', 'this MCP endpoint is stateless: use POST', {
        allow: 'POST',
      });
    }
    throw new HttpError(404, 'not_found', 'no such route');
  });
  return app;
}
