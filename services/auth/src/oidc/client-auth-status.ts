import type { KoaContextWithOIDC } from 'oidc-provider';
import { OIDC_ROUTES } from './routes.ts';

/** The endpoints that authenticate the client (RFC 6749 §2.3, RFC 7009 §2.1). */
const CLIENT_AUTHENTICATING = new Set<string>([OIDC_ROUTES.token, OIDC_ROUTES.revocation]);

/**
 * `invalid_client` from an endpoint that authenticates the client is always 401 (RFC 6749 §5.2).
 * oidc-provider answers 401 for a client id it does not know, but 400 when the client cannot be
 * built: a Client ID Metadata Document that is gone or cannot be fetched. Claude (and any client
 * that registered dynamically) takes 401 `invalid_client` from the token endpoint as "this client
 * is gone, register again"; every unknown client gets the same answer here.
 */
export function clientAuthenticationStatus() {
  return async (ctx: KoaContextWithOIDC, next: () => Promise<void>) => {
    await next();
    if (
      ctx.status === 400 &&
      CLIENT_AUTHENTICATING.has(ctx.path) &&
      (ctx.body as { error?: unknown } | undefined)?.error === 'invalid_client'
    )
      ctx.status = 401;
  };
}
