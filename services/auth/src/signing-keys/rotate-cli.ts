/**
 * Signing-key rotation for keys stored in the database (when AUTH_SIGNING_KEYS is not set):
 *   pnpm --filter @sheetgate/auth keys stage    # publish a next key (restart auth to serve it)
 *   pnpm --filter @sheetgate/auth keys promote  # the next key signs; the old one stays published
 *   pnpm --filter @sheetgate/auth keys prune    # stop publishing keys retired > 1 hour ago
 *   pnpm --filter @sheetgate/auth keys list
 * Wait at least the JWKS cache lifetime (5 minutes) between stage and promote, and at least the
 * access-token lifetime (15 minutes) between promote and prune, rolling auth out after each step.
 */
import { createLogger, loadSettingsOrExit, setting } from '@sheetgate/service-runtime';
import { z } from 'zod';
import { parseKeyring } from '../crypto/keyring.ts';
import { migrateToLatest } from '../db/migrate.ts';
import { createDatabasePool } from '../db/pool.ts';
import { createSigningKeyStore } from './signing-key-store.ts';

const settings = loadSettingsOrExit(
  'keys',
  z.object({
    DATABASE_URL: setting.url(['postgres', 'postgresql']),
    AUTH_ENCRYPTION_KEYS: z.string().min(1),
    LOG_LEVEL: setting.logLevel(),
  }),
);
const command = process.argv[2];
const logger = createLogger({ service: 'auth-keys', level: settings.LOG_LEVEL });
await migrateToLatest(settings.DATABASE_URL, logger);
const pool = createDatabasePool(settings.DATABASE_URL, 2);
const store = createSigningKeyStore(pool, parseKeyring(settings.AUTH_ENCRYPTION_KEYS));
try {
  switch (command) {
    case 'stage':
      process.stdout.write(`staged next key ${await store.stageNextKey()}\n`);
      break;
    case 'promote':
      await store.promoteNextKey();
      process.stdout.write('the next key now signs; the previous key is retired but still published\n');
      break;
    case 'prune':
      process.stdout.write(`removed ${await store.removeRetiredKeys(3600)} retired key(s)\n`);
      break;
    case 'list':
      for (const key of await store.list()) process.stdout.write(`${key.kid}\t${key.alg}\t${key.state}\n`);
      break;
    default:
      process.stderr.write('usage: keys stage | promote | prune | list\n');
      process.exitCode = 2;
  }
} finally {
  await pool.end();
}
