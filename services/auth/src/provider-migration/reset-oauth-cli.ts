/**
 * Advances the OAuth generation (deploy/README.md, "Provider migration"):
 *   pnpm --filter @sheetgate/auth migrate:reset-oauth [--yes] [--reason "…"] [--json]
 * Without --yes it only reports what it would end. With --yes every OAuth client, grant and token
 * ends at once; users, Google connections, dashboard sessions and API keys stay. Then restart auth
 * (`kubectl rollout restart deployment/auth`, or stop and start `pnpm start`) so it signs with the
 * new key. Exit status: 0 done, 1 failed (nothing changed), 2 usage, 78 settings.
 */
import { parseArgs } from 'node:util';
import { createLogger, loadSettingsOrExit, setting } from '@sheetgate/service-runtime';
import { z } from 'zod';
import { createAuditLog } from '../audit/index.ts';
import { parseKeyring } from '../crypto/keyring.ts';
import { migrateToLatest } from '../db/migrate.ts';
import { createDatabasePool } from '../db/pool.ts';
import { encryptionKeysSetting } from '../settings.ts';
import { type OAuthResetReport, resetOAuth } from './oauth-reset.ts';

let args: { yes: boolean; reason: string; json: boolean };
try {
  args = parseArgs({
    options: {
      yes: { type: 'boolean', default: false },
      reason: { type: 'string', default: 'operator reset' },
      json: { type: 'boolean', default: false },
    },
  }).values as typeof args;
  if (args.reason.trim().length === 0 || args.reason.length > 200)
    throw new Error('--reason must be 1 to 200 characters');
} catch (error) {
  process.stderr.write(
    `migrate:reset-oauth: ${(error as Error).message}\nusage: migrate:reset-oauth [--yes] [--reason "…"] [--json]\n`,
  );
  process.exit(2);
}

const settings = loadSettingsOrExit(
  'migrate:reset-oauth',
  z.object({
    DATABASE_URL: setting.url(['postgres', 'postgresql']),
    AUTH_ENCRYPTION_KEYS: encryptionKeysSetting,
    AUTH_SIGNING_KEYS: z.string().optional(),
    LOG_LEVEL: setting.logLevel(),
  }),
);
const logger = createLogger({
  service: 'auth-reset-oauth',
  level: settings.LOG_LEVEL,
  destination: process.stderr,
});
const pool = createDatabasePool(settings.DATABASE_URL, 2);
try {
  await migrateToLatest(settings.DATABASE_URL, logger);
  const report = await resetOAuth({
    pool,
    keyring: parseKeyring(settings.AUTH_ENCRYPTION_KEYS),
    audit: createAuditLog(pool),
    reason: args.reason.trim(),
    signingKeysConfigured: Boolean(settings.AUTH_SIGNING_KEYS),
    dryRun: !args.yes,
  });
  process.stdout.write(args.json ? `${JSON.stringify(report, null, 2)}\n` : describe(report));
} catch (error) {
  logger.error({ err: error }, 'OAuth reset failed');
  process.stderr.write(`migrate:reset-oauth: failed, nothing changed: ${(error as Error).message}\n`);
  process.exitCode = 1;
} finally {
  await pool.end();
}

function describe(report: OAuthResetReport): string {
  const deleted = Object.entries(report.deleted).map(([model, count]) => `${count} ${model}`);
  const lines = report.dryRun
    ? [
        `Dry run: advancing to OAuth generation ${report.generation} would end ${deleted.join(', ') || 'nothing'},`,
        `disconnecting the apps of ${report.peopleWithApps} person(s). Run again with --yes to do it.`,
      ]
    : [
        `OAuth generation ${report.generation}: ended ${deleted.join(', ') || 'nothing'};`,
        `${report.peopleWithApps} person(s) will be asked to add their apps again. Users, Google connections,`,
        'dashboard sessions and API keys are unchanged.',
        report.signingKeys === 'replaced'
          ? 'The signing keys were replaced: restart auth now (kubectl rollout restart deployment/auth) so it signs with the new key; access tokens issued before stop working as resource servers refresh the JWKS.'
          : 'AUTH_SIGNING_KEYS is set: replace it with a new private JWKS (drop the old keys) and restart auth, or access tokens issued before stay valid until they expire.',
      ];
  return `${lines.join('\n')}\n`;
}
