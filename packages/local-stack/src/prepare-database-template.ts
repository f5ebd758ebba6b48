/**
 * `pnpm install` runs this (the package's `postinstall`): the embedded PostgreSQL's database, with
 * auth's schema, made once into node_modules/.cache, so that `pnpm start` on a new data folder
 * copies it instead of running PGlite's initdb and auth's migrations (database-template.ts,
 * auth-migrations.ts). Quick when the template is already there.
 * Never fails the install: without a template `pnpm start` runs initdb itself.
 */
import { authTemplateMigrations } from './auth-migrations.ts';
import { createDatabaseTemplate, defaultTemplateDir } from './database-template.ts';

try {
  const started = performance.now();
  const templateDir = await defaultTemplateDir();
  if (await createDatabaseTemplate(templateDir, { migrations: await authTemplateMigrations() }))
    console.log(
      `local-stack: embedded PostgreSQL template made in ${((performance.now() - started) / 1000).toFixed(1)} s (${templateDir})`,
    );
} catch (error) {
  console.warn(
    `local-stack: no embedded PostgreSQL template (${(error as Error).message}); pnpm start will run initdb`,
  );
}
