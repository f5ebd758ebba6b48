import type { Logger } from '@sheetgate/service-runtime';
import type { JWK } from 'jose';
import Provider, { type Configuration, errors } from 'oidc-provider';
import type { AuditLog } from '../audit/index.ts';
import type { Cache } from '../cache/cache.ts';
import type { AppToolsets } from '../connected-apps/app-toolsets.ts';
import type { Keyring } from '../crypto/keyring.ts';
import type { DatabasePool } from '../db/pool.ts';
import type { EdgeRevocations } from '../edge-revocations/edge-revocations.ts';
import { ID_JAG_GRANT_PROFILE } from '../enterprise-idps/id-jag-refusal.ts';
import { type JwtBearerGrantDeps, registerJwtBearerGrant } from '../enterprise-idps/jwt-bearer-grant.ts';
import type { SigningKey } from '../signing-keys/signing-key-store.ts';
import { createUserQueries } from '../users/user-queries.ts';
import { anonymousEndSession } from './anonymous-end-session.ts';
import { clientAuthenticationStatus } from './client-auth-status.ts';
import { clientMetadataPolicy } from './client-metadata-policy.ts';
import { announceGrantRevocations } from './edge-grant-revocations.ts';
import { auditGrantRevocations } from './grant-audit.ts';
import { jsonBodyDepthGuard } from './json-body-depth.ts';
import type { ModelSecrets } from './model-secrets.ts';
import { createOidcModelQueries } from './oidc-model-queries.ts';
import { allowMetadataDocumentFetch, createOutboundFetch } from './outbound-fetch.ts';
import { postgresAdapterFactory } from './postgres-adapter.ts';
import { logoutSource, postLogoutSuccessSource, providerPageHeaders } from './provider-pages.ts';
import { type RedisModelStore, SHORT_LIVED_MODELS } from './redis-adapter.ts';
import { refreshRetryWindow } from './refresh-retry.ts';
import {
  canonicalResource,
  mcpResource,
  mcpResourceServerInfo,
  OIDC_SCOPES,
  RESOURCE_SCOPES,
} from './resource.ts';
import { resourceParameterGuard } from './resource-guard.ts';
import { OIDC_ROUTES, PROVIDER_COOKIES } from './routes.ts';
import { providerQueryable, providerStoreOutages } from './store-outage.ts';

export interface ProviderOptions {
  baseUrl: string;
  pool: DatabasePool;
  cache: Cache;
  /** Where short-lived models (codes, interactions, replay detection) live: Redis when configured; PostgreSQL otherwise. */
  shortLivedModels?: RedisModelStore;
  keyring: Keyring;
  /** How bearer ids and client secrets are stored (hashed, sealed). */
  modelSecrets: ModelSecrets;
  signingKeys: SigningKey[];
  cookieKeys: string[];
  accessTokenTtlSeconds: number;
  logger: Logger;
  /** Records grant revocations (and refresh-token reuse) as security events. */
  audit: AuditLog;
  /** Tells every MCP replica about the grants the provider revokes. */
  edgeRevocations: Pick<EdgeRevocations, 'grantRevoked'>;
  /** The toolsets each person chose for each app, carried in its access tokens. */
  appToolsets: Pick<AppToolsets, 'chosen' | 'choose'>;
  /** ID-JAGs of trusted enterprise identity providers (docs/design.md §4.7), when any is trusted. */
  enterpriseGrant?: Pick<JwtBearerGrantDeps, 'verifier' | 'people' | 'replays'>;
}

const DAY = 24 * 60 * 60;

export function createOidcProvider(options: ProviderOptions): Provider {
  const { baseUrl, cache, logger } = options;
  const pool = providerQueryable(options.pool);
  const resource = mcpResource(baseUrl);
  const knownScopes = new Set<string>([...OIDC_SCOPES, ...RESOURCE_SCOPES]);
  const PostgresAdapter = postgresAdapterFactory(pool, options.modelSecrets);
  const models = createOidcModelQueries(pool);
  const users = createUserQueries(pool);
  const signingAlgorithm = options.signingKeys[0]?.alg ?? 'ES256';

  const configuration: Configuration = {
    adapter: (model: string) =>
      options.shortLivedModels && SHORT_LIVED_MODELS.has(model)
        ? options.shortLivedModels.adapterFor(model)
        : new PostgresAdapter(model),
    jwks: { keys: options.signingKeys.map((key) => key.privateJwk as JWK) } as Configuration['jwks'],
    routes: OIDC_ROUTES,
    scopes: [...knownScopes],
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
    responseTypes: ['code'],
    pkce: { required: () => true },
    clockTolerance: 5,
    conformIdTokenClaims: true,
    clientDefaults: {
      // Decided per client by the client policy (redirect-policy.ts) instead of defaulting to web;
      // null because the provider's configuration merge drops undefined values.
      application_type: null as unknown as 'web',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'client_secret_basic',
      id_token_signed_response_alg: signingAlgorithm,
    },
    enabledJWA: {
      idTokenSigningAlgValues: [signingAlgorithm],
      userinfoSigningAlgValues: [signingAlgorithm],
    },
    clientAuthMethods: ['none', 'client_secret_basic', 'client_secret_post'],
    extraClientMetadata: clientMetadataPolicy(knownScopes, options.enterpriseGrant?.verifier.trustsClient),
    cookies: {
      keys: options.cookieKeys,
      names: PROVIDER_COOKIES,
      long: { signed: true, httpOnly: true, sameSite: 'lax', secure: baseUrl.startsWith('https:') },
      short: { signed: true, httpOnly: true, sameSite: 'lax', secure: baseUrl.startsWith('https:') },
    },
    ttl: {
      AccessToken: options.accessTokenTtlSeconds,
      AuthorizationCode: 60,
      IdToken: 3600,
      Interaction: 10 * 60,
      Session: 14 * DAY,
      Grant: 365 * DAY,
      RefreshToken: 30 * DAY,
    },
    formats: {
      customizers: {
        // The grant an access token was issued under, so a resource server can refuse it once the
        // grant is revoked (services/mcp checks it against the revocation stream); and the
        // toolsets the person chose for the app on the consent screen (none chosen: no claim,
        // every set), which services/mcp lists and enforces.
        jwt: async (_ctx, token, jwt) => {
          if ('grantId' in token && token.grantId) jwt.payload.grant_id = token.grantId;
          if ('accountId' in token && token.accountId && token.clientId) {
            const toolsets = await options.appToolsets.chosen(token.accountId, token.clientId);
            if (toolsets) jwt.payload.toolsets = toolsets;
          }
        },
      },
    },
    // MCP clients rarely ask for offline_access, yet they all need to refresh (issue 4).
    issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    expiresWithSession: async () => false,
    // Rotate on every use; a rotated token presented again revokes the whole grant.
    rotateRefreshToken: () => true,
    features: {
      devInteractions: { enabled: false },
      // No MCP client pushes its authorization requests; one endpoint less to guard.
      pushedAuthorizationRequests: { enabled: false },
      registration: { enabled: true },
      revocation: { enabled: true },
      userinfo: { enabled: true },
      rpInitiatedLogout: { enabled: true, logoutSource, postLogoutSuccessSource },
      // Documents are fetched through `fetch` below, which checks every address before it
      // connects (outbound-fetch.ts). The client policy applies to them as to registered clients.
      clientIdMetadataDocument: { enabled: true, ack: 'draft-02', allowFetch: allowMetadataDocumentFetch },
      resourceIndicators: {
        enabled: true,
        defaultResource: async () => resource,
        useGrantedResource: async () => true,
        getResourceServerInfo: async (_ctx, indicator) => {
          if (canonicalResource(indicator, baseUrl) !== resource) throw new errors.InvalidTarget();
          return mcpResourceServerInfo(baseUrl, options.accessTokenTtlSeconds, signingAlgorithm);
        },
      },
    } as Configuration['features'],
    // Every URL the provider fetches is chosen by a client (SSRF): see outbound-fetch.ts.
    fetch: createOutboundFetch(),
    // RFC 8414 metadata of the ID-JAG profile (the draft's §Resource Authorization Server Metadata;
    // the jwt-bearer grant type itself is listed once registered below).
    ...(options.enterpriseGrant
      ? { discovery: { authorization_grant_profiles_supported: [ID_JAG_GRANT_PROFILE] } }
      : {}),
    clientBasedCORS: () => true,
    // Auth's own route first: the provider scopes its interaction cookie to this path, so only
    // routes below it can complete the interaction (see interactions/interaction-routes.ts).
    interactions: { url: async (_ctx, interaction) => `/api/auth/interaction/${interaction.uid}` },
    findAccount: async (_ctx, sub) => {
      const user = await users.findByAccountId(sub);
      if (!user) return undefined;
      return {
        accountId: user.id,
        claims: async () => ({
          sub: user.id,
          email: user.email,
          email_verified: true,
          name: user.displayName ?? undefined,
        }),
      };
    },
    // Consent is remembered per user and client, across sessions: reuse the newest grant.
    loadExistingGrant: async (ctx) => {
      const session = ctx.oidc.session;
      const client = ctx.oidc.client;
      if (!session?.accountId || !client) return undefined;
      const grantId = ctx.oidc.result?.consent?.grantId ?? session.grantIdFor(client.clientId);
      if (grantId) return ctx.oidc.provider.Grant.find(grantId);
      const newest = await models.newestGrantId(session.accountId, client.clientId);
      return newest ? ctx.oidc.provider.Grant.find(newest) : undefined;
    },
    renderError: async (ctx, out) => {
      ctx.type = 'json';
      ctx.body = out;
    },
  };

  const provider = new Provider(baseUrl, configuration);
  provider.proxy = true;
  provider.use(providerPageHeaders());
  provider.use(providerStoreOutages());
  provider.use(clientAuthenticationStatus());
  provider.use(anonymousEndSession(provider));
  provider.use(resourceParameterGuard(baseUrl));
  provider.use(jsonBodyDepthGuard());
  provider.use(refreshRetryWindow({ cache, keyring: options.keyring, tokenPath: OIDC_ROUTES.token, logger }));
  provider.on('server_error', (_ctx, error) => logger.error({ err: error }, 'provider server error'));
  if (options.enterpriseGrant)
    registerJwtBearerGrant(provider, {
      ...options.enterpriseGrant,
      baseUrl,
      pool,
      appToolsets: options.appToolsets,
      audit: options.audit,
      logger,
      resourceServerInfo: mcpResourceServerInfo(baseUrl, options.accessTokenTtlSeconds, signingAlgorithm),
    });
  auditGrantRevocations(provider, options.audit, logger);
  announceGrantRevocations(provider, options.edgeRevocations, logger);
  return provider;
}
