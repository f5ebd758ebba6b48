import { cp, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authTemplateMigrations } from '../src/auth-migrations.ts';
import {
  copyDatabaseTemplate,
  createDatabaseTemplate,
  readDatabaseTemplateDump,
  type TemplateMigrations,
} from '../src/database-template.ts';
import { listenEmbeddedPostgres, startEmbeddedPostgres } from '../src/embedded-postgres.ts';

// A new data folder of `pnpm start` is a copy of the template `pnpm install` makes (PGlite's
// initdb and auth's migrations, once); a template that is missing, of another version, damaged or
// made with a migration that has changed since is never used, and the database is then made by
// initdb as before, saying why.

let scratch: string;
let templateDir: string;
/** auth's migrations, as `pnpm install` applies them to the template. */
let migrations: TemplateMigrations;

beforeAll(async () => {
  scratch = await mkdtemp(path.join(os.tmpdir(), 'sheetgate-template-'));
  templateDir = path.join(scratch, 'template');
  migrations = await authTemplateMigrations();
  expect(await createDatabaseTemplate(templateDir, { migrations })).toBe(true);
}, 120_000);

afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

/**
 * Rewrites the template's PG_VERSION with bytes of the same size, then expects a copy of it to be
 * refused, naming the file, and to leave its data folder empty.
 */
async function expectSameSizeRewriteRefused(template: string): Promise<void> {
  const file = path.join(template, 'PG_VERSION');
  await writeFile(file, Buffer.from(await readFile(file)).reverse());
  const dataDir = await mkdtemp(path.join(scratch, 'data-'));
  expect(await copyDatabaseTemplate(template, dataDir, migrations.files)).toEqual({
    copied: false,
    reason: "the database template's PG_VERSION differs from its manifest",
  });
  expect(await readdir(dataDir)).toEqual([]);
}

/** The first message PostgreSQL answers on a new connection: 'R' (authentication) when it is up. */
function firstAnswer(socketDir: string): Promise<string> {
  const user = Buffer.from('user\0postgres\0database\0postgres\0\0');
  const startup = Buffer.alloc(8);
  startup.writeInt32BE(8 + user.length, 0);
  startup.writeInt32BE(196608, 4);
  return new Promise((resolve, reject) => {
    const socket = net.connect(path.join(socketDir, '.s.PGSQL.5432'));
    socket.once('connect', () => socket.write(Buffer.concat([startup, user])));
    socket.once('data', (data) => {
      resolve(String.fromCharCode(data[0]!));
      socket.destroy();
    });
    socket.once('error', reject);
  });
}

describe('the embedded PostgreSQL template', () => {
  it('is made once: a second run finds it and leaves it', async () => {
    expect(await createDatabaseTemplate(templateDir, { migrations })).toBe(false);
  });

  it('copies into a new data folder that is a working database, with auth’s migrations applied', async () => {
    const dataDir = path.join(scratch, 'copied');
    const notes: string[] = [];
    const database = await listenEmbeddedPostgres({
      dataDir,
      socketDir: path.join(scratch, 'copied-socket'),
      templateDir,
      templateMigrations: migrations.files,
      onNote: (note) => notes.push(note),
    });
    // A client may connect before the database is open: its startup waits for the opening.
    const answer = firstAnswer(path.join(scratch, 'copied-socket'));
    await database.opened;
    expect(await answer).toBe('R');
    await database.close();
    expect(notes).toEqual([`new database copied from the template in ${templateDir}`]);

    const db = await PGlite.create({ dataDir });
    // node-pg-migrate's record of what it applied: every one of auth's migrations, by name.
    expect(
      (await db.query<{ name: string }>('SELECT name FROM schema_migrations ORDER BY name')).rows,
    ).toEqual(Object.keys(migrations.files).map((file) => ({ name: file.replace(/\.sql$/, '') })));
    await db.exec('CREATE TABLE notes (id serial PRIMARY KEY, body text NOT NULL)');
    await db.query('INSERT INTO notes (body) VALUES ($1)', ['kept']);
    await db.close();
    const reopened = await PGlite.create({ dataDir });
    expect((await reopened.query('SELECT body FROM notes')).rows).toEqual([{ body: 'kept' }]);
    await reopened.close();
  }, 60_000);

  it('is refused when a file differs from its manifest, leaving the data folder empty', async () => {
    // A copy of the good template with one file changed.
    const damaged = path.join(scratch, 'damaged');
    await cp(templateDir, damaged, { recursive: true, preserveTimestamps: true });
    await writeFile(path.join(damaged, 'global', 'pg_control'), 'not a control file');
    const dataDir = await mkdtemp(path.join(scratch, 'data-'));
    const copy = await copyDatabaseTemplate(damaged, dataDir, migrations.files);
    expect(copy).toEqual({
      copied: false,
      reason: "the database template's global/pg_control differs from its manifest",
    });
    expect(await readdir(dataDir)).toEqual([]);
  });

  it('is refused when a migration it applied has changed since, and used when one was added', async () => {
    const [first] = Object.keys(migrations.files);
    const changed = await mkdtemp(path.join(scratch, 'data-'));
    expect(
      await copyDatabaseTemplate(templateDir, changed, { ...migrations.files, [first!]: 'f'.repeat(64) }),
    ).toEqual({
      copied: false,
      reason: `the database template applied the migration ${first}, which has changed or gone since (\`pnpm install\` makes the template again)`,
    });
    expect(await readdir(changed)).toEqual([]);
    const { [first!]: _gone, ...withoutFirst } = migrations.files;
    expect((await copyDatabaseTemplate(templateDir, changed, withoutFirst)).copied).toBe(false);
    // Added since the install: auth applies it as it starts.
    const added = await mkdtemp(path.join(scratch, 'data-'));
    expect(
      await copyDatabaseTemplate(templateDir, added, {
        ...migrations.files,
        '29991231000000_later.sql': 'a',
      }),
    ).toEqual({ copied: true });
  });

  it('is made again by the next install when the migrations differ from those it applied', async () => {
    const remade = path.join(scratch, 'remade');
    await cp(templateDir, remade, { recursive: true, preserveTimestamps: true });
    const appliedTo: string[] = [];
    const later: TemplateMigrations = {
      files: { ...migrations.files, '29991231000000_later.sql': 'a' },
      apply: async (dataDir) => {
        appliedTo.push(dataDir);
        await migrations.apply(dataDir);
      },
    };
    expect(await createDatabaseTemplate(remade, { migrations: later })).toBe(true);
    expect(appliedTo).toHaveLength(1);
    const manifest = JSON.parse(await readFile(path.join(remade, 'sheetgate-template.json'), 'utf8'));
    expect(manifest.migrations).toEqual(later.files);
    expect(await createDatabaseTemplate(remade, { migrations: later })).toBe(false);
  }, 120_000);

  it('is refused when a file was rewritten with the same size (its modification time tells)', async () => {
    const rewritten = path.join(scratch, 'rewritten');
    await cp(templateDir, rewritten, { recursive: true, preserveTimestamps: true });
    await expectSameSizeRewriteRefused(rewritten);
  });

  it('checks a template made before modification times were recorded by its contents', async () => {
    const older = path.join(scratch, 'older');
    await cp(templateDir, older, { recursive: true });
    const manifestFile = path.join(older, 'sheetgate-template.json');
    const manifest = JSON.parse(await readFile(manifestFile, 'utf8'));
    for (const entry of Object.values(manifest.files) as Array<{ mtimeMs?: number }>) delete entry.mtimeMs;
    await writeFile(manifestFile, JSON.stringify(manifest));
    const good = await mkdtemp(path.join(scratch, 'data-'));
    expect(await copyDatabaseTemplate(older, good, migrations.files)).toEqual({ copied: true });
    await expectSameSizeRewriteRefused(older);
  });

  it('starts an in-memory database from its tarball (the tests’ databases), a working one', async () => {
    const notes: string[] = [];
    const database = await startEmbeddedPostgres({ templateDir, onNote: (note) => notes.push(note) });
    const socketDir = new URL(database.url).searchParams.get('host')!;
    expect(await firstAnswer(socketDir)).toBe('R');
    await database.close();
    expect(notes).toEqual([`new in-memory database from the template in ${templateDir}`]);

    const db = await PGlite.create({ loadDataDir: (await readDatabaseTemplateDump(templateDir))! });
    await db.exec('CREATE TABLE notes (body text)');
    await db.query('INSERT INTO notes VALUES ($1)', ['in memory']);
    expect((await db.query('SELECT body FROM notes')).rows).toEqual([{ body: 'in memory' }]);
    await db.close();
  }, 60_000);

  it('gives no tarball that differs from its manifest, nor one a template of before did not list', async () => {
    const damaged = path.join(scratch, 'damaged-dump');
    await cp(templateDir, damaged, { recursive: true });
    const tarball = path.join(damaged, 'sheetgate-template.tar');
    const bytes = await readFile(tarball);
    bytes[bytes.length >> 1] = bytes[bytes.length >> 1]! ^ 0xff;
    await writeFile(tarball, bytes);
    expect(await readDatabaseTemplateDump(damaged)).toBeUndefined();

    const older = path.join(scratch, 'older');
    await cp(templateDir, older, { recursive: true });
    const manifestFile = path.join(older, 'sheetgate-template.json');
    const { dump: _dump, ...manifest } = JSON.parse(await readFile(manifestFile, 'utf8'));
    await writeFile(manifestFile, JSON.stringify(manifest));
    expect(await readDatabaseTemplateDump(older)).toBeUndefined();
    expect(await readDatabaseTemplateDump(templateDir)).toBeInstanceOf(Blob);
  });

  it('falls back to initdb with a note when there is no template', async () => {
    const dataDir = path.join(scratch, 'initdb');
    const notes: string[] = [];
    const database = await listenEmbeddedPostgres({
      dataDir,
      socketDir: path.join(scratch, 'initdb-socket'),
      templateDir: path.join(scratch, 'missing'),
      onNote: (note) => notes.push(note),
    });
    await database.opened;
    expect(await firstAnswer(path.join(scratch, 'initdb-socket'))).toBe('R');
    await database.close();
    expect(notes).toEqual([
      `no database template in ${path.join(scratch, 'missing')}: running initdb instead (5–10 s; \`pnpm install\` makes the template)`,
    ]);
    expect(await readdir(dataDir)).toContain('PG_VERSION');
  }, 120_000);
});
