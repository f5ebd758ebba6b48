import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  type CredentialChoices,
  createAccountServiceClient,
  createTokenBrokerClient,
  mayBeApiKey,
} from '@sheetgate/proto';
import {
  createBrowser,
  createTestDatabase,
  generateLocalSecrets,
  type RunningService,
  startServiceProcess,
  TEST_GOOGLE_QUOTAS,
  type TestDatabase,
  withFreePorts,
} from '@sheetgate/test-harness';
import { exportJWK, generateKeyPair, type JWK, SignJWT } from 'jose';
import { startEmulator } from './emulator.ts';

type PrivateKey = Awaited<ReturnType<typeof generateKeyPair>>['privateKey'];

/**
 * A raw JSON-RPC POST to an MCP endpoint, with the headers a Streamable HTTP client sends (which
 * `headers` may override); a string body is sent as it is, anything else as JSON.
 */
export function postMcp(
  url: string,
  body: unknown,
  options: { headers?: Record<string, string>; signal?: AbortSignal } = {},
): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...options.headers,
    },
    body: typeof body === 'string' ? body : JSON.stringify(body),
    ...(options.signal ? { signal: options.signal } : {}),
  });
}

/** The header that carries `credential`: `x-api-key` for an API key, else a bearer token. */
export function credentialHeaders(credential: string): Record<string, string> {
  return mayBeApiKey(credential) ? { 'x-api-key': credential } : { authorization: `Bearer ${credential}` };
}

/** `tools/call read_range` of `range` in `spreadsheetId`, as the holder of `token`. */
export function postReadRange(
  url: string,
  token: string,
  args: { spreadsheetId: string; range: string; id?: number; signal?: AbortSignal },
): Promise<Response> {
  return postMcp(
    url,
    {
      jsonrpc: '2.0',
      id: args.id ?? 1,
      method: 'tools/call',
      params: { name: 'read_range', arguments: { spreadsheetId: args.spreadsheetId, range: args.range } },
    },
    { headers: { authorization: `Bearer ${token}` }, ...(args.signal ? { signal: args.signal } : {}) },
  );
}

export interface SigningKey {
  kid: string;
  privateKey: PrivateKey;
  jwk: JWK;
}

export interface McpUnderTest {
  /** What auth was started with, to start it again (`restartAuth`). */
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
  /** The MCP process's `/metrics`. */
  mcpMetricsUrl: string;
  /** host:port of the MCP process's internal gRPC (ChangeUndoService). */
  mcpGrpcAddress: string;
  /** The Google emulator's URL, and its process. */
  emulatorUrl: string;
  emulatorProcess: ChildProcess;
  database: TestDatabase;
  signingKey: PrivateKey;
  kid: string;
  /** Signs a token with auth's signing key (or `key`); `header` bends any header. */
  sign(claims?: Record<string, unknown>, header?: Record<string, unknown>, key?: SigningKey): Promise<string>;
  /** Stops auth and starts it again on the same ports, with `env` changed (e.g. its signing keys). */
  restartAuth(env?: Record<string, string>): Promise<void>;
  /** Starts another MCP process on this auth and emulator, with `env` changed. */
  startMcp(env?: Record<string, string>): Promise<RunningService & { mcpUrl: string; metricsUrl: string }>;
  /**
   * Starts another auth replica on the same database (and Redis, when set), on ports of its own;
   * the caller stops it. `grpcAddress` is where MCP replicas and gRPC clients reach it.
   */
  startAuth(): Promise<RunningService & { grpcAddress: string }>;
  /** Spreadsheets put in `email`'s Drive by the emulator's seed API; their ids, in order. */
  seed(email: string, files: SeedFile[]): Promise<string[]>;
  /**
   * The MCP SDK's client, connected to this stack's MCP service with a token for `userId`, or with
   * `credential` (an API key's secret, or an app's access token) when given.
   */
  connectClient(userId: string, name: string, credential?: string): Promise<Client>;
  /** A person signed in through the emulator's Google, as the browser does it. */
  signIn(email: string): Promise<{ userId: string; sessionCookie: string }>;
  /**
   * An API key made through AccountService, as the dashboard makes it (every toolset unless
   * `toolsets`; the key form's two choices when `choices`, else the defaults).
   */
  createApiKey(
    sessionCookie: string,
    options?: { scopes?: string[]; expiresAt?: Date; toolsets?: string[]; choices?: CredentialChoices },
  ): Promise<{ secret: string; keyId: string }>;
  revokeApiKey(sessionCookie: string, keyId: string): Promise<void>;
  /** The user's Google access token as the broker hands it out (to see it change). */
  googleAccessToken(userId: string): Promise<string | undefined>;
  /** Sets an emulator fault (`POST /__emulator/faults`); `clearFaults` removes them all. */
  fault(body: Record<string, unknown>): Promise<void>;
  clearFaults(): Promise<void>;
  stop(): Promise<void>;
}

/** A spreadsheet for the emulator's seed API: one tab of `values`, or named `sheets`. */
export interface SeedFile {
  name: string;
  values?: unknown[][];
  sheets?: Array<{ title: string; values: unknown[][] }>;
}

/** A new ES256 signing key, as AUTH_SIGNING_KEYS holds it. */
export async function newSigningKey(): Promise<SigningKey> {
  const { privateKey } = await generateKeyPair('ES256', { extractable: true });
  const kid = `test-${randomBytes(4).toString('hex')}`;
  return { kid, privateKey, jwk: { ...(await exportJWK(privateKey)), kid, alg: 'ES256', use: 'sig' } };
}

/** AUTH_SIGNING_KEYS for these keys, the first one signing. */
export function signingKeysSetting(keys: SigningKey[]): string {
  return JSON.stringify({ keys: keys.map((key) => key.jwk) });
}

/**
 * Real auth, mcp and Google emulator processes on a fresh database. Auth signs with a key the test
 * generated (AUTH_SIGNING_KEYS), so the test can mint tokens the MCP service must judge exactly as
 * it judges auth's own: valid ones, and ones wrong in each way docs/design.md §7.1 lists. People
 * sign in through the emulator's Google as a browser does, so they have a user, a session and a
 * Google connection in auth, made by auth itself.
 */
export async function startMcpUnderTest(
  env: Record<string, string> = {},
  extraAuthEnv: Record<string, string> = {},
  options: { database?: TestDatabase } = {},
): Promise<McpUnderTest> {
  const key = await newSigningKey();
  const database = options.database ?? (await createTestDatabase());
  const serviceToken = randomBytes(32).toString('base64url');
  const googleClientId = `${randomBytes(6).toString('hex')}.apps.googleusercontent.com`;
  const googleClientSecret = randomBytes(16).toString('hex');
  const secrets = generateLocalSecrets();
  // Auth's port is in every URL the stack hands out (its BASE_URL, the emulator's redirect URI),
  // so when a port is taken before its process binds it, auth and the emulator start again
  // together on other ports.
  const { authPort, grpcPort, baseUrl, emulator, authEnv, auth } = await withFreePorts(
    4,
    async ([authPort, grpcPort, metricsPort, emulatorPort]) => {
      const baseUrl = `http://127.0.0.1:${authPort}`;
      const emulator = await startEmulator(emulatorPort!, {
        GOOGLE_CLIENT_ID: googleClientId,
        GOOGLE_CLIENT_SECRET: googleClientSecret,
        GOOGLE_EMULATOR_REDIRECT_URIS: `${baseUrl}/api/auth/google/callback`,
        // erin@gmail.com: a personal Google account (no Workspace domain).
        GOOGLE_EMULATOR_ACCOUNTS:
          'alice@example.com,bob@example.com,carol@example.com,dave@example.com,erin@gmail.com',
      });
      const authEnv: Record<string, string> = {
        ...secrets,
        BASE_URL: baseUrl,
        AUTH_PORT: String(authPort),
        AUTH_GRPC_PORT: String(grpcPort),
        // Every process of every test has its own metrics listener.
        AUTH_METRICS_PORT: String(metricsPort),
        DATABASE_URL: database.url,
        INTERNAL_SERVICE_TOKEN: serviceToken,
        GOOGLE_CLIENT_ID: googleClientId,
        GOOGLE_CLIENT_SECRET: googleClientSecret,
        GOOGLE_EMULATOR_URL: emulator.url,
        AUTH_SIGNING_KEYS: signingKeysSetting([key]),
        // Each stack counts its own requests when tests share one Redis.
        RATE_LIMIT_KEY_PREFIX: `mcp-test:${randomBytes(6).toString('hex')}`,
        GOOGLE_QUOTAS: TEST_GOOGLE_QUOTAS,
        ...(process.env.REDIS_URL ? { REDIS_URL: process.env.REDIS_URL } : {}),
        ...extraAuthEnv,
      };
      try {
        const auth = await startServiceProcess('auth', authEnv, authPort!);
        return { authPort: authPort!, grpcPort: grpcPort!, baseUrl, emulator, authEnv, auth };
      } catch (error) {
        emulator.child.kill();
        throw error;
      }
    },
  );
  const grpcAddress = `127.0.0.1:${grpcPort}`;
  const mcpEnv = (
    port: number,
    metricsPort: number,
    mcpGrpcPort: number,
    overrides: Record<string, string>,
  ) => ({
    BASE_URL: baseUrl,
    MCP_PORT: String(port),
    MCP_METRICS_PORT: String(metricsPort),
    MCP_GRPC_PORT: String(mcpGrpcPort),
    AUTH_INTERNAL_URL: `http://127.0.0.1:${authPort}`,
    AUTH_GRPC_ADDRESS: grpcAddress,
    INTERNAL_SERVICE_TOKEN: serviceToken,
    GOOGLE_EMULATOR_URL: emulator.url,
    // Every write into a spreadsheet reads its owners (none kept across calls), so the tests that
    // count Google requests count the same however long they ran.
    SPREADSHEET_OWNERS_KEPT_SECONDS: '0',
    ...overrides,
  });
  /** An mcp process on ports of its own; `metricsUrl` is its /metrics (on the port `env` names, if any). */
  const startMcp = (overrides: Record<string, string>) =>
    withFreePorts(3, async ([port, metricsPort, mcpGrpcPort]) => {
      const settings = mcpEnv(port!, metricsPort!, mcpGrpcPort!, overrides);
      const started = await startServiceProcess('mcp', settings, port!);
      return Object.assign(started, {
        metricsUrl: `http://127.0.0.1:${settings.MCP_METRICS_PORT}/metrics`,
        grpcAddress: `127.0.0.1:${settings.MCP_GRPC_PORT}`,
      });
    });
  const mcp = await startMcp(env);
  const others: RunningService[] = [];
  const resource = `${baseUrl}/api/mcp`;
  const accounts = () => createAccountServiceClient({ address: grpcAddress, serviceToken });

  const stack: McpUnderTest = {
    authEnv,
    authPort,
    grpcAddress,
    serviceToken,
    baseUrl,
    mcpUrl: `${mcp.url}/api/mcp`,
    resource,
    auth,
    mcp,
    mcpMetricsUrl: mcp.metricsUrl,
    mcpGrpcAddress: mcp.grpcAddress,
    emulatorUrl: emulator.url,
    emulatorProcess: emulator.child,
    database,
    signingKey: key.privateKey,
    kid: key.kid,
    async sign(claims = {}, header = {}, signWith = key) {
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
        .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: signWith.kid, ...header })
        .sign(signWith.privateKey);
    },
    async restartAuth(changes = {}) {
      await stack.auth.stop();
      Object.assign(authEnv, changes);
      stack.auth = await startServiceProcess('auth', authEnv, authPort);
    },
    async startMcp(overrides = {}) {
      const started = await startMcp(overrides);
      others.push(started);
      return { ...started, mcpUrl: `${started.url}/api/mcp` };
    },
    async startAuth() {
      // A replica: its own ports, the stack's BASE_URL.
      return withFreePorts(3, async ([port, grpcPort, metricsPort]) => {
        const started = await startServiceProcess(
          'auth',
          {
            ...authEnv,
            AUTH_PORT: String(port),
            AUTH_GRPC_PORT: String(grpcPort),
            AUTH_METRICS_PORT: String(metricsPort),
          },
          port!,
        );
        return Object.assign(started, { grpcAddress: `127.0.0.1:${grpcPort}` });
      });
    },
    async seed(email, files) {
      const response = await fetch(`${emulator.url}/__emulator/seed`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email, files }),
      });
      if (response.status !== 201) throw new Error(`the emulator refused the seed: ${await response.text()}`);
      return ((await response.json()) as { files: Array<{ id: string }> }).files.map((file) => file.id);
    },
    async connectClient(userId, name, credential) {
      const client = new Client({ name, version: '1.0.0' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(stack.mcpUrl), {
          requestInit: { headers: credentialHeaders(credential ?? (await stack.sign({ sub: userId }))) },
        }),
      );
      return client;
    },
    async signIn(email) {
      const browser = createBrowser();
      const chooser = await browser.navigate(`${baseUrl}/api/auth/google/start?return_to=%2Fdashboard`);
      if (chooser.status !== 200) throw new Error(`expected Google's account chooser, got ${chooser.status}`);
      const chosen = await browser.pressButton(
        { url: chooser.redirects.at(-1) ?? chooser.url, body: chooser.body },
        email,
      );
      // The dashboard is the web service's, which is not running here: stop on the way to it.
      await browser.navigate(chosen.location!, {}, (url) => url.pathname === '/dashboard');
      const cookie = (await browser.jar.getCookies(baseUrl)).find((entry) => entry.key === 'sg_session');
      if (!cookie) throw new Error(`no dashboard session after signing in as ${email}`);
      const client = accounts();
      try {
        const session = await client.getSession({ sessionCookie: cookie.value });
        if (!session.user) throw new Error('the new session has no user');
        return { userId: session.user.id, sessionCookie: cookie.value };
      } finally {
        client.close();
      }
    },
    async createApiKey(sessionCookie, options = {}) {
      const client = accounts();
      try {
        const created = await client.createApiKey({
          sessionCookie,
          name: `mcp test ${randomBytes(3).toString('hex')}`,
          scopes: options.scopes ?? ['sheets:read', 'sheets:write'],
          expiresAt: options.expiresAt?.toISOString() ?? '',
          ...(options.toolsets ? { toolsets: { names: options.toolsets } } : {}),
          ...(options.choices ? { choices: options.choices } : {}),
        });
        return { secret: created.secret, keyId: created.key!.id };
      } finally {
        client.close();
      }
    },
    async revokeApiKey(sessionCookie, keyId) {
      const client = accounts();
      try {
        await client.revokeApiKey({ sessionCookie, keyId });
      } finally {
        client.close();
      }
    },
    async googleAccessToken(userId) {
      const broker = createTokenBrokerClient({ address: grpcAddress, serviceToken });
      try {
        return (await broker.getGoogleAccessToken({ userId, forceRefresh: false })).token?.accessToken;
      } finally {
        broker.close();
      }
    },
    async fault(body) {
      const response = await fetch(`${emulator.url}/__emulator/faults`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      if (!response.ok) throw new Error(`the emulator refused the fault: ${await response.text()}`);
    },
    async clearFaults() {
      await fetch(`${emulator.url}/__emulator/faults`, { method: 'DELETE' });
    },
    async stop() {
      await Promise.all([stack.mcp.stop(), ...others.map((other) => other.stop())]);
      // `auth` may have been replaced by a test that restarted it.
      await stack.auth.stop();
      emulator.child.kill();
      await database.close();
    },
  };
  return stack;
}
