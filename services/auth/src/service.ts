import {
  AccountServiceService,
  callConsentService,
  changeJournalService,
  googleQuotaService,
  RevocationServiceService,
  requestStateService,
  startGrpcServer,
  TokenBrokerServiceService,
} from '@sheetgate/proto';
import { type Logger, logKoaErrors, type ServicePlan, sessionCookie } from '@sheetgate/service-runtime';
import { createApiKeyLibrary, createKeyRevocations } from './api-keys/index.ts';
import { createAuthApp } from './app.ts';
import { createAuditLog } from './audit/index.ts';
import type { Cache } from './cache/cache.ts';
import { createMemoryCache } from './cache/memory-cache.ts';
import { createRedisCache } from './cache/redis-cache.ts';
import { createAppChoices } from './call-consent/app-choices.ts';
import { createCallApprovals } from './call-consent/call-approvals.ts';
import { createChangeJournal } from './change-journal/change-journal.ts';
import { createAppToolsets } from './connected-apps/app-toolsets.ts';
import { createConnectedApps } from './connected-apps/connected-apps.ts';
import { parseKeyring } from './crypto/keyring.ts';
import { migrateToLatest } from './db/migrate.ts';
import { createDatabasePool } from './db/pool.ts';
import { startEdgeRevocations } from './edge-revocations/index.ts';
import { createEnterpriseGrant } from './enterprise-idps/index.ts';
import {
  createGoogleConnectionLibrary,
  createGoogleSignIn,
  createGoogleTokenBroker,
} from './google/index.ts';
import { createMemoryQuotaScheduler, createRedisQuotaScheduler, googleQuotas } from './google-quota/index.ts';
import { accountServiceHandlers } from './grpc/account-service.ts';
import { callConsentHandlers } from './grpc/call-consent-service.ts';
import { changeJournalHandlers } from './grpc/change-journal-service.ts';
import { googleQuotaHandlers } from './grpc/google-quota-service.ts';
import { requestStateHandlers } from './grpc/request-state-service.ts';
import { tokenBrokerHandlers } from './grpc/token-broker-service.ts';
import { createCsrfTokens } from './interactions/csrf.ts';
import { interactionRoutes, type SignedInUser } from './interactions/interaction-routes.ts';
import { signOutRoute } from './interactions/sign-out-route.ts';
import { type AuthMetrics, createAuthMetrics } from './metrics/auth-metrics.ts';
import { createModelSecrets } from './oidc/model-secrets.ts';
import { createOidcModelQueries } from './oidc/oidc-model-queries.ts';
import { sweepExpiredOidcModels } from './oidc/postgres-adapter.ts';
import { createOidcProvider } from './oidc/provider.ts';
import { createRedisModelStore } from './oidc/redis-adapter.ts';
import { convertModelsStoredInClear } from './oidc/stored-in-clear.ts';
import { createPickedFiles } from './picked-files/picked-files.ts';
import { createImportedApiKeys } from './provider-migration/imported-api-keys.ts';
import { createLegacySessionExchange } from './provider-migration/legacy-sessions.ts';
import { createRateLimits, rateLimitAuthRoutes } from './rate-limits/index.ts';
import { createRequestStateClaims } from './request-states/request-state-claims.ts';
import { createSessionStore } from './sessions/index.ts';
import { type AuthSettings, DEFAULT_REDIS_KEY_PREFIX } from './settings.ts';
import { createSigningKeyStore, parseConfiguredSigningKeys } from './signing-keys/signing-key-store.ts';
import { createUserLibrary } from './users/index.ts';

const SWEEP_INTERVAL_MS = 10 * 60 * 1000;

/**
 * The auth service assembled from its settings: migrations, the PostgreSQL pool and the cache, the
 * key ring (parsed once, here), the libraries, the OIDC provider, the HTTP app and the gRPC
 * server, and the background sweep. `main.ts` runs the plan it answers.
 */
export async function createAuthService(
  settings: AuthSettings,
  logger: Logger,
  metrics: AuthMetrics = createAuthMetrics(),
): Promise<ServicePlan> {
  const keyring = parseKeyring(settings.AUTH_ENCRYPTION_KEYS);
  await migrateToLatest(settings.DATABASE_URL, logger);
  const pool = createDatabasePool(settings.DATABASE_URL, 10, (error) =>
    logger.warn({ err: error }, 'a pooled PostgreSQL connection was lost'),
  );
  const modelSecrets = createModelSecrets({ pepper: settings.API_KEY_PEPPER, keyring });
  const converted = await convertModelsStoredInClear(pool, modelSecrets);
  if (converted > 0) logger.info({ converted }, 'OAuth models stored in clear were hashed and sealed');
  let cache: Cache;
  if (settings.REDIS_URL) {
    cache = await createRedisCache(settings.REDIS_URL, { logger });
  } else {
    // `pnpm start`'s own choice (docs/design.md §6), said at info there; an image (NODE_ENV
    // production) deployed without it is warned, as deploy/README.md's log lines to watch expect.
    const inProcess = 'REDIS_URL is not set: using the in-process cache (run one auth replica only)';
    if (process.env.NODE_ENV === 'production') logger.warn(inProcess);
    else logger.info(inProcess);
    cache = createMemoryCache();
  }
  const audit = createAuditLog(pool);
  const rateLimits = metrics.countRateLimitRefusals(
    await createRateLimits({
      pool,
      logger,
      keyPrefix: settings.RATE_LIMIT_KEY_PREFIX,
      ...(settings.REDIS_URL ? { redisUrl: settings.REDIS_URL } : {}),
      ...(settings.RATE_LIMIT_OVERRIDES ? { rules: settings.RATE_LIMIT_OVERRIDES } : {}),
    }),
  );

  const quotas = googleQuotas(settings.GOOGLE_QUOTAS);
  // Turns at Google's quotas for every MCP replica: in Redis when there is one, else here.
  const googleQuota = settings.REDIS_URL
    ? await createRedisQuotaScheduler({
        url: settings.REDIS_URL,
        quotas,
        keyPrefix: settings.RATE_LIMIT_KEY_PREFIX,
        logger,
      })
    : createMemoryQuotaScheduler(quotas);
  metrics.watchGoogleQuota(googleQuota);

  const edge = await startEdgeRevocations({
    pool,
    redisUrl: settings.REDIS_URL,
    redisKeyPrefix:
      settings.RATE_LIMIT_KEY_PREFIX === DEFAULT_REDIS_KEY_PREFIX
        ? undefined
        : settings.RATE_LIMIT_KEY_PREFIX,
    heartbeatIntervalMs: settings.REVOCATION_HEARTBEAT_MS,
    accessTokenTtlSeconds: settings.ACCESS_TOKEN_TTL_SECONDS,
    staleAfterMs: settings.REVOCATION_STALE_AFTER_MS,
    logger,
  });
  const edgeRevocations = edge.library;
  metrics.countRevocationStreams(edge.connected);

  const signingKeys = settings.AUTH_SIGNING_KEYS
    ? parseConfiguredSigningKeys(settings.AUTH_SIGNING_KEYS)
    : await createSigningKeyStore(pool, keyring).loadOrCreate();
  const cookieKeys = settings.AUTH_COOKIE_KEYS.split(',');
  const shortLivedModels = settings.REDIS_URL
    ? await createRedisModelStore(settings.REDIS_URL, { secrets: modelSecrets, logger })
    : undefined;
  const appToolsets = createAppToolsets(pool);
  // The person's say on outbound and destructive calls, per credential (docs/design.md §11.10).
  const appChoices = createAppChoices({ pool, audit });
  const callApprovals = createCallApprovals({
    pool,
    audit,
    clientName: async (clientId) => {
      const [client] = await createOidcModelQueries(pool).findLiveByIds('Client', [clientId]);
      return typeof client?.payload.client_name === 'string' ? client.payload.client_name : undefined;
    },
  });
  const provider = createOidcProvider({
    baseUrl: settings.BASE_URL,
    pool,
    cache,
    shortLivedModels,
    keyring,
    modelSecrets,
    signingKeys,
    cookieKeys,
    accessTokenTtlSeconds: settings.ACCESS_TOKEN_TTL_SECONDS,
    logger,
    audit,
    edgeRevocations,
    appToolsets,
    enterpriseGrant: createEnterpriseGrant({
      baseUrl: settings.BASE_URL,
      idps: settings.ENTERPRISE_IDPS,
      pool,
      cache,
    }),
  });

  const csrf = createCsrfTokens(cookieKeys[0]!);
  const users = createUserLibrary(pool);
  const sessions = createSessionStore(pool);
  const googleConnections = createGoogleConnectionLibrary({
    pool,
    keyring,
    scopeMode: settings.GOOGLE_SCOPE_MODE,
  });
  const googleTokens = createGoogleTokenBroker({
    cache,
    settings,
    keyring,
    connections: googleConnections,
    logger,
    audit,
    edgeRevocations,
    onRefresh: metrics.googleTokenRefreshed,
  });
  const apiKeys = createApiKeyLibrary({
    pool,
    pepper: settings.API_KEY_PEPPER,
    rateLimiter: rateLimits.apiKey,
    addressFailureLimiter: rateLimits.apiKeyFailures,
    revocations: await createKeyRevocations({
      redisUrl: settings.REDIS_URL,
      keyPrefix:
        settings.RATE_LIMIT_KEY_PREFIX === DEFAULT_REDIS_KEY_PREFIX
          ? undefined
          : settings.RATE_LIMIT_KEY_PREFIX,
      logger,
    }),
    audit,
    importedKeys: createImportedApiKeys(pool),
    logger,
    onLookup: metrics.apiKeyLookedUp,
    onThrottledUnread: metrics.apiKeysThrottledUnread,
  });
  // What each write through Sheetgate changed, for undo (docs/design.md §11.8).
  const changeJournal = createChangeJournal({
    pool,
    keyring,
    retentionDays: settings.CHANGE_JOURNAL_RETENTION_DAYS,
    maxBytesPerPerson: settings.CHANGE_JOURNAL_MAX_MB_PER_PERSON * 1024 * 1024,
  });
  const legacySessions = createLegacySessionExchange({ pool, sessions, audit });
  const connectedApps = createConnectedApps({
    pool,
    provider,
    audit,
    edgeRevocations,
    appToolsets,
    appChoices,
  });
  const signedInUser: SignedInUser = async (ctx) => {
    const session = await sessions.findByCookieValue(sessionCookie.read(ctx));
    return session
      ? { userId: session.userId, sessionId: session.id, signedInAt: session.signedInAt }
      : undefined;
  };

  // oidc-provider is a Koa app of its own, called from auth's with the same request.
  logKoaErrors(provider, logger);
  const app = createAuthApp({
    logger,
    baseUrl: settings.BASE_URL,
    provider,
    cookieKeys,
    trustedProxies: settings.TRUSTED_PROXIES,
    limits: [rateLimitAuthRoutes(rateLimits, { audit, logger })],
    routes: [
      ...createGoogleSignIn({
        cache,
        settings,
        keyring,
        logger,
        users,
        sessions,
        connections: googleConnections,
        audit,
        signInLimiter: rateLimits.signIn,
        edgeRevocations,
      }),
      ...interactionRoutes({
        provider,
        baseUrl: settings.BASE_URL,
        signedInUser,
        csrf,
        logger,
        appToolsets,
        appChoices,
      }),
      signOutRoute({ provider, sessions, csrf, baseUrl: settings.BASE_URL, logger, audit }),
    ],
    readiness: [
      { name: 'postgres', check: async () => void (await pool.query('SELECT 1')) },
      { name: 'cache', check: () => cache.ping() },
    ],
  });
  logKoaErrors(app, logger);

  const grpc = await startGrpcServer({
    host: settings.AUTH_HOST,
    port: settings.AUTH_GRPC_PORT,
    serviceToken: settings.INTERNAL_SERVICE_TOKEN,
    callMetrics: { metrics: metrics.collector, service: 'auth' },
    services: [
      {
        definition: TokenBrokerServiceService,
        handlers: tokenBrokerHandlers({ logger, apiKeys, googleTokens, revocations: edgeRevocations }),
      },
      {
        definition: AccountServiceService,
        handlers: accountServiceHandlers({
          logger,
          sessions,
          users,
          csrf,
          googleConnections,
          connectedApps,
          apiKeys,
          provider,
          legacySessions,
          edgeRevocations,
          appToolsets,
          appChoices,
          callApprovals,
          scopeMode: settings.GOOGLE_SCOPE_MODE,
          googleTokens,
          pickedFiles: createPickedFiles(pool),
          changeJournal,
        }),
      },
      { definition: RevocationServiceService, handlers: { watchRevocations: edge.watchRevocations } },
      googleQuotaService(
        googleQuotaHandlers({ logger, scheduler: googleQuota, onTurn: metrics.googleQuotaTurn }),
      ),
      changeJournalService(
        changeJournalHandlers({ logger, journal: changeJournal, onRecorded: metrics.changesRecorded }),
      ),
      // Used MCP requestStates, in the cache every auth replica shares (docs/design.md §15).
      requestStateService(requestStateHandlers({ logger, claims: createRequestStateClaims(cache) })),
      // A credential's choices and the calls approved on a page (docs/design.md §11.10).
      callConsentService(callConsentHandlers({ logger, apiKeys, appChoices, approvals: callApprovals })),
    ],
    // A RecordChanges batch carries up to 50 entries of at most 512 KiB of before-images each; the
    // MCP service keeps a call under 4 MiB.
    maxReceiveMessageBytes: 4 * 1024 * 1024,
  });
  logger.info({ port: grpc.port }, 'auth gRPC listening');

  // Expired tokens, grants and sessions are deleted in the background; every replica may run it.
  const sweeper = setInterval(() => {
    Promise.all([
      sweepExpiredOidcModels(pool),
      // Rows a replica of an earlier release wrote during a rollout.
      convertModelsStoredInClear(pool, modelSecrets),
      sessions.sweepEnded(),
      legacySessions.sweep(),
      edgeRevocations.sweep(),
      // Change journal entries past CHANGE_JOURNAL_RETENTION_DAYS.
      changeJournal.purgeExpired(),
      // Call approvals an hour after they expired.
      callApprovals.sweep(),
    ]).catch((error: unknown) => logger.warn({ err: error }, 'sweep failed'));
  }, SWEEP_INTERVAL_MS);
  sweeper.unref();

  return {
    handler: app.callback(),
    host: settings.AUTH_HOST,
    port: settings.AUTH_PORT,
    portSetting: 'AUTH_PORT',
    metrics: {
      collector: metrics.collector,
      port: settings.AUTH_METRICS_PORT,
      portSetting: 'AUTH_METRICS_PORT',
    },
    otherServers: [
      {
        close: async () => {
          // Streams never finish by themselves: ended here, the replicas reconnect to another auth.
          edge.endStreams();
          await grpc.close();
        },
      },
    ],
    resources: [
      () => edge.close(),
      async () => clearInterval(sweeper),
      () => apiKeys.close(),
      () => rateLimits.close(),
      () => cache.close(),
      () => googleQuota.close(),
      async () => shortLivedModels?.close(),
      () => pool.end(),
    ],
  };
}
