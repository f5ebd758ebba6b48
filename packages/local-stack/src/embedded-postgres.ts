import { chmod, mkdir, mkdtemp, rm, unlink } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';

export interface EmbeddedPostgres {
  /** A `postgres://` URL any `pg` client can use (its `host` parameter is the socket's folder). */
  url: string;
  close(): Promise<void>;
}

/** The file name PostgreSQL clients look for in a socket folder (libpq, node-postgres). */
const SOCKET_FILE = '.s.PGSQL.5432';
/** What a Unix socket path may hold on Linux (sun_path is 108 bytes with its NUL; macOS: 104). */
const MAX_SOCKET_PATH = 103;

/**
 * PostgreSQL for machines without one (docs/design.md §6): PGlite, the WASM build of PostgreSQL,
 * served over the wire protocol so that the services use the same `pg` code as in production.
 * `maxConnections` lets a small pool share the single PGlite session; queries are queued.
 * `dataDir` undefined keeps the database in memory (tests).
 *
 * PGlite asks no password, so it listens on a Unix socket in a folder only this user may enter
 * (mode 0700): `socketDir`, or a fresh private temporary folder. On 127.0.0.1 any local user could
 * read the stored tokens or insert a dashboard session.
 */
export async function startEmbeddedPostgres(options: {
  dataDir?: string;
  socketDir?: string;
  maxConnections?: number;
}): Promise<EmbeddedPostgres> {
  if (options.dataDir) await mkdir(options.dataDir, { recursive: true, mode: 0o700 });
  const socketDir = await privateSocketDir(options.socketDir);
  const socketPath = path.join(socketDir.path, SOCKET_FILE);
  // A socket left by a stack that did not stop cleanly would make listen() fail.
  await unlink(socketPath).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'ENOENT') throw error;
  });
  const db = await PGlite.create(options.dataDir ? { dataDir: options.dataDir } : {});
  const server = new PGLiteSocketServer({
    db,
    path: socketPath,
    maxConnections: options.maxConnections ?? 20,
  });
  await server.start();
  return {
    url: `postgres://postgres@localhost/postgres?host=${encodeURIComponent(socketDir.path)}&sslmode=disable`,
    async close() {
      await server.stop();
      await db.close();
      if (socketDir.temporary) await rm(socketDir.path, { recursive: true, force: true });
    },
  };
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
