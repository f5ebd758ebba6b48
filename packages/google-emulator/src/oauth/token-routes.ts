import { createHash, timingSafeEqual } from 'node:crypto';
import Router from '@koa/router';
import type { Context } from 'koa';
import { accountFor } from '../accounts.ts';
import { GRANT_TYPE_STATE } from '../admin/request-stats.ts';
import { readFormBody } from '../http/request-body.ts';
import type { OAuthClientConfig, OAuthClients } from './clients.ts';
import type { GrantStore } from './grant-store.ts';
import { grantsOpenId, signIdToken } from './id-token.ts';
import { oauthErrors } from './oauth-error.ts';
import type { SigningKey } from './signing-key.ts';

export interface TokenRouteDeps {
  clients: OAuthClients;
  grants: GrantStore;
  signingKey: SigningKey;
  issuer: string;
}

/** Google's token endpoint (authorization_code and refresh_token grants) and revocation endpoint. */
export function tokenRoutes(deps: TokenRouteDeps) {
  const router = new Router();

  router.post('/token', async (ctx) => {
    const form = await readFormBody(ctx);
    const grantType = form.get('grant_type');
    ctx.state[GRANT_TYPE_STATE] = grantType;
    const client = authenticateClient(ctx, form, deps.clients);
    ctx.set('cache-control', 'no-store');
    if (grantType === 'authorization_code') ctx.body = await exchangeCode(form, client, deps);
    else if (grantType === 'refresh_token') ctx.body = await refresh(form, client, deps);
    else if (!grantType) throw oauthErrors.unsupportedGrantType('Missing grant_type');
    else throw oauthErrors.unsupportedGrantType(`Invalid grant_type: ${grantType}`);
  });

  const revoke = async (ctx: Context) => {
    const form = await readFormBody(ctx);
    const token = ctx.query.token?.toString() ?? form.get('token') ?? '';
    if (!token) throw oauthErrors.invalidRequest('Missing required parameter: token');
    if (!deps.grants.revokeToken(token)) throw oauthErrors.invalidToken('Token expired or revoked');
    ctx.body = {};
  };
  router.post('/revoke', revoke);
  router.get('/revoke', revoke);
  // The older path, still served by Google.
  router.post('/o/oauth2/revoke', revoke);
  return router;
}

/** RFC 6749 §2.3.1: client_secret_basic (form-encoded id and secret in Basic) or client_secret_post. */
function authenticateClient(ctx: Context, form: URLSearchParams, clients: OAuthClients): OAuthClientConfig {
  let clientId = form.get('client_id') ?? undefined;
  let clientSecret = form.get('client_secret') ?? undefined;
  const header = ctx.get('authorization');
  if (/^basic /i.test(header)) {
    const decoded = Buffer.from(header.slice(6).trim(), 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon < 0) throw oauthErrors.invalidClient('Malformed Basic authorization header');
    clientId = decodeURIComponent(decoded.slice(0, colon).replace(/\+/g, ' '));
    clientSecret = decodeURIComponent(decoded.slice(colon + 1).replace(/\+/g, ' '));
  }
  if (!clientId) throw oauthErrors.invalidRequest('Could not determine client ID from request.');
  const client = clients.find(clientId);
  if (!client) throw oauthErrors.invalidClient('The OAuth client was not found.');
  if (clientSecret === undefined || !sameSecret(clientSecret, client.clientSecret)) {
    throw oauthErrors.invalidClient('Unauthorized');
  }
  return client;
}

function sameSecret(given: string, expected: string): boolean {
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

async function exchangeCode(form: URLSearchParams, client: OAuthClientConfig, deps: TokenRouteDeps) {
  const code = form.get('code');
  if (!code) throw oauthErrors.invalidRequest('Missing required parameter: code');
  const authorization = deps.grants.redeemCode(code);
  if (!authorization || authorization.clientId !== client.clientId)
    throw oauthErrors.invalidGrant('Malformed auth code.');
  if (form.get('redirect_uri') !== authorization.redirectUri) throw oauthErrors.invalidGrant('Bad Request');
  if (authorization.codeChallenge) {
    const verifier = form.get('code_verifier');
    if (!verifier) throw oauthErrors.invalidGrant('Missing code verifier.');
    const derived =
      authorization.codeChallengeMethod === 'S256'
        ? createHash('sha256').update(verifier).digest('base64url')
        : verifier;
    if (derived !== authorization.codeChallenge) throw oauthErrors.invalidGrant('Invalid code verifier.');
  }
  const { email, scopes } = authorization;
  const hadRefreshToken = deps.grants.recordGrant(email, client.clientId, scopes);
  const access = deps.grants.issueAccessToken(email, client.clientId, scopes);
  // Google returns a refresh token for offline access on first consent, or again with prompt=consent.
  const refreshToken =
    authorization.offline && (authorization.forceConsent || !hadRefreshToken)
      ? deps.grants.issueRefreshToken(email, client.clientId, scopes).token
      : undefined;
  return {
    access_token: access.token,
    expires_in: deps.grants.accessTokenTtlSeconds,
    ...(refreshToken ? { refresh_token: refreshToken } : {}),
    scope: scopes.join(' '),
    token_type: 'Bearer',
    ...(grantsOpenId(scopes)
      ? {
          id_token: await signIdToken(deps.signingKey, {
            issuer: deps.issuer,
            clientId: client.clientId,
            account: accountFor(email),
            scopes,
            ...(authorization.nonce ? { nonce: authorization.nonce } : {}),
            ...(authorization.authTime !== undefined ? { authTime: authorization.authTime } : {}),
          }),
        }
      : {}),
  };
}

async function refresh(form: URLSearchParams, client: OAuthClientConfig, deps: TokenRouteDeps) {
  const token = form.get('refresh_token');
  if (!token) throw oauthErrors.invalidRequest('Missing required parameter: refresh_token');
  const stored = deps.grants.findRefreshToken(token);
  if (!stored) throw oauthErrors.invalidGrant('Token has been expired or revoked.');
  if (stored.clientId !== client.clientId) throw oauthErrors.invalidGrant('Unauthorized');
  // A narrower `scope` may be asked for on refresh; never a wider one.
  const asked = form.get('scope')?.split(/\s+/).filter(Boolean);
  if (asked?.some((scope) => !stored.scopes.includes(scope)))
    throw oauthErrors.invalidGrant('Invalid scope.');
  const scopes = asked && asked.length > 0 ? asked : stored.scopes;
  const access = deps.grants.issueAccessToken(stored.email, client.clientId, scopes);
  return {
    access_token: access.token,
    expires_in: deps.grants.accessTokenTtlSeconds,
    scope: scopes.join(' '),
    token_type: 'Bearer',
    ...(grantsOpenId(scopes)
      ? {
          id_token: await signIdToken(deps.signingKey, {
            issuer: deps.issuer,
            clientId: client.clientId,
            account: accountFor(stored.email),
            scopes,
          }),
        }
      : {}),
  };
}
