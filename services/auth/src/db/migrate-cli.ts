/** One-shot migration job (Kubernetes Job, or by hand): `pnpm --filter @sheetgate/auth migrate`. */
import { createLogger, loadSettingsOrExit, setting } from '@sheetgate/service-runtime';
import { z } from 'zod';
import { migrateToLatest } from './migrate.ts';

const settings = loadSettingsOrExit(
  'migrate',
  z.object({ DATABASE_URL: setting.url(['postgres', 'postgresql']), LOG_LEVEL: setting.logLevel() }),
);
const logger = createLogger({ service: 'auth-migrate', level: settings.LOG_LEVEL });
const applied = await migrateToLatest(settings.DATABASE_URL, logger);
logger.info({ count: applied.length }, 'database is up to date');
logger.flush();
