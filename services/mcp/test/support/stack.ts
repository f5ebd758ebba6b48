import { randomBytes } from 'node:crypto';
import {
  createTestDatabase,
  freePort,
  generateLocalSecrets,
  type RunningService,
  startServiceProcess,
  type TestDatabase,
} from '@sheetgate/test-harness';
import { exportJWK, generateKeyPair, type JWK, SignJWT } from 'jose';

export interface McpUnderTest {
  /** What auth was started with, to start it again after stopping it. */
  authEnv: Record<string, string>;
  authPort: number;
  /** host:port of auth's gRPC, and the credential for it. */
  grpcAddress: string;
  serviceToken: string;
  baseUrl: string;
  mcpUrl: string;
  resource: string;
  auth: RunningService;
  mcp: RunningService;
  database: TestDatabase;
  signingKey: Awaited<ReturnType<typeof generateKeyPair>>['privateKey'];
  kid: string;
  /** Signs a token with auth's own signing key; `overrides` bend any claim or header. */
  sign(claims?: Record<string, unknown>, header?: Record<string, unknown>): Promise<string>;
  stop(): Promise<void>;
}

/**
 * Real auth and mcp processes. Auth signs with a key the test generated (AUTH_SIGNING_KEYS), so
 * the test can mint tokens the MCP service must judge exactly as it judges auth's own: valid ones,
 * and ones wrong in each way DESIGN §7.1 lists.
 */
export async function startMcpUnderTest(
  env: Record<string, string> = {},
  extraAuthEnv: Record<string, string> = {},
): Promise<McpUnderTest> {
  const { privateKey } = await generateKeyPair('ES256', { extractable: true });
  const kid = `test-${randomBytes(4).toString('hex')}`;
  const jwk: JWK = { ...(await exportJWK(privateKey)), kid, alg: 'ES256', use: 'sig' };
  const database = await createTestDatabase();
  const authPort = await freePort();
  const grpcPort = await freePort();
  const mcpPort = await freePort();
  const baseUrl = `http://127.0.0.1:${authPort}`;
  const serviceToken = randomBytes(32).toString('base64url');
  const authEnv: Record<string, string> = {
    ...generateLocalSecrets(),
    BASE_URL: baseUrl,
    AUTH_PORT: String(authPort),
    AUTH_GRPC_PORT: String(grpcPort),
    DATABASE_URL: database.url,
    INTERNAL_SERVICE_TOKEN: serviceToken,
    GOOGLE_CLIENT_ID: 'test-client.apps.googleusercontent.com',
    GOOGLE_CLIENT_SECRET: randomBytes(16).toString('hex'),
    AUTH_SIGNING_KEYS: JSON.stringify({ keys: [jwk] }),
    ...extraAuthEnv,
  };
  const auth = await startServiceProcess('auth', authEnv, authPort);
  const mcp = await startServiceProcess(
    'mcp',
    {
      BASE_URL: baseUrl,
      MCP_PORT: String(mcpPort),
      AUTH_INTERNAL_URL: auth.url,
      AUTH_GRPC_ADDRESS: `127.0.0.1:${grpcPort}`,
      INTERNAL_SERVICE_TOKEN: serviceToken,
      ...env,
    },
    mcpPort,
  );
  const resource = `${baseUrl}/api/mcp`;
  return {
    authEnv,
    authPort,
    grpcAddress: `127.0.0.1:${grpcPort}`,
    serviceToken,
    baseUrl,
    mcpUrl: `${mcp.url}/api/mcp`,
    resource,
    auth,
    mcp,
    database,
    signingKey: privateKey,
    kid,
    async sign(claims = {}, header = {}) {
      const now = Math.floor(Date.now() / 1000);
      return new SignJWT({
        iss: baseUrl,
        aud: resource,
        sub: 'user-1',
        client_id: 'client-1',
        scope: 'sheets:read sheets:write',
        iat: now,
        exp: now + 300,
        jti: randomBytes(8).toString('hex'),
        ...claims,
      })
        .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid, ...header })
        .sign(privateKey);
    },
    async stop(this: McpUnderTest) {
      await this.mcp.stop();
      // `auth` may have been replaced by a test that restarted it.
      await this.auth.stop();
      await database.close();
    },
  };
}
