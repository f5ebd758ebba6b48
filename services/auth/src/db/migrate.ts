import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Logger } from '@sheetgate/service-runtime';
import { runner } from 'node-pg-migrate';

export const migrationsDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../migrations');

/**
 * Applies every pending versioned migration in `migrations/` (node-pg-migrate, SQL files with
 * `-- Up Migration` / `-- Down Migration`). Safe with several replicas starting at once: the
 * runner holds a PostgreSQL advisory lock while it works.
 */
export async function migrateToLatest(databaseUrl: string, logger: Logger): Promise<string[]> {
  const applied = await runner({
    databaseUrl,
    dir: migrationsDir,
    direction: 'up',
    migrationsTable: 'schema_migrations',
    count: Number.POSITIVE_INFINITY,
    checkOrder: true,
    log: () => {},
    logger: {
      debug: () => {},
      info: () => {},
      warn: (message: string) => logger.warn(message),
      error: (message: string) => logger.error(message),
    },
  });
  const names = applied.map((migration) => migration.name);
  if (names.length > 0) logger.info({ migrations: names }, 'applied migrations');
  return names;
}
