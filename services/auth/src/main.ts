import { createLogger, loadSettingsOrExit, runService } from '@sheetgate/service-runtime';
import { createAuthApp } from './app.ts';
import type { Cache } from './cache/cache.ts';
import { createMemoryCache } from './cache/memory-cache.ts';
import { createRedisCache } from './cache/redis-cache.ts';
import { parseKeyring } from './crypto/keyring.ts';
import { migrateToLatest } from './db/migrate.ts';
import { createDatabasePool } from './db/pool.ts';
import { createCsrfTokens } from './interactions/csrf.ts';
import { interactionRoutes, type SignedInUser } from './interactions/interaction-routes.ts';
import { signOutRoute } from './interactions/sign-out-route.ts';
import { sweepExpiredOidcModels } from './oidc/postgres-adapter.ts';
import { createOidcProvider } from './oidc/provider.ts';
import { createSessionStore, readSessionCookie } from './sessions/index.ts';
import { authSettingsSchema } from './settings.ts';
import { createSigningKeyStore, parseConfiguredSigningKeys } from './signing-keys/signing-key-store.ts';

const SWEEP_INTERVAL_MS = 10 * 60 * 1000;

const settings = loadSettingsOrExit('auth', authSettingsSchema);
const logger = createLogger({ service: 'auth', level: settings.LOG_LEVEL });

await runService('auth', logger, async () => {
  const keyring = parseKeyring(settings.AUTH_ENCRYPTION_KEYS);
  await migrateToLatest(settings.DATABASE_URL, logger);
  const pool = createDatabasePool(settings.DATABASE_URL);
  let cache: Cache;
  if (settings.REDIS_URL) {
    cache = await createRedisCache(settings.REDIS_URL);
  } else {
    logger.warn('REDIS_URL is not set: using the in-process cache (run one auth replica only)');
    cache = createMemoryCache();
  }
  const signingKeys = settings.AUTH_SIGNING_KEYS
    ? parseConfiguredSigningKeys(settings.AUTH_SIGNING_KEYS)
    : await createSigningKeyStore(pool, keyring).loadOrCreate();
  const provider = createOidcProvider({
    baseUrl: settings.BASE_URL,
    pool,
    cache,
    shortLivedModelsInCache: Boolean(settings.REDIS_URL),
    keyring,
    signingKeys,
    cookieKeys: settings.AUTH_COOKIE_KEYS.split(','),
    accessTokenTtlSeconds: settings.ACCESS_TOKEN_TTL_SECONDS,
    logger,
  });
  const cookieKeys = settings.AUTH_COOKIE_KEYS.split(',');
  const csrf = createCsrfTokens(cookieKeys[0]!);
  const sessions = createSessionStore(pool);
  const signedInUser: SignedInUser = async (ctx) => {
    const session = await sessions.findByCookieValue(readSessionCookie(ctx));
    return session ? { userId: session.userId, sessionId: session.id } : undefined;
  };
  const app = createAuthApp({
    logger,
    baseUrl: settings.BASE_URL,
    provider,
    cookieKeys,
    routes: [
      interactionRoutes({ provider, baseUrl: settings.BASE_URL, signedInUser, csrf, logger }),
      signOutRoute({ pool, sessions, csrf, secureCookies: settings.BASE_URL.startsWith('https:'), logger }),
    ],
    readiness: [
      { name: 'postgres', check: async () => void (await pool.query('SELECT 1')) },
      { name: 'cache', check: () => cache.ping() },
    ],
  });
  // Expired tokens, grants and sessions are deleted in the background; every replica may run it.
  const sweeper = setInterval(() => {
    sweepExpiredOidcModels(pool).catch((error: unknown) => logger.warn({ err: error }, 'sweep failed'));
  }, SWEEP_INTERVAL_MS);
  sweeper.unref();
  return {
    handler: app.callback(),
    host: settings.AUTH_HOST,
    port: settings.AUTH_PORT,
    portSetting: 'AUTH_PORT',
    resources: [async () => clearInterval(sweeper), () => cache.close(), () => pool.end()],
  };
});
