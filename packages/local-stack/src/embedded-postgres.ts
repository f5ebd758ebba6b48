import { chmod, mkdir, mkdtemp, readdir, rm, unlink } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import { copyDatabaseTemplate, emptyFolder, readDatabaseTemplateDump } from './database-template.ts';
import { keepQueryBatchesWhole } from './whole-query-batches.ts';

export interface EmbeddedPostgres {
  /** A `postgres://` URL any `pg` client can use (its `host` parameter is the socket's folder). */
  url: string;
  /** Settles once PGlite is open; connections made before wait for it (`listenEmbeddedPostgres`). */
  opened: Promise<void>;
  close(): Promise<void>;
}

export interface EmbeddedPostgresOptions {
  /** Where the database files live; undefined keeps the database in memory (tests). */
  dataDir?: string;
  socketDir?: string;
  maxConnections?: number;
  /** A new `dataDir` starts as a copy of this template (database-template.ts) when it is valid; without a `dataDir`, from its tarball. */
  templateDir?: string;
  /** The migrations a template may have applied (name → SHA-256): one that applied another is not used. */
  templateMigrations?: Record<string, string>;
  /** Told how a new data folder was made (from the template, or by initdb and why). */
  onNote?: (note: string) => void;
}

/** The file name PostgreSQL clients look for in a socket folder (libpq, node-postgres). */
const SOCKET_FILE = '.s.PGSQL.5432';
/** What a Unix socket path may hold on Linux (sun_path is 108 bytes with its NUL; macOS: 104). */
const MAX_SOCKET_PATH = 103;
/**
 * PostgreSQL settings beside PGlite's own. Its shared memory (the default 128 MB of shared buffers
 * and the rest) is cleared by a byte-wise WASM memset at every open, so small buffers open much
 * faster; 4 MB is plenty for one developer's data, and a page that is not in them is read from
 * the operating system's file cache.
 */
const EXTRA_START_PARAMS = ['-c', 'shared_buffers=4MB'];

/**
 * PostgreSQL for machines without one (docs/design.md §6): PGlite, the WASM build of PostgreSQL,
 * served over the wire protocol so that the services use the same `pg` code as in production.
 * `maxConnections` lets a small pool share the single PGlite session; queries are queued.
 * Resolves once the database is open.
 *
 * PGlite asks no password, so it listens on a Unix socket in a folder only this user may enter
 * (mode 0700): `socketDir`, or a fresh private temporary folder. On 127.0.0.1 any local user could
 * read the stored tokens or insert a dashboard session.
 */
export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions): Promise<EmbeddedPostgres> {
  const database = await listenEmbeddedPostgres(options);
  try {
    await database.opened;
  } catch (error) {
    await database.close().catch(() => {});
    throw error;
  }
  return database;
}

/**
 * The same, resolving as soon as the socket listens, while PGlite still opens (about a second of
 * CPU on a warm data folder): a client may connect at once, and its messages wait in the socket
 * server's queue until the database is open. `pnpm start` starts auth this way, so that auth loads
 * its modules while the database opens.
 */
export async function listenEmbeddedPostgres(options: EmbeddedPostgresOptions): Promise<EmbeddedPostgres> {
  if (options.dataDir) await mkdir(options.dataDir, { recursive: true, mode: 0o700 });
  const socketDir = await privateSocketDir(options.socketDir);
  const socketPath = path.join(socketDir.path, SOCKET_FILE);
  // A socket left by a stack that did not stop cleanly would make listen() fail.
  await unlink(socketPath).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'ENOENT') throw error;
  });
  const opening = openPGlite(options);
  // Settled here too, so a failure to open is never an unhandled rejection before `opened` is awaited.
  opening.catch(() => {});
  const server = new PGLiteSocketServer({
    db: whileOpening(opening),
    path: socketPath,
    maxConnections: options.maxConnections ?? 20,
  });
  keepQueryBatchesWhole(server);
  await server.start();
  return {
    url: `postgres://postgres@localhost/postgres?host=${encodeURIComponent(socketDir.path)}&sslmode=disable`,
    opened: opening.then(() => {}),
    async close() {
      await server.stop();
      await (await opening.catch(() => undefined))?.close();
      if (socketDir.temporary) await rm(socketDir.path, { recursive: true, force: true });
    },
  };
}

/** Opens PGlite on `dataDir`, a new one first filled from the template when there is a valid one. */
async function openPGlite(options: EmbeddedPostgresOptions): Promise<PGlite> {
  const { dataDir, templateDir, onNote = () => {} } = options;
  // Loaded here, after the caller's services are started: it is half of the socket server's start.
  const { PGlite } = await import('@electric-sql/pglite');
  const startParams = [...PGlite.defaultStartParams, ...EXTRA_START_PARAMS];
  if (!dataDir) {
    // In memory (tests): from the template's tarball when there is one, else initdb.
    const dump = templateDir ? await readDatabaseTemplateDump(templateDir) : undefined;
    if (templateDir)
      onNote(
        dump
          ? `new in-memory database from the template in ${templateDir}`
          : `no database template tarball for this PGlite in ${templateDir}: running initdb instead`,
      );
    return PGlite.create({ startParams, ...(dump ? { loadDataDir: dump } : {}) });
  }
  const isNew = (await readdir(dataDir)).length === 0;
  if (isNew && templateDir) {
    const copy = await copyDatabaseTemplate(templateDir, dataDir, options.templateMigrations);
    if (copy.copied) {
      try {
        const db = await PGlite.create({ dataDir, startParams });
        onNote(`new database copied from the template in ${templateDir}`);
        return db;
      } catch (error) {
        await emptyFolder(dataDir);
        onNote(
          `the database template in ${templateDir} did not open (${(error as Error).message}): running initdb instead (5–10 s)`,
        );
      }
    } else onNote(`${copy.reason}: running initdb instead (5–10 s; \`pnpm install\` makes the template)`);
  }
  return PGlite.create({ dataDir, startParams });
}

/**
 * What PGLiteSocketServer uses of its PGlite (pglite-socket 0.2.17), available before the
 * database is open: the server listens at once, and the queue it runs queries from waits for the
 * opening. The socket server's own test (test/embedded-postgres.test.ts) connects before the end
 * of the opening, so a pglite-socket that uses more of PGlite fails there.
 */
function whileOpening(opening: Promise<PGlite>): PGlite {
  let open: PGlite | undefined;
  opening.then(
    (db) => {
      open = db;
    },
    () => {},
  );
  const standIn: Pick<
    PGlite,
    'waitReady' | 'isInTransaction' | 'runExclusive' | 'execProtocolRawStream' | 'exec'
  > = {
    waitReady: Promise.resolve(),
    isInTransaction: () => open?.isInTransaction() ?? false,
    runExclusive: async (work) => (await opening).runExclusive(work),
    execProtocolRawStream: async (message, streamOptions) =>
      (await opening).execProtocolRawStream(message, streamOptions),
    exec: async (query, queryOptions) => (await opening).exec(query, queryOptions),
  };
  return standIn as unknown as PGlite;
}

/** The folder for the socket, created or narrowed to mode 0700. */
async function privateSocketDir(wanted: string | undefined): Promise<{ path: string; temporary: boolean }> {
  if (wanted && path.join(path.resolve(wanted), SOCKET_FILE).length <= MAX_SOCKET_PATH) {
    const dir = path.resolve(wanted);
    await mkdir(dir, { recursive: true, mode: 0o700 });
    await chmod(dir, 0o700);
    return { path: dir, temporary: false };
  }
  // mkdtemp creates the folder with mode 0700: as private, with a path short enough for a socket.
  return { path: await mkdtemp(path.join(os.tmpdir(), 'sheetgate-postgres-')), temporary: true };
}
