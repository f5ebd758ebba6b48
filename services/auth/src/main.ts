import { createLogger, loadSettingsOrExit, runService } from '@sheetgate/service-runtime';
import { createAuthApp } from './app.ts';
import type { Cache } from './cache/cache.ts';
import { createMemoryCache } from './cache/memory-cache.ts';
import { createRedisCache } from './cache/redis-cache.ts';
import { migrateToLatest } from './db/migrate.ts';
import { createDatabasePool } from './db/pool.ts';
import { authSettingsSchema } from './settings.ts';

const settings = loadSettingsOrExit('auth', authSettingsSchema);
const logger = createLogger({ service: 'auth', level: settings.LOG_LEVEL });

await runService('auth', logger, async () => {
  await migrateToLatest(settings.DATABASE_URL, logger);
  const pool = createDatabasePool(settings.DATABASE_URL);
  let cache: Cache;
  if (settings.REDIS_URL) {
    cache = await createRedisCache(settings.REDIS_URL);
  } else {
    logger.warn('REDIS_URL is not set: using the in-process cache (run one auth replica only)');
    cache = createMemoryCache();
  }
  const app = createAuthApp({
    logger,
    readiness: [
      { name: 'postgres', check: async () => void (await pool.query('SELECT 1')) },
      { name: 'cache', check: () => cache.ping() },
    ],
  });
  return {
    handler: app.callback(),
    host: settings.AUTH_HOST,
    port: settings.AUTH_PORT,
    portSetting: 'AUTH_PORT',
    resources: [() => cache.close(), () => pool.end()],
  };
});
