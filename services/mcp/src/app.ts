import { HttpError, healthRoutes, jsonErrors, type Logger, requestLog } from '@sheetgate/service-runtime';
import Koa, { type Context } from 'koa';
import type { AuthInfo } from './auth/auth-info.ts';
import { protectedResourceMetadata } from './protected-resource.ts';
import { mcpEndpoint } from './protocol/mcp-endpoint.ts';
import type { McpServerHandle } from './protocol/mcp-server.ts';

const METADATA_PATHS = new Set([
  '/.well-known/oauth-protected-resource',
  '/.well-known/oauth-protected-resource/api/mcp',
]);

/**
 * The MCP service's HTTP app: protected-resource metadata (RFC 9728) and the MCP endpoint. It
 * needs no dependency to be ready: JWKS and the broker are reached per request, cached where
 * they may be.
 */
export function createMcpApp(options: {
  logger: Logger;
  baseUrl: string;
  mcp: McpServerHandle;
  authenticate: (ctx: Context) => Promise<AuthInfo>;
}): Koa {
  const metadata = protectedResourceMetadata(options.baseUrl);
  const app = new Koa({ proxy: false });
  app.use(healthRoutes([]));
  app.use(requestLog(options.logger));
  app.use(jsonErrors(options.logger));
  app.use(
    mcpEndpoint({
      mcp: options.mcp,
      publicOrigin: new URL(options.baseUrl).origin,
      resourceMetadataUrl: `${options.baseUrl}/.well-known/oauth-protected-resource/api/mcp`,
      authenticate: options.authenticate,
    }),
  );
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
    throw new HttpError(404, 'not_found', 'no such route');
  });
  return app;
}
