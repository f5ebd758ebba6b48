import { jsonNestsDeeperThan, MAX_JSON_DEPTH, readBodyUpTo } from '@sheetgate/service-runtime';
import type { KoaContextWithOIDC } from 'oidc-provider';
import { OIDC_ROUTES, PROVIDER_BODY_LIMIT } from './routes.ts';

/**
 * Refuses JSON bodies (client registration) nested deeper than MAX_JSON_DEPTH before the provider
 * parses them: the client policy and the provider walk client metadata recursively, and a body
 * nested thousands of levels deep overflowed the stack (a 500). Read here, the body is handed on in
 * `req.body`, which oidc-provider reads when the stream is already consumed.
 */
export function jsonBodyDepthGuard() {
  return async (ctx: KoaContextWithOIDC, next: () => Promise<void>) => {
    if (!ctx.req.readable || !ctx.is('application/json')) return next();
    const raw = await readBodyUpTo(ctx.req, PROVIDER_BODY_LIMIT);
    const error = ctx.path === OIDC_ROUTES.registration ? 'invalid_client_metadata' : 'invalid_request';
    if (!raw) {
      ctx.set('connection', 'close');
      return refuse(ctx, 413, 'invalid_request', 'the request body is too large');
    }
    if (jsonNestsDeeperThan(raw.toString('utf8')))
      return refuse(ctx, 400, error, `the JSON body is nested deeper than ${MAX_JSON_DEPTH} levels`);
    (ctx.req as { body?: unknown }).body = raw;
    return next();
  };
}

function refuse(ctx: KoaContextWithOIDC, status: number, error: string, description: string) {
  ctx.status = status;
  ctx.set('cache-control', 'no-store');
  ctx.body = { error, error_description: description };
}
