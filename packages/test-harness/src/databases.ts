import { randomBytes } from 'node:crypto';
import { defaultTemplateDir, startEmbeddedPostgres } from '@sheetgate/local-stack';
import pg from 'pg';
import { dockerEngineAvailable } from './docker.ts';

export interface TestDatabase {
  url: string;
  /** Where it came from, for test names and diagnostics. */
  kind: 'server' | 'container' | 'embedded';
  close(): Promise<void>;
}

/**
 * A fresh, empty PostgreSQL database for one test file: a new database on the server named by
 * DATABASE_URL (dropped afterwards), else a Testcontainers PostgreSQL when Docker answers, else
 * an in-memory embedded PGlite, started from the install-time template (initdb otherwise: seconds
 * of CPU more for every test file).
 */
export async function createTestDatabase(): Promise<TestDatabase> {
  const serverUrl = process.env.DATABASE_URL;
  if (serverUrl) {
    const name = `sheetgate_test_${randomBytes(6).toString('hex')}`;
    const admin = new pg.Client({ connectionString: serverUrl });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    await admin.end();
    const url = new URL(serverUrl);
    url.pathname = `/${name}`;
    return {
      url: url.toString(),
      kind: 'server',
      async close() {
        const dropper = new pg.Client({ connectionString: serverUrl });
        await dropper.connect();
        await dropper.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
        await dropper.end();
      },
    };
  }
  if (await dockerEngineAvailable()) {
    const { PostgreSqlContainer } = await import('@testcontainers/postgresql');
    const container = await new PostgreSqlContainer('postgres:17-alpine').start();
    return {
      url: container.getConnectionUri(),
      kind: 'container',
      close: async () => void (await container.stop()),
    };
  }
  const embedded = await startEmbeddedPostgres({ templateDir: await defaultTemplateDir() });
  return { url: embedded.url, kind: 'embedded', close: () => embedded.close() };
}

export interface TestRedis {
  /** Undefined when no Redis can be had: the code under test then uses its in-process cache. */
  url: string | undefined;
  kind: 'server' | 'container' | 'none';
  close(): Promise<void>;
}

/** The Redis named by REDIS_URL, else a Testcontainers Redis when Docker answers, else none. */
export async function createTestRedis(): Promise<TestRedis> {
  if (process.env.REDIS_URL) return { url: process.env.REDIS_URL, kind: 'server', close: async () => {} };
  if (await dockerEngineAvailable()) {
    const { RedisContainer } = await import('@testcontainers/redis');
    const container = await new RedisContainer('redis:7-alpine').start();
    return {
      url: container.getConnectionUrl(),
      kind: 'container',
      close: async () => void (await container.stop()),
    };
  }
  return { url: undefined, kind: 'none', close: async () => {} };
}
