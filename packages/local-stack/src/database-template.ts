import { createHash } from 'node:crypto';
import {
  chmod,
  copyFile,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  rename,
  rm,
  stat,
  writeFile,
} from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The embedded PostgreSQL's empty database, made once (docs/design.md §10). PGlite's initdb costs
 * seconds of CPU, on every new data folder; `pnpm install` runs it once
 * (this package's `postinstall`) into node_modules/.cache, and a new data folder is a checked
 * copy of that (a fraction of a second). The template is PGlite's own output with auth's
 * migrations applied (auth-migrations.ts), closed cleanly, with a manifest of every file's size and
 * SHA-256 and of the migrations' contents written last: a folder without one, whose files differ
 * from it, or that applied a migration since changed, is not used.
 */

const MANIFEST = 'sheetgate-template.json';
/**
 * The same database as PGlite's own tarball (`dumpDataDir`), beside the folder's files and not
 * copied with them: an in-memory PGlite (the tests' databases) starts from it (`loadDataDir`)
 * in a fifth of initdb's CPU.
 */
const DUMP = 'sheetgate-template.tar';
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

interface Manifest {
  pglite: string;
  /** Every folder, empty ones included: PostgreSQL refuses a data folder without pg_tblspc & co. */
  folders: string[];
  /** `mtimeMs` is absent in a template made before it was recorded. */
  files: Record<string, { size: number; sha256: string; mtimeMs?: number }>;
  /** The tarball (DUMP); absent in a template made before it was. */
  dump?: { size: number; sha256: string };
  /** The migrations applied to the folder (not to the tarball), by file name: SHA-256 of each. */
  migrations?: Record<string, string>;
}

/** Migrations a template has applied: their files' contents, and how to apply them to a data folder. */
export interface TemplateMigrations {
  /** Each file by name, with the SHA-256 of its contents. */
  files: Record<string, string>;
  /** Applies them to the closed database in `dataDir`, leaving it closed. */
  apply(dataDir: string): Promise<void>;
}

/** The installed PGlite's version: a template made by another version is not used. */
export async function pgliteVersion(): Promise<string> {
  const entry = createRequire(import.meta.url).resolve('@electric-sql/pglite');
  let dir = path.dirname(entry);
  while (path.basename(dir) !== 'pglite') dir = path.dirname(dir);
  return JSON.parse(await readFile(path.join(dir, 'package.json'), 'utf8')).version;
}

/** Where the template is kept: SHEETGATE_DATABASE_TEMPLATE, else this checkout's node_modules/.cache. */
export async function defaultTemplateDir(): Promise<string> {
  return (
    process.env.SHEETGATE_DATABASE_TEMPLATE ||
    path.join(repoRoot, 'node_modules/.cache/sheetgate-database-template', `pglite-${await pgliteVersion()}`)
  );
}

/**
 * Runs PGlite's initdb into `templateDir`, then applies `migrations` (unless a valid template with
 * the same migrations is there); false if one was. A template made before its files' modification
 * times were recorded is made again, once.
 */
export async function createDatabaseTemplate(
  templateDir: string,
  options: { migrations?: TemplateMigrations } = {},
): Promise<boolean> {
  const existing = await readManifest(templateDir);
  const migrations = options.migrations?.files ?? {};
  if (
    existing &&
    Object.values(existing.files).every((file) => file.mtimeMs !== undefined) &&
    sameEntries(existing.migrations ?? {}, migrations)
  )
    return false;
  await mkdir(path.dirname(templateDir), { recursive: true });
  const scratch = await mkdtemp(`${templateDir}.partial-`);
  try {
    const { PGlite } = await import('@electric-sql/pglite');
    const db = await PGlite.create({ dataDir: scratch });
    // Before the migrations: an in-memory database (the tests') runs its own.
    const dump = Buffer.from(await (await db.dumpDataDir('none')).arrayBuffer());
    await db.close();
    await options.migrations?.apply(scratch);
    const { folders, files: names } = await listTree(scratch);
    const files: Manifest['files'] = {};
    for (const file of names) {
      const bytes = await readFile(path.join(scratch, file));
      const { mtimeMs } = await stat(path.join(scratch, file));
      files[file] = { size: bytes.length, sha256: sha256Of(bytes), mtimeMs };
    }
    await writeFile(path.join(scratch, DUMP), dump);
    const manifest: Manifest = {
      pglite: await pgliteVersion(),
      folders,
      files,
      dump: { size: dump.length, sha256: sha256Of(dump) },
      ...(options.migrations ? { migrations } : {}),
    };
    await writeFile(path.join(scratch, MANIFEST), `${JSON.stringify(manifest)}\n`);
    await rm(templateDir, { recursive: true, force: true });
    await rename(scratch, templateDir);
    return true;
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

/**
 * Copies the template into the empty `dataDir`, checking each file against the manifest. Answers
 * why not when it cannot (no template, another PGlite version, a file that differs, a migration it
 * applied that is not in `migrations` as it was), leaving `dataDir` empty then. Migrations added
 * since are left to their owner (auth applies them as it starts).
 */
export async function copyDatabaseTemplate(
  templateDir: string,
  dataDir: string,
  migrations: Record<string, string> = {},
): Promise<{ copied: true } | { copied: false; reason: string }> {
  const manifest = await readManifest(templateDir);
  if (!manifest) return { copied: false, reason: `no database template in ${templateDir}` };
  const version = await pgliteVersion();
  if (manifest.pglite !== version)
    return {
      copied: false,
      reason: `the database template is for PGlite ${manifest.pglite}, not ${version}`,
    };
  const changed = Object.keys(manifest.migrations ?? {}).find(
    (name) => manifest.migrations?.[name] !== migrations[name],
  );
  if (changed)
    return {
      copied: false,
      reason: `the database template applied the migration ${changed}, which has changed or gone since (\`pnpm install\` makes the template again)`,
    };
  try {
    for (const folder of manifest.folders)
      await mkdir(path.join(dataDir, folder), { recursive: true, mode: 0o700 });
    const entries = Object.entries(manifest.files);
    for (let start = 0; start < entries.length; start += COPIES_AT_ONCE) {
      // Settled, not raced: no copy may still be writing when a failure empties the folder.
      const copies = await Promise.allSettled(
        entries
          .slice(start, start + COPIES_AT_ONCE)
          .map(([file, expected]) =>
            copyTemplateFile(path.join(templateDir, file), path.join(dataDir, file), file, expected),
          ),
      );
      const failed = copies.find((copy) => copy.status === 'rejected');
      if (failed) throw failed.reason;
    }
    return { copied: true };
  } catch (error) {
    await emptyFolder(dataDir);
    const reason = (error as NodeJS.ErrnoException).code
      ? `the database template is incomplete (${(error as Error).message})`
      : (error as Error).message;
    return { copied: false, reason };
  }
}

/** Files copied side by side: the copy is ~1,000 files, most of a few kilobytes. */
const COPIES_AT_ONCE = 16;

/**
 * Copies one file of the template, checked against its manifest entry first. A file unchanged
 * since the manifest was made (its size and modification time) is copied by the kernel
 * (`copyFile`), never read here: hashing and writing the template's files from JavaScript was a
 * large part of the first start of each data folder. A template made before modification times were
 * recorded is checked by SHA-256, as it was.
 */
async function copyTemplateFile(
  from: string,
  to: string,
  file: string,
  expected: Manifest['files'][string],
): Promise<void> {
  const differs = () => new Error(`the database template's ${file} differs from its manifest`);
  if (expected.mtimeMs === undefined) {
    const bytes = await readFile(from);
    if (bytes.length !== expected.size || sha256Of(bytes) !== expected.sha256) throw differs();
    await writeFile(to, bytes, { mode: 0o600 });
    return;
  }
  const now = await stat(from);
  // Within a millisecond: what a copy that keeps timestamps (`cp -p`, fs.cp) reproduces.
  if (now.size !== expected.size || Math.abs(now.mtimeMs - expected.mtimeMs) >= 1) throw differs();
  await copyFile(from, to);
  await chmod(to, 0o600);
}

/**
 * The template as PGlite's tarball, for an in-memory database (`loadDataDir`); undefined when
 * there is none for this PGlite or it differs from the manifest (the caller then runs initdb).
 */
export async function readDatabaseTemplateDump(templateDir: string): Promise<Blob | undefined> {
  const manifest = await readManifest(templateDir);
  if (!manifest?.dump || manifest.pglite !== (await pgliteVersion())) return undefined;
  try {
    const bytes = await readFile(path.join(templateDir, DUMP));
    if (bytes.length !== manifest.dump.size || sha256Of(bytes) !== manifest.dump.sha256) return undefined;
    return new Blob([bytes]);
  } catch {
    return undefined;
  }
}

const sha256Of = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

const sameEntries = (a: Record<string, string>, b: Record<string, string>) =>
  Object.keys(a).length === Object.keys(b).length &&
  Object.entries(a).every(([key, value]) => b[key] === value);

/** Removes everything inside `dir`, keeping the folder (and its mode). */
export async function emptyFolder(dir: string): Promise<void> {
  for (const entry of await readdir(dir)) await rm(path.join(dir, entry), { recursive: true, force: true });
}

async function readManifest(templateDir: string): Promise<Manifest | undefined> {
  try {
    const manifest = JSON.parse(await readFile(path.join(templateDir, MANIFEST), 'utf8')) as Manifest;
    const wellFormed =
      typeof manifest.pglite === 'string' &&
      Array.isArray(manifest.folders) &&
      typeof manifest.files === 'object';
    return wellFormed ? manifest : undefined;
  } catch {
    return undefined;
  }
}

/** The folders (parents first) and files under `dir`, relative to it. */
async function listTree(dir: string): Promise<{ folders: string[]; files: string[] }> {
  const folders: string[] = [];
  const files: string[] = [];
  const walk = async (relative: string) => {
    for (const entry of await readdir(path.join(dir, relative), { withFileTypes: true })) {
      const child = path.join(relative, entry.name);
      if (entry.isDirectory()) {
        folders.push(child);
        await walk(child);
      } else if (entry.isFile()) files.push(child);
    }
  };
  await walk('');
  return { folders, files };
}
