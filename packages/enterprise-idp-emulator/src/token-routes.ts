import { createHash, randomBytes } from 'node:crypto';
import Router from '@koa/router';
import { authenticateClient } from './client-auth.ts';
import type { IdpClient, Person } from './directory.ts';
import { readForm, single } from './form-body.ts';
import { OAuthError } from './oauth-error.ts';
import type { Authorization } from './sign-in.ts';
import type { SigningKey } from './signing-key.ts';
import { TOKEN_EXCHANGE_GRANT_TYPE } from './spec-names.ts';
import { exchangeForIdJag, type TokenExchangeDeps } from './token-exchange.ts';

const ID_TOKEN_TTL_SECONDS = 3_600;

/** The token endpoint: authorization codes for ID tokens, and token exchange for ID-JAGs. */
export function tokenRoutes(
  deps: TokenExchangeDeps & {
    clients: Map<string, IdpClient>;
    redeem(code: string): Authorization | undefined;
  },
) {
  const router = new Router();
  router.post('/token', async (ctx) => {
    const form = await readForm(ctx);
    const client = authenticateClient(ctx, form, deps.clients);
    const grantType = single(form, 'grant_type');
    ctx.set('cache-control', 'no-store');
    if (grantType === 'authorization_code') ctx.body = await exchangeCode(form, client, deps);
    else if (grantType === TOKEN_EXCHANGE_GRANT_TYPE) ctx.body = await exchangeForIdJag(form, client, deps);
    else throw new OAuthError('unsupported_grant_type', 'authorization_code or token exchange only');
  });
  return router;
}

async function exchangeCode(
  form: URLSearchParams,
  client: IdpClient,
  deps: { issuer: string; signingKey: SigningKey; redeem(code: string): Authorization | undefined },
) {
  const authorization = deps.redeem(single(form, 'code') ?? '');
  if (!authorization || authorization.clientId !== client.clientId || !authorization.person)
    throw new OAuthError('invalid_grant', 'unknown, used or expired code');
  if (single(form, 'redirect_uri') !== authorization.redirectUri)
    throw new OAuthError('invalid_grant', 'redirect_uri does not match the authorization request');
  if (authorization.codeChallenge) {
    const verifier = single(form, 'code_verifier') ?? '';
    if (createHash('sha256').update(verifier).digest('base64url') !== authorization.codeChallenge)
      throw new OAuthError('invalid_grant', 'PKCE verification failed');
  }
  return {
    access_token: randomBytes(24).toString('base64url'),
    token_type: 'Bearer',
    expires_in: ID_TOKEN_TTL_SECONDS,
    scope: authorization.scope,
    id_token: await signIdToken(authorization, authorization.person, deps),
  };
}

function signIdToken(
  authorization: Authorization,
  person: Person,
  deps: { issuer: string; signingKey: SigningKey },
) {
  const iat = Math.floor(Date.now() / 1000);
  const scopes = authorization.scope.split(' ');
  return deps.signingKey.sign(
    {
      iss: deps.issuer,
      sub: person.sub,
      aud: authorization.clientId,
      iat,
      exp: iat + ID_TOKEN_TTL_SECONDS,
      auth_time: authorization.authTime,
      ...(authorization.nonce ? { nonce: authorization.nonce } : {}),
      ...(scopes.includes('email') ? { email: person.email, email_verified: true } : {}),
      ...(scopes.includes('profile') && person.name ? { name: person.name } : {}),
    },
    { typ: 'JWT' },
  );
}
