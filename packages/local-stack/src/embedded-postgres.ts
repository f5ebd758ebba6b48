import { mkdir } from 'node:fs/promises';
import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';

export interface EmbeddedPostgres {
  /** A `postgres://` URL any `pg` client can use. */
  url: string;
  close(): Promise<void>;
}

/**
 * PostgreSQL for machines without one (docs/design.md §6): PGlite, the WASM build of PostgreSQL,
 * served over the wire protocol so that the services use the same `pg` code as in production.
 * `maxConnections` lets a small pool share the single PGlite session; queries are queued.
 * `dataDir` undefined keeps the database in memory (tests).
 */
export async function startEmbeddedPostgres(options: {
  dataDir?: string;
  port?: number;
  host?: string;
  maxConnections?: number;
}): Promise<EmbeddedPostgres> {
  const host = options.host ?? '127.0.0.1';
  if (options.dataDir) await mkdir(options.dataDir, { recursive: true });
  const db = await PGlite.create(options.dataDir ? { dataDir: options.dataDir } : {});
  const server = new PGLiteSocketServer({
    db,
    host,
    port: options.port ?? 0,
    maxConnections: options.maxConnections ?? 20,
  });
  await server.start();
  // getServerConn() answers "host:port" with the port the OS chose when we asked for port 0.
  const address = server.getServerConn();
  const port = Number(address.slice(address.lastIndexOf(':') + 1));
  return {
    url: `postgres://postgres@${host}:${port}/postgres?sslmode=disable`,
    async close() {
      await server.stop();
      await db.close();
    },
  };
}
