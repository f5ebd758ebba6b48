/**
 * Imports a retired Better Auth deployment into Sheetgate (deploy/README.md, "Provider migration"):
 *   pnpm --filter @sheetgate/auth migrate:import --from <postgres-url> [--dry-run] [--json]
 *     [--schema public] [--batch-size 200]
 * `--from` may be left out in favour of IMPORT_SOURCE_DATABASE_URL, which keeps the source's
 * password out of the process list. Needs the auth service's DATABASE_URL and AUTH_ENCRYPTION_KEYS;
 * BETTER_AUTH_SECRET / BETTER_AUTH_SECRETS only when Better Auth encrypted OAuth tokens.
 * Prints the report on stdout (text, or JSON with --json); logs go to stderr. Exit status: 0 done,
 * 1 failed (nothing of the failing batch was written), 2 usage, 78 settings.
 */
import { parseArgs } from 'node:util';
import { createLogger, loadSettingsOrExit, setting } from '@sheetgate/service-runtime';
import { z } from 'zod';
import { createAuditLog } from '../audit/index.ts';
import { parseKeyring } from '../crypto/keyring.ts';
import { migrateToLatest } from '../db/migrate.ts';
import { createDatabasePool } from '../db/pool.ts';
import { encryptionKeysSetting } from '../settings.ts';
import { parseBetterAuthSecrets } from './better-auth-secrets.ts';
import { openBetterAuthSource } from './better-auth-source.ts';
import { formatReport } from './import-report.ts';
import { importLegacyDatabase } from './legacy-import.ts';

const usage =
  'usage: migrate:import --from <postgres-url> [--dry-run] [--json] [--schema <name>] [--batch-size <n>]\n';

let args: ReturnType<typeof parseCommandLine>;
function parseCommandLine() {
  return parseArgs({
    options: {
      from: { type: 'string' },
      'dry-run': { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
      schema: { type: 'string', default: 'public' },
      'batch-size': { type: 'string', default: '200' },
    },
  }).values;
}
try {
  args = parseCommandLine();
} catch (error) {
  process.stderr.write(`migrate:import: ${(error as Error).message}\n${usage}`);
  process.exit(2);
}

const settings = loadSettingsOrExit(
  'migrate:import',
  z.object({
    DATABASE_URL: setting.url(['postgres', 'postgresql']),
    AUTH_ENCRYPTION_KEYS: encryptionKeysSetting,
    IMPORT_SOURCE_DATABASE_URL: setting.url(['postgres', 'postgresql']).optional(),
    BETTER_AUTH_SECRET: z.string().min(1).optional(),
    BETTER_AUTH_SECRETS: z.string().min(1).optional(),
    LOG_LEVEL: setting.logLevel(),
  }),
);
const sourceUrl = args.from ?? settings.IMPORT_SOURCE_DATABASE_URL;
const batchSize = Number(args['batch-size']);
if (!sourceUrl || !/^postgres(ql)?:\/\//.test(sourceUrl) || !Number.isInteger(batchSize) || batchSize < 1) {
  process.stderr.write(
    `migrate:import: give the Better Auth database as --from or IMPORT_SOURCE_DATABASE_URL\n${usage}`,
  );
  process.exit(2);
}

const logger = createLogger({
  service: 'auth-import',
  level: settings.LOG_LEVEL,
  destination: process.stderr,
});
const pool = createDatabasePool(settings.DATABASE_URL, 2);
let source: Awaited<ReturnType<typeof openBetterAuthSource>> | undefined;
try {
  await migrateToLatest(settings.DATABASE_URL, logger);
  source = await openBetterAuthSource(sourceUrl, args.schema);
  const report = await importLegacyDatabase({
    source,
    pool,
    keyring: parseKeyring(settings.AUTH_ENCRYPTION_KEYS),
    secrets: parseBetterAuthSecrets(settings.BETTER_AUTH_SECRET, settings.BETTER_AUTH_SECRETS),
    audit: createAuditLog(pool),
    logger,
    dryRun: args['dry-run'],
    batchSize,
  });
  process.stdout.write(args.json ? `${JSON.stringify(report, null, 2)}\n` : formatReport(report));
} catch (error) {
  // The source URL is never printed: it may carry a password.
  logger.error({ err: error }, 'import failed');
  process.stderr.write(`migrate:import: failed: ${(error as Error).message}\n`);
  process.exitCode = 1;
} finally {
  await source?.close();
  await pool.end();
}
