import Router from '@koa/router';
import { createLocalJWKSet } from 'jose';
import Koa from 'koa';
import type { IdpClient, Person } from './directory.ts';
import { OAuthError } from './oauth-error.ts';
import { signInRoutes } from './sign-in.ts';
import type { SigningKey } from './signing-key.ts';
import { ID_JAG_TOKEN_TYPE, TOKEN_EXCHANGE_GRANT_TYPE } from './spec-names.ts';
import { tokenRoutes } from './token-routes.ts';

export interface IdpAppOptions {
  issuer: string;
  people: Person[];
  clients: IdpClient[];
  signingKey: SigningKey;
  idJagTtlSeconds: number;
}

/** The emulator's HTTP surface: discovery, JWKS, sign-in and the token endpoint. */
export function createIdpApp(options: IdpAppOptions): Koa {
  const { issuer, signingKey } = options;
  const clients = new Map(options.clients.map((client) => [client.clientId, client]));
  const jwks = { keys: [signingKey.jwk] };
  const signIn = signInRoutes({ issuer, people: options.people, clients });
  const tokens = tokenRoutes({
    issuer,
    people: options.people,
    signingKey,
    ownKeys: createLocalJWKSet(jwks),
    idJagTtlSeconds: options.idJagTtlSeconds,
    clients,
    redeem: signIn.redeem,
  });

  // RFC 8414 / OpenID Discovery, with the draft's `identity_chaining_requested_token_types_supported`.
  const metadata = {
    issuer,
    authorization_endpoint: `${issuer}/authorize`,
    token_endpoint: `${issuer}/token`,
    jwks_uri: `${issuer}/jwks`,
    response_types_supported: ['code'],
    grant_types_supported: ['authorization_code', TOKEN_EXCHANGE_GRANT_TYPE],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
    scopes_supported: ['openid', 'email', 'profile'],
    subject_types_supported: ['public'],
    id_token_signing_alg_values_supported: ['RS256'],
    identity_chaining_requested_token_types_supported: [ID_JAG_TOKEN_TYPE],
  };
  const discovery = new Router();
  discovery.get(['/.well-known/openid-configuration', '/.well-known/oauth-authorization-server'], (ctx) => {
    ctx.body = metadata;
  });
  discovery.get('/jwks', (ctx) => {
    ctx.body = jwks;
  });

  const app = new Koa();
  app.use(async (ctx, next) => {
    try {
      await next();
    } catch (error) {
      if (!(error instanceof OAuthError)) throw error;
      ctx.status = error.status;
      ctx.set('cache-control', 'no-store');
      ctx.body = { error: error.error, error_description: error.message };
    }
  });
  for (const router of [discovery, signIn.router, tokens])
    app.use(router.routes()).use(router.allowedMethods());
  return app;
}
