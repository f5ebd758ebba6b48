import type { IncomingMessage, RequestListener } from 'node:http';
import type { Socket } from 'node:net';
import {
  HttpError,
  healthRoutes,
  jsonErrors,
  type Logger,
  logKoaErrors,
  requestLog,
} from '@sheetgate/service-runtime';
import Koa from 'koa';
import type { AuthInfo } from './auth/auth-info.ts';
import { protectedResourceMetadata, protectedResourceMetadataUrl } from './protected-resource.ts';
import { createMcpPostHandler, isMcpPost, MCP_PATH, mcpEndpointRefusals } from './protocol/mcp-endpoint.ts';
import type { McpServerHandle } from './protocol/mcp-server.ts';

const METADATA_PATHS = new Set([
  '/.well-known/oauth-protected-resource',
  '/.well-known/oauth-protected-resource/api/mcp',
]);

/**
 * The MCP service's HTTP handler: `POST /api/mcp` straight to the endpoint (the hot path, on
 * Node's own request and response), everything else through a Koa app — health probes,
 * protected-resource metadata (RFC 9728), the endpoint's 405s and near misses. It
 * needs no dependency to be ready: the JWKS is fetched at start and then by a timer (a request
 * fetches it only for a key id it has not seen) and kept through auth outages once fetched; the
 * broker is asked per API-key request. Without auth, what cannot be checked is answered 503 with
 * Retry-After instead of taking the replica out of the load balancer.
 */
export function createMcpApp(options: {
  logger: Logger;
  baseUrl: string;
  mcp: McpServerHandle;
  authenticate: (req: IncomingMessage) => Promise<AuthInfo>;
  /** MCP_MAX_REQUEST_BYTES. */
  maxRequestBytes?: number;
}): RequestListener {
  const metadata = protectedResourceMetadata(options.baseUrl);
  const publicOrigin = new URL(options.baseUrl).origin;
  const servePost = createMcpPostHandler({
    mcp: options.mcp,
    logger: options.logger,
    publicOrigin,
    resourceMetadataUrl: protectedResourceMetadataUrl(options.baseUrl),
    authenticate: options.authenticate,
    ...(options.maxRequestBytes ? { maxRequestBytes: options.maxRequestBytes } : {}),
  });
  const app = new Koa({ proxy: false });
  logKoaErrors(app, options.logger);
  app.use(healthRoutes([]));
  app.use(requestLog(options.logger));
  app.use(jsonErrors(options.logger));
  app.use(mcpEndpointRefusals(publicOrigin));
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
  const koa = app.callback();
  // Koa reports a connection the client reset mid-request (ECONNRESET) as a request error; the
  // endpoint's own path does the same, once per connection rather than a listener per request.
  const watchedSockets = new WeakSet<Socket>();
  const reportResets = (socket: Socket) => {
    if (watchedSockets.has(socket)) return;
    watchedSockets.add(socket);
    socket.on('error', (error) =>
      options.logger.warn({ err: error, method: 'POST', path: MCP_PATH }, 'request error'),
    );
  };
  return (req, res) => {
    if (isMcpPost(req)) {
      reportResets(req.socket);
      void servePost(req, res);
    } else void koa(req, res);
  };
}
