/**
 * Encryption-key rotation (deploy/README.md, "Encryption-key rotation"): after a new key was put
 * first in AUTH_ENCRYPTION_KEYS and auth rolled out with it,
 *   pnpm --filter @sheetgate/auth reseal        (in an image: node src/crypto/reseal-cli.ts)
 * re-encrypts every stored secret under that key and says how many it re-encrypted and how many
 * it could not read. Exit status 0 when every stored Google refresh token, signing key and OAuth
 * client secret is now under the current key, 1 otherwise: an unreadable one was written with a
 * key no longer in the ring (or tampered with), and no rotation will bring it back.
 */
import { createLogger, loadSettingsOrExit, setting } from '@sheetgate/service-runtime';
import { z } from 'zod';
import { migrateToLatest } from '../db/migrate.ts';
import { createDatabasePool } from '../db/pool.ts';
import { encryptionKeysSetting } from '../settings.ts';
import { parseKeyring } from './keyring.ts';
import { resealStoredSecrets } from './reseal.ts';
import type { ResealCount } from './reseal-each.ts';

const settings = loadSettingsOrExit(
  'reseal',
  z.object({
    DATABASE_URL: setting.url(['postgres', 'postgresql']),
    REDIS_URL: setting.url(['redis', 'rediss']).optional(),
    AUTH_ENCRYPTION_KEYS: encryptionKeysSetting,
    LOG_LEVEL: setting.logLevel(),
  }),
);
const logger = createLogger({ service: 'auth-reseal', level: settings.LOG_LEVEL });
const keyring = parseKeyring(settings.AUTH_ENCRYPTION_KEYS);
await migrateToLatest(settings.DATABASE_URL, logger);
const pool = createDatabasePool(settings.DATABASE_URL, 2);
try {
  const report = await resealStoredSecrets({ pool, keyring, redisUrl: settings.REDIS_URL });
  const line = (what: string, count: ResealCount) =>
    `${what}: ${count.resealed} re-encrypted, ${count.unreadable} unreadable\n`;
  process.stdout.write(`current key: ${keyring.currentKeyId}\n`);
  process.stdout.write(line('Google refresh tokens', report.googleRefreshTokens));
  process.stdout.write(line('signing keys', report.signingKeys));
  process.stdout.write(line('OAuth client secrets', report.oauthClientSecrets));
  process.stdout.write(line('change journal before-images', report.changeJournalPayloads));
  process.stdout.write(
    report.cachedGoogleAccessTokens
      ? line('cached Google access tokens', report.cachedGoogleAccessTokens)
      : 'cached Google access tokens: none to re-encrypt without REDIS_URL (the in-process cache ends with each auth process)\n',
  );
  // Cached access tokens are disposable (an unreadable one is refreshed at Google), so only the
  // stored secrets decide the exit status.
  const unreadable =
    report.googleRefreshTokens.unreadable +
    report.signingKeys.unreadable +
    report.oauthClientSecrets.unreadable +
    report.changeJournalPayloads.unreadable;
  if (unreadable > 0) {
    process.stderr.write(
      `reseal: ${unreadable} secret(s) could not be read with any key in AUTH_ENCRYPTION_KEYS; ` +
        'people with an unreadable Google token must reconnect Google, an unreadable signing key must be replaced (keys stage/promote/prune), ' +
        'an OAuth client with an unreadable secret must register again, an unreadable change journal entry cannot be undone\n',
    );
    process.exitCode = 1;
  }
} finally {
  await pool.end();
}
