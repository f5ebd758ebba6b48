import querystring from 'node:querystring';
import type { Logger } from '@sheetgate/service-runtime';
import type { JWK } from 'jose';
import Provider, { type Configuration, errors, type KoaContextWithOIDC } from 'oidc-provider';
import type { Cache } from '../cache/cache.ts';
import type { Keyring } from '../crypto/keyring.ts';
import type { DatabasePool } from '../db/pool.ts';
import type { SigningKey } from '../signing-keys/signing-key-store.ts';
import { CACHED_MODELS, cacheAdapterFactory } from './cache-adapter.ts';
import { postgresAdapterFactory } from './postgres-adapter.ts';
import { normalizeRegistration, unsafeRedirectReason } from './redirect-policy.ts';
import { refreshRetryWindow } from './refresh-retry.ts';
import {
  canonicalResource,
  DEFAULT_RESOURCE_SCOPE,
  mcpResource,
  OIDC_SCOPES,
  RESOURCE_SCOPES,
} from './resource.ts';

/** Where each provider endpoint lives (DESIGN §2: all under /api/auth). */
export const OIDC_ROUTES = {
  authorization: '/api/auth/oauth2/authorize',
  token: '/api/auth/oauth2/token',
  registration: '/api/auth/oauth2/register',
  revocation: '/api/auth/oauth2/revoke',
  userinfo: '/api/auth/oauth2/userinfo',
  end_session: '/api/auth/oauth2/end-session',
  pushed_authorization_request: '/api/auth/oauth2/par',
  jwks: '/api/auth/jwks',
} as const;

export interface ProviderOptions {
  baseUrl: string;
  pool: DatabasePool;
  cache: Cache;
  /** Keep short-lived models in the cache (true with Redis); PostgreSQL otherwise. */
  shortLivedModelsInCache: boolean;
  keyring: Keyring;
  signingKeys: SigningKey[];
  cookieKeys: string[];
  accessTokenTtlSeconds: number;
  logger: Logger;
}

const DAY = 24 * 60 * 60;

export function createOidcProvider(options: ProviderOptions): Provider {
  const { baseUrl, pool, cache, logger } = options;
  const resource = mcpResource(baseUrl);
  const knownScopes = new Set<string>([...OIDC_SCOPES, ...RESOURCE_SCOPES]);
  const PostgresAdapter = postgresAdapterFactory(pool);
  const CacheAdapter = options.shortLivedModelsInCache ? cacheAdapterFactory(cache) : undefined;
  const signingAlgorithm = options.signingKeys[0]?.alg ?? 'ES256';

  const configuration: Configuration = {
    adapter: (model: string) =>
      CacheAdapter && CACHED_MODELS.has(model) ? new CacheAdapter(model) : new PostgresAdapter(model),
    jwks: { keys: options.signingKeys.map((key) => key.privateJwk as JWK) } as Configuration['jwks'],
    routes: OIDC_ROUTES,
    scopes: [...knownScopes],
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
    responseTypes: ['code'],
    pkce: { required: () => true },
    clockTolerance: 5,
    conformIdTokenClaims: true,
    clientDefaults: {
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
    cookies: {
      keys: options.cookieKeys,
      names: { session: 'sg_oidc_session', interaction: 'sg_oidc_interaction', resume: 'sg_oidc_resume' },
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
    // MCP clients rarely ask for offline_access, yet they all need to refresh (issue 4).
    issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    expiresWithSession: async () => false,
    // Rotate on every use; a rotated token presented again revokes the whole grant.
    rotateRefreshToken: () => true,
    features: {
      devInteractions: { enabled: false },
      registration: { enabled: true },
      revocation: { enabled: true },
      userinfo: { enabled: true },
      rpInitiatedLogout: { enabled: true },
      clientIdMetadataDocument: {
        enabled: true,
        ack: 'draft-02',
        allowFetch: async (_ctx: KoaContextWithOIDC, clientId: string) =>
          isPublicHost(new URL(clientId).hostname),
      },
      resourceIndicators: {
        enabled: true,
        defaultResource: async () => resource,
        useGrantedResource: async () => true,
        getResourceServerInfo: async (_ctx, indicator) => {
          if (canonicalResource(indicator, baseUrl) !== resource) throw new errors.InvalidTarget();
          return {
            scope: DEFAULT_RESOURCE_SCOPE,
            audience: resource,
            accessTokenTTL: options.accessTokenTtlSeconds,
            accessTokenFormat: 'jwt',
            jwt: { sign: { alg: signingAlgorithm } },
          };
        },
      },
    } as Configuration['features'],
    clientBasedCORS: () => true,
    // Auth's own route first: the provider scopes its interaction cookie to this path, so only
    // routes below it can complete the interaction (see interactions/interaction-routes.ts).
    interactions: { url: async (_ctx, interaction) => `/api/auth/interaction/${interaction.uid}` },
    findAccount: async (_ctx, sub) => {
      const { rows } = await pool.query<{ id: string; email: string; display_name: string | null }>(
        'SELECT id, email, display_name FROM users WHERE id::text = $1',
        [sub],
      );
      const user = rows[0];
      if (!user) return undefined;
      return {
        accountId: user.id,
        claims: async () => ({
          sub: user.id,
          email: user.email,
          email_verified: true,
          name: user.display_name ?? undefined,
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
      const { rows } = await pool.query<{ id: string }>(
        `SELECT id FROM oidc_models WHERE model = 'Grant' AND payload->>'accountId' = $1
         AND payload->>'clientId' = $2 AND (expires_at IS NULL OR expires_at > now())
         ORDER BY (payload->>'iat')::bigint DESC LIMIT 1`,
        [session.accountId, client.clientId],
      );
      return rows[0] ? ctx.oidc.provider.Grant.find(rows[0].id) : undefined;
    },
    renderError: async (ctx, out) => {
      ctx.type = 'json';
      ctx.body = out;
    },
  };

  const provider = new Provider(baseUrl, configuration);
  provider.proxy = true;
  provider.use(registrationCompatibility(knownScopes));
  provider.use(resourceParameterGuard(baseUrl));
  provider.use(refreshRetryWindow({ cache, keyring: options.keyring, tokenPath: OIDC_ROUTES.token }));
  provider.on('server_error', (_ctx, error) => logger.error({ err: error }, 'provider server error'));
  provider.on('grant.revoked', (_ctx, grantId) => logger.info({ grantId }, 'grant revoked'));
  return provider;
}

/** Rewrites registration bodies into the shapes oidc-provider accepts (see redirect-policy.ts). */
function registrationCompatibility(knownScopes: ReadonlySet<string>) {
  return async (ctx: KoaContextWithOIDC, next: () => Promise<void>) => {
    if (ctx.method !== 'POST' || ctx.path !== OIDC_ROUTES.registration || !ctx.is('application/json'))
      return next();
    const raw = await readBody(ctx);
    if (!raw) return oauthError(ctx, 413, 'invalid_client_metadata', 'the registration body is too large');
    let body: unknown;
    try {
      body = JSON.parse(raw.toString('utf8'));
    } catch {
      return oauthError(ctx, 400, 'invalid_client_metadata', 'the registration body is not valid JSON');
    }
    if (!body || typeof body !== 'object' || Array.isArray(body)) {
      return oauthError(ctx, 400, 'invalid_client_metadata', 'the registration body must be a JSON object');
    }
    for (const uri of Array.isArray((body as { redirect_uris?: unknown }).redirect_uris)
      ? ((body as { redirect_uris: unknown[] }).redirect_uris ?? [])
      : []) {
      const reason = unsafeRedirectReason(uri);
      if (reason) return oauthError(ctx, 400, 'invalid_redirect_uri', reason);
    }
    // oidc-provider reads an already-parsed body from req.body (lib/shared/selective_body.js).
    (ctx.req as { body?: unknown }).body = JSON.stringify(
      normalizeRegistration(body as Record<string, unknown>, knownScopes),
    );
    return next();
  };
}

/**
 * Canonicalises RFC 8707 `resource` values on the authorization and token endpoints, and refuses a
 * foreign one *before* the provider runs, so that a bad `resource` never consumes (rotates) the
 * refresh token it came with.
 */
function resourceParameterGuard(baseUrl: string) {
  const canonicalise = (values: string | string[] | undefined) => {
    if (values === undefined) return { ok: true as const, value: undefined };
    const list = Array.isArray(values) ? values : [values];
    const mapped = list.map((value) => canonicalResource(value, baseUrl));
    if (mapped.some((value) => value === undefined)) return { ok: false as const };
    return { ok: true as const, value: [...new Set(mapped as string[])] };
  };
  return async (ctx: KoaContextWithOIDC, next: () => Promise<void>) => {
    if (ctx.path === OIDC_ROUTES.authorization && (ctx.method === 'GET' || ctx.method === 'POST')) {
      const query = querystring.parse(ctx.querystring);
      if (query.resource !== undefined) {
        const result = canonicalise(query.resource);
        if (result.ok) {
          query.resource = result.value;
          ctx.querystring = querystring.stringify(query);
        }
      }
      if (query.scope === undefined || query.scope === '') {
        query.scope = DEFAULT_RESOURCE_SCOPE;
        ctx.querystring = querystring.stringify(query);
      }
      return next();
    }
    if (
      ctx.path !== OIDC_ROUTES.token ||
      ctx.method !== 'POST' ||
      !ctx.is('application/x-www-form-urlencoded')
    ) {
      return next();
    }
    const raw = await readBody(ctx);
    if (!raw) return oauthError(ctx, 413, 'invalid_request', 'the request body is too large');
    const form = querystring.parse(raw.toString('utf8'));
    const result = canonicalise(form.resource);
    if (!result.ok)
      return oauthError(
        ctx,
        400,
        'invalid_target',
        'the resource is not served by this authorization server',
      );
    if (result.value) form.resource = result.value;
    (ctx.req as { body?: unknown }).body = querystring.stringify(form);
    return next();
  };
}

// The provider's own body limit (lib/shared/selective_body.js), so both readers agree.
const BODY_LIMIT = 56 * 1024;

/** The request body, or undefined when it is over the limit (the connection is then closed). */
async function readBody(ctx: KoaContextWithOIDC): Promise<Buffer | undefined> {
  const tooLarge = () => {
    ctx.set('connection', 'close');
    return undefined;
  };
  if ((ctx.request.length ?? 0) > BODY_LIMIT) return tooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req) {
    size += (chunk as Buffer).length;
    if (size > BODY_LIMIT) return tooLarge();
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

function oauthError(ctx: KoaContextWithOIDC, status: number, error: string, description: string) {
  ctx.status = status;
  ctx.set('cache-control', 'no-store');
  ctx.body = { error, error_description: description };
}

/** Client ID Metadata Documents are fetched only from public hosts, never from our own network. */
function isPublicHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (
    host === 'localhost' ||
    host.endsWith('.localhost') ||
    host.endsWith('.internal') ||
    host.endsWith('.local')
  )
    return false;
  if (/^(127\.|10\.|0\.|169\.254\.|192\.168\.|172\.(1[6-9]|2\d|3[01])\.)/.test(host)) return false;
  if (host === '::1' || host.startsWith('fc') || host.startsWith('fd') || host.startsWith('fe80'))
    return false;
  return true;
}
