import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TemplateMigrations } from './database-template.ts';
import { startEmbeddedPostgres } from './embedded-postgres.ts';

/**
 * auth's schema migrations, which the database template has applied (database-template.ts): on
 * a new data folder auth then finds its schema made, instead of running its twelve-odd migrations
 * in PGlite on the way to ready (CPU spent before auth and web can be ready). They are applied by auth's own migration job (`pnpm --filter @sheetgate/auth migrate`),
 * the one operators run, so the template's schema is exactly what auth would have made.
 */
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const AUTH_MIGRATIONS_DIR = path.join(repoRoot, 'services/auth/migrations');
const AUTH_MIGRATE_JOB = path.join(repoRoot, 'services/auth/src/db/migrate-cli.ts');

/** Each of auth's migration files by name, with the SHA-256 of its contents. */
export async function authMigrationFiles(): Promise<Record<string, string>> {
  const names = (await readdir(AUTH_MIGRATIONS_DIR)).filter((file) => file.endsWith('.sql')).sort();
  const contents = await Promise.all(names.map((name) => readFile(path.join(AUTH_MIGRATIONS_DIR, name))));
  return Object.fromEntries(
    names.map((name, index) => [name, createHash('sha256').update(contents[index]!).digest('hex')]),
  );
}

/** auth's migrations as the template applies them: opens `dataDir` and runs auth's migration job on it. */
export async function authTemplateMigrations(): Promise<TemplateMigrations> {
  return { files: await authMigrationFiles(), apply: applyAuthMigrations };
}

async function applyAuthMigrations(dataDir: string): Promise<void> {
  const database = await startEmbeddedPostgres({ dataDir });
  try {
    const job = spawn(process.execPath, [AUTH_MIGRATE_JOB], {
      env: { ...process.env, DATABASE_URL: database.url, LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    for (const stream of [job.stdout, job.stderr])
      stream.on('data', (chunk: Buffer) => {
        output += chunk.toString();
      });
    const code = await new Promise<number | null>((resolve, reject) => {
      job.once('error', reject);
      job.once('exit', resolve);
    });
    if (code !== 0) throw new Error(`auth's migrations failed (exit ${code}): ${output.trim().slice(-500)}`);
  } finally {
    await database.close();
  }
}
