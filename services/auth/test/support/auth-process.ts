import { randomBytes } from 'node:crypto';
import {
  createTestDatabase,
  createTestRedis,
  generateLocalSecrets,
  type RunningService,
  startServiceProcess,
  type TestDatabase,
  type TestRedis,
  withFreePorts,
} from '@sheetgate/test-harness';

export interface AuthUnderTest {
  auth: RunningService;
  database: TestDatabase;
  redis: TestRedis;
  env: Record<string, string>;
  baseUrl: string;
  /** Stops the process and starts it again with the same settings (a rollout of one replica). */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * A real auth process on a fresh database (and Redis when there is one), with its public origin
 * set to where it listens, so URLs it advertises can be followed by the test.
 */
export async function startAuthUnderTest(extraEnv: Record<string, string> = {}): Promise<AuthUnderTest> {
  const database = await createTestDatabase();
  const redis = await createTestRedis();
  const secrets = generateLocalSecrets();
  // Its origin names its port: should a port be taken before auth binds it, all are chosen again.
  const { port, env, baseUrl, auth } = await withFreePorts(2, async ([port, grpcPort]) => {
    const baseUrl = `http://127.0.0.1:${port}`;
    const env = {
      ...secrets,
      BASE_URL: baseUrl,
      AUTH_PORT: String(port),
      AUTH_GRPC_PORT: String(grpcPort),
      DATABASE_URL: database.url,
      INTERNAL_SERVICE_TOKEN: randomBytes(32).toString('base64url'),
      GOOGLE_CLIENT_ID: 'test-client.apps.googleusercontent.com',
      GOOGLE_CLIENT_SECRET: randomBytes(16).toString('hex'),
      // Each stack counts its own requests (tests share one Redis), and registers many clients.
      RATE_LIMIT_KEY_PREFIX: `test:${randomBytes(6).toString('hex')}`,
      RATE_LIMIT_OVERRIDES: JSON.stringify({ register: { points: 500, durationSeconds: 3600 } }),
      ...(redis.url ? { REDIS_URL: redis.url } : {}),
      ...extraEnv,
    };
    return { port: port!, env, baseUrl, auth: await startServiceProcess('auth', env, port!) };
  });
  const subject: AuthUnderTest = {
    auth,
    database,
    redis,
    env,
    baseUrl,
    async restart() {
      await subject.auth.stop();
      subject.auth = await startServiceProcess('auth', env, port);
    },
    async stop() {
      await subject.auth.stop();
      await redis.close();
      await database.close();
    },
  };
  return subject;
}
