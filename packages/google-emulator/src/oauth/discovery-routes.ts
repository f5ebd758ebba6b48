import Router from '@koa/router';
import type { Context } from 'koa';
import { accountFor } from '../accounts.ts';
import { readFormBody } from '../http/request-body.ts';
import type { GrantStore } from './grant-store.ts';
import { identityClaims } from './id-token.ts';
import { OAuthError } from './oauth-error.ts';
import { KNOWN_SCOPES } from './scopes.ts';
import type { SigningKey } from './signing-key.ts';

/** OpenID discovery, the signing keys (JWK and PEM), userinfo and tokeninfo. */
export function discoveryRoutes(deps: { issuer: string; signingKey: SigningKey; grants: GrantStore }) {
  const { issuer } = deps;
  const router = new Router();

  router.get('/.well-known/openid-configuration', (ctx) => {
    ctx.set('cache-control', 'public, max-age=3600');
    ctx.body = {
      issuer,
      authorization_endpoint: `${issuer}/o/oauth2/v2/auth`,
      token_endpoint: `${issuer}/token`,
      userinfo_endpoint: `${issuer}/v1/userinfo`,
      revocation_endpoint: `${issuer}/revoke`,
      jwks_uri: `${issuer}/oauth2/v3/certs`,
      response_types_supported: ['code'],
      subject_types_supported: ['public'],
      id_token_signing_alg_values_supported: ['RS256'],
      scopes_supported: [
        'openid',
        'email',
        'profile',
        ...[...KNOWN_SCOPES].filter((scope) => scope.includes('/')),
      ],
      token_endpoint_auth_methods_supported: ['client_secret_post', 'client_secret_basic'],
      claims_supported: [
        'aud',
        'email',
        'email_verified',
        'exp',
        'family_name',
        'given_name',
        'iat',
        'iss',
        'name',
        'picture',
        'sub',
      ],
      code_challenge_methods_supported: ['plain', 'S256'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
    };
  });

  router.get('/oauth2/v3/certs', (ctx) => {
    ctx.set('cache-control', 'public, max-age=3600');
    ctx.body = { keys: [deps.signingKey.jwk] };
  });
  // google-auth-library's verifyIdToken fetches this PEM form under Node.
  router.get('/oauth2/v1/certs', (ctx) => {
    ctx.set('cache-control', 'public, max-age=3600');
    ctx.body = { [deps.signingKey.kid]: deps.signingKey.pem };
  });

  const userinfo = (ctx: Context) => {
    const header = ctx.get('authorization');
    const token = /^bearer /i.test(header) ? header.slice(7).trim() : ctx.query.access_token?.toString();
    const access = token ? deps.grants.findAccessToken(token) : undefined;
    if (!access) {
      ctx.set('www-authenticate', 'Bearer realm="https://accounts.google.com/", error="invalid_token"');
      throw new OAuthError('invalid_request', 'Invalid Credentials', 401);
    }
    ctx.body = identityClaims(accountFor(access.email), access.scopes);
  };
  router.get('/v1/userinfo', userinfo);
  router.get('/oauth2/v3/userinfo', userinfo);
  router.get('/openidconnect/v1/userinfo', userinfo);

  // google-auth-library's getTokenInfo POSTs with the token as a Bearer header.
  const tokeninfo = async (ctx: Context) => {
    const header = ctx.get('authorization');
    const form = await readFormBody(ctx);
    const token = /^bearer /i.test(header)
      ? header.slice(7).trim()
      : (ctx.query.access_token?.toString() ?? form.get('access_token') ?? undefined);
    const access = token ? deps.grants.findAccessToken(token) : undefined;
    if (!access) throw new OAuthError('invalid_token', 'Invalid Value');
    const expiresIn = Math.max(0, Math.floor((access.expiresAt - Date.now()) / 1000));
    const claims = identityClaims(accountFor(access.email), access.scopes);
    ctx.body = {
      azp: access.clientId,
      aud: access.clientId,
      sub: claims.sub,
      scope: access.scopes.join(' '),
      exp: String(Math.floor(access.expiresAt / 1000)),
      expires_in: String(expiresIn),
      ...(claims.email ? { email: claims.email, email_verified: 'true' } : {}),
      access_type: 'online',
    };
  };
  router.get('/tokeninfo', tokeninfo);
  router.post('/tokeninfo', tokeninfo);
  router.get('/oauth2/v3/tokeninfo', tokeninfo);
  return router;
}
