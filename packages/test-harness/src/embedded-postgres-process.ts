/**
 * The embedded PostgreSQL (PGlite over the wire protocol) as a process of its own, so that in a
 * benchmark it runs on the core the bench gives it, not inside the load generator. Prints its URL
 * (started by `startBenchDatabase`).
 */
import { startEmbeddedPostgres } from '@sheetgate/local-stack';

// Always PGlite (not a Testcontainers PostgreSQL, which createTestDatabase prefers where Docker
// answers): the bench pins this process, so the database must run inside it.
const database = await startEmbeddedPostgres({});
process.stdout.write(`${database.url}\n`);
const stop = () => void database.close().finally(() => process.exit(0));
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
