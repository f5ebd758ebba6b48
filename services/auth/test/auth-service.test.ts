import { randomBytes } from 'node:crypto';
import {
  createTestDatabase,
  createTestRedis,
  generateLocalSecrets,
  type RunningService,
  readJson,
  startServiceProcess,
  type TestDatabase,
  type TestRedis,
  withFreePorts,
} from '@sheetgate/test-harness';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

let database: TestDatabase;
let redis: TestRedis;
let auth: RunningService;
let env: Record<string, string>;

/** Auth with `settings` on ports of its own (others should one be taken before it binds it). */
function startAuth(settings: Record<string, string>): Promise<RunningService> {
  return withFreePorts(2, ([port, grpcPort]) =>
    startServiceProcess(
      'auth',
      { ...settings, AUTH_PORT: String(port), AUTH_GRPC_PORT: String(grpcPort) },
      port!,
    ),
  );
}

beforeAll(async () => {
  database = await createTestDatabase();
  redis = await createTestRedis();
  env = {
    ...generateLocalSecrets(),
    GOOGLE_CLIENT_ID: 'test-client.apps.googleusercontent.com',
    GOOGLE_CLIENT_SECRET: randomBytes(16).toString('hex'),
    DATABASE_URL: database.url,
    INTERNAL_SERVICE_TOKEN: randomBytes(32).toString('base64url'),
    ...(redis.url ? { REDIS_URL: redis.url } : {}),
  };
  auth = await startAuth(env);
});

afterAll(async () => {
  await auth?.stop();
  await redis?.close();
  await database?.close();
});

describe('auth service process', () => {
  it('applies the versioned migrations at start', async () => {
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      const { rows } = await client.query('SELECT name FROM schema_migrations ORDER BY run_on, id');
      expect(rows.map((row) => row.name)).toContain('20261122180000_users-and-audit');
      const tables = await client.query(
        "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY table_name",
      );
      expect(tables.rows.map((row) => row.table_name)).toEqual(
        expect.arrayContaining(['audit_events', 'schema_migrations', 'users']),
      );
    } finally {
      await client.end();
    }
  });

  it('is ready only with its database and cache answering', async () => {
    const response = await fetch(`${auth.url}/readyz`);
    expect(response.status).toBe(200);
    expect(await readJson(response)).toEqual({ status: 'ready', checks: { postgres: 'ok', cache: 'ok' } });
  });

  it('serves OpenID discovery', async () => {
    const response = await fetch(`${auth.url}/.well-known/openid-configuration`);
    expect(response.status).toBe(200);
    expect((await readJson(response)).issuer).toBe('http://localhost:8080');
  });

  it('answers an unknown /api/auth route with a JSON 404', async () => {
    const response = await fetch(`${auth.url}/api/auth/not-a-route`);
    expect(response.status).toBe(404);
    expect(response.headers.get('content-type')).toContain('application/json');
    expect(await readJson(response)).toEqual({ error: 'not_found', error_description: 'no such route' });
  });

  it('answers unknown paths with a JSON 404', async () => {
    const response = await fetch(`${auth.url}/nothing-here`);
    expect(response.status).toBe(404);
    expect(await readJson(response)).toEqual({ error: 'not_found', error_description: 'no such route' });
  });

  it('starts again on a migrated database, applying nothing twice', async () => {
    const second = await startAuth(env);
    try {
      expect((await fetch(`${second.url}/readyz`)).status).toBe(200);
      expect(second.output.join('\n')).not.toContain('applied migrations');
    } finally {
      await second.stop();
    }
    expect(auth.output.join('\n')).toContain('applied migrations');
  });

  it('stops gracefully on SIGTERM', async () => {
    const third = await startAuth(env);
    third.process.kill('SIGTERM');
    expect(await third.exited).toBe(0);
    expect(third.output.some((line) => line.includes('"msg":"stopped"'))).toBe(true);
  });
});
