import querystring, { type ParsedUrlQuery } from 'node:querystring';
import { readBodyUpTo } from '@sheetgate/service-runtime';
import type { KoaContextWithOIDC } from 'oidc-provider';
import { canonicalResource, DEFAULT_RESOURCE_SCOPE } from './resource.ts';
import { OIDC_ROUTES, PROVIDER_BODY_LIMIT } from './routes.ts';

/** The request body, or undefined when it is over the limit (the connection is then closed). */
async function readBody(ctx: KoaContextWithOIDC): Promise<Buffer | undefined> {
  const body = await readBodyUpTo(ctx.req, PROVIDER_BODY_LIMIT);
  if (!body) ctx.set('connection', 'close');
  return body;
}

function oauthError(ctx: KoaContextWithOIDC, status: number, error: string, description: string) {
  ctx.status = status;
  ctx.set('cache-control', 'no-store');
  ctx.body = { error, error_description: description };
}

/**
 * RFC 8707 `resource` values and the default scope, as the authorization and token endpoints
 * should see them:
 * - `resource` values clients derive for our one resource (trailing slash, bare origin) become
 *   the MCP endpoint; a foreign value is left for the provider to refuse (`invalid_target`);
 * - on the authorization endpoint, no `scope` means `sheets:read sheets:write` (issue 4).
 * Reports whether every `resource` was ours.
 */
function canonicalise(params: ParsedUrlQuery, baseUrl: string, withDefaultScope: boolean): boolean {
  let ours = true;
  if (params.resource !== undefined) {
    const values = (Array.isArray(params.resource) ? params.resource : [params.resource]).map((value) =>
      canonicalResource(value, baseUrl),
    );
    if (values.every((value) => value !== undefined)) params.resource = [...new Set(values as string[])];
    else ours = false;
  }
  if (withDefaultScope && (params.scope === undefined || params.scope === ''))
    params.scope = DEFAULT_RESOURCE_SCOPE;
  return ours;
}

/**
 * Applies `canonicalise` to every request the provider reads these parameters from: the
 * authorization endpoint's query and the token endpoint's form. On the token endpoint a foreign
 * `resource` is refused *before* the provider runs, so it never consumes (rotates) the refresh
 * token it came with. There is no other way in: the authorization endpoint answers GET only
 * (oidc-provider's `enableHttpPostMethods` is off) and pushed authorization requests are disabled
 * (no MCP client uses them).
 */
export function resourceParameterGuard(baseUrl: string) {
  return async (ctx: KoaContextWithOIDC, next: () => Promise<void>) => {
    if (ctx.path === OIDC_ROUTES.authorization && ctx.method === 'GET') {
      const query = querystring.parse(ctx.querystring);
      canonicalise(query, baseUrl, true);
      ctx.querystring = querystring.stringify(query);
      return next();
    }
    if (
      ctx.path !== OIDC_ROUTES.token ||
      ctx.method !== 'POST' ||
      !ctx.is('application/x-www-form-urlencoded')
    )
      return next();
    const raw = await readBody(ctx);
    if (!raw) return oauthError(ctx, 413, 'invalid_request', 'the request body is too large');
    const form = querystring.parse(raw.toString('utf8'));
    if (!canonicalise(form, baseUrl, false))
      return oauthError(
        ctx,
        400,
        'invalid_target',
        'the resource is not served by this authorization server',
      );
    // oidc-provider reads an already-read body from req.body (lib/shared/selective_body.js).
    (ctx.req as { body?: unknown }).body = querystring.stringify(form);
    return next();
  };
}
