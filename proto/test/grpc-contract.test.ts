import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { credentials, Metadata, type ServiceError } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  accountService,
  createAccountServiceClient,
  createTokenBrokerClient,
  type GetGoogleAccessTokenRequest,
  type GetSessionRequest,
  GrpcStatus,
  hasServiceCredential,
  isServiceError,
  type ResolveApiKeysRequest,
  type RunningGrpcServer,
  serviceCredentialInterceptor,
  serviceCredentialMetadata,
  startGrpcServer,
  TokenBrokerServiceClient,
  TokenBrokerServiceService,
  tokenBrokerService,
} from '../src/index.ts';

const protoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const TOKEN = 'a-service-token-for-tests-only-0123456789';
const SLOW_USER = 'slow-user';

/** What the handlers below were called with, in order. */
const calls: { method: string; request: unknown }[] = [];
const callsTo = (method: string) => calls.filter((call) => call.method === method).length;

let server: RunningGrpcServer;
const address = () => `127.0.0.1:${server.port}`;

beforeAll(async () => {
  server = await startGrpcServer({
    host: '127.0.0.1',
    port: 0,
    serviceToken: TOKEN,
    services: [
      tokenBrokerService({
        resolveApiKeys(call, callback) {
          calls.push({ method: 'resolveApiKeys', request: call.request });
          callback(null, {
            results: call.request.apiKeys.map((apiKey) =>
              apiKey === 'sg_revoked'
                ? { refused: { reason: 'API_KEY_REFUSAL_REVOKED', retryAfterSeconds: 0 } }
                : { resolved: { userId: 'user-1', scopes: ['sheets:read'], keyId: 'key-1', toolsets: [] } },
            ),
          });
        },
        getGoogleAccessToken(call, callback) {
          calls.push({ method: 'getGoogleAccessToken', request: call.request });
          const answer = () =>
            callback(null, {
              token: {
                accessToken: `ya29.for-${call.request.userId}`,
                expiresAt: 1_900_000_000,
                scopes: ['https://www.googleapis.com/auth/spreadsheets'],
                email: `${call.request.userId}@example.com`,
                hostedDomain: 'example.com',
              },
            });
          // The slow user is slower than any deadline the tests set.
          if (call.request.userId === SLOW_USER) setTimeout(answer, 600);
          else answer();
        },
      }),
      // Only GetSession is implemented: every other AccountService method must be UNIMPLEMENTED.
      accountService({
        getSession(call, callback) {
          calls.push({ method: 'getSession', request: call.request });
          callback(null, {
            user:
              call.request.sessionCookie === 'live-cookie'
                ? {
                    id: 'user-1',
                    email: 'alice@example.com',
                    name: 'Alice',
                    picture: 'https://example.com/a.png',
                  }
                : undefined,
            signOutCsrfToken: call.request.sessionCookie === 'live-cookie' ? 'csrf-1' : '',
          });
        },
      }),
    ],
  });
});
afterAll(async () => {
  await server?.close();
});

/** Runs a callback-style call of the generated client and returns its error (or null). */
function rawCall(client: TokenBrokerServiceClient, metadata: Metadata): Promise<ServiceError | null> {
  return new Promise((resolve) => {
    client.resolveApiKeys(
      { apiKeys: ['sg_live_example'], clientAddresses: [] },
      metadata,
      { deadline: Date.now() + 2_000 },
      (error) => resolve(error),
    );
  });
}

describe('a call with the service credential', () => {
  it('reaches the handler and returns its data through the promise client', async () => {
    const broker = createTokenBrokerClient({ address: address(), serviceToken: TOKEN });
    try {
      const request: ResolveApiKeysRequest = {
        apiKeys: ['sg_live_example', 'sg_revoked'],
        clientAddresses: ['203.0.113.7', '2001:db8::1'],
      };
      expect(await broker.resolveApiKeys(request)).toEqual({
        results: [
          {
            resolved: { userId: 'user-1', scopes: ['sheets:read'], keyId: 'key-1', toolsets: [] },
            refused: undefined,
          },
          { resolved: undefined, refused: { reason: 'API_KEY_REFUSAL_REVOKED', retryAfterSeconds: 0 } },
        ],
      });
      expect(calls.at(-1)).toEqual({ method: 'resolveApiKeys', request });

      const google = await broker.getGoogleAccessToken({ userId: 'user-1', forceRefresh: true });
      expect(google.token).toEqual({
        accessToken: 'ya29.for-user-1',
        expiresAt: 1_900_000_000,
        scopes: ['https://www.googleapis.com/auth/spreadsheets'],
        email: 'user-1@example.com',
        hostedDomain: 'example.com',
      });
      expect(calls.at(-1)?.request).toEqual({
        userId: 'user-1',
        forceRefresh: true,
      } satisfies GetGoogleAccessTokenRequest);
    } finally {
      broker.close();
    }
  });

  it('reaches AccountService through its promise client', async () => {
    const accounts = createAccountServiceClient({ address: address(), serviceToken: TOKEN });
    try {
      const request: GetSessionRequest = { sessionCookie: 'live-cookie' };
      expect(await accounts.getSession(request)).toEqual({
        user: {
          id: 'user-1',
          email: 'alice@example.com',
          name: 'Alice',
          picture: 'https://example.com/a.png',
        },
        signOutCsrfToken: 'csrf-1',
      });
      expect(await accounts.getSession({ sessionCookie: 'gone' })).toEqual({
        user: undefined,
        signOutCsrfToken: '',
      });
    } finally {
      accounts.close();
    }
  });

  it('works through the generated grpc-js client with the credential interceptor or metadata', async () => {
    const viaInterceptor = new TokenBrokerServiceClient(address(), credentials.createInsecure(), {
      interceptors: [serviceCredentialInterceptor(TOKEN)],
    });
    const plain = new TokenBrokerServiceClient(address(), credentials.createInsecure());
    try {
      expect(await rawCall(viaInterceptor, new Metadata())).toBeNull();
      expect(await rawCall(plain, serviceCredentialMetadata(TOKEN))).toBeNull();
    } finally {
      viaInterceptor.close();
      plain.close();
    }
  });
});

describe('a call without the right service credential', () => {
  it('gets UNAUTHENTICATED from a wrong token, and the handler is not called', async () => {
    const before = callsTo('resolveApiKeys');
    const broker = createTokenBrokerClient({ address: address(), serviceToken: 'not-the-token' });
    try {
      const error = await broker
        .resolveApiKeys({ apiKeys: ['sg_live_example'], clientAddresses: [] })
        .catch((e: unknown) => e);
      expect(isServiceError(error, GrpcStatus.UNAUTHENTICATED)).toBe(true);
      expect((error as ServiceError).details).toBe('missing or wrong service credential');
    } finally {
      broker.close();
    }
    expect(callsTo('resolveApiKeys')).toBe(before);
  });

  it.each([
    ['no authorization metadata at all', () => new Metadata()],
    ['an empty bearer token', () => serviceCredentialMetadata('')],
    [
      'the token under another scheme',
      () => {
        const metadata = new Metadata();
        metadata.set('authorization', `Basic ${TOKEN}`);
        return metadata;
      },
    ],
    ['the token with a suffix', () => serviceCredentialMetadata(`${TOKEN}x`)],
  ])('gets UNAUTHENTICATED with %s, and the handler is not called', async (_name, metadata) => {
    const before = callsTo('resolveApiKeys');
    const client = new TokenBrokerServiceClient(address(), credentials.createInsecure());
    try {
      expect((await rawCall(client, metadata()))?.code).toBe(GrpcStatus.UNAUTHENTICATED);
    } finally {
      client.close();
    }
    expect(callsTo('resolveApiKeys')).toBe(before);
  });

  it('is checked as exactly one bearer value (the check itself)', () => {
    expect(hasServiceCredential(serviceCredentialMetadata(TOKEN), TOKEN)).toBe(true);
    const twice = serviceCredentialMetadata(TOKEN);
    twice.add('authorization', 'Bearer wrong');
    expect(hasServiceCredential(twice, TOKEN)).toBe(false);
    expect(hasServiceCredential(serviceCredentialMetadata(''), '')).toBe(false);
    expect(hasServiceCredential(serviceCredentialMetadata(TOKEN.slice(0, -1)), TOKEN)).toBe(false);
  });

  it('is refused on every service the server carries', async () => {
    const before = callsTo('getSession');
    const accounts = createAccountServiceClient({ address: address(), serviceToken: 'not-the-token' });
    try {
      await expect(accounts.getSession({ sessionCookie: 'live-cookie' })).rejects.toMatchObject({
        code: GrpcStatus.UNAUTHENTICATED,
      });
    } finally {
      accounts.close();
    }
    expect(callsTo('getSession')).toBe(before);
  });
});

describe('deadlines', () => {
  it('ends a call to a slow handler with DEADLINE_EXCEEDED (client default)', async () => {
    const broker = createTokenBrokerClient({ address: address(), serviceToken: TOKEN, deadlineMs: 100 });
    try {
      const started = Date.now();
      await expect(
        broker.getGoogleAccessToken({ userId: SLOW_USER, forceRefresh: false }),
      ).rejects.toMatchObject({
        code: GrpcStatus.DEADLINE_EXCEEDED,
      });
      expect(Date.now() - started).toBeLessThan(500);
    } finally {
      broker.close();
    }
  });

  it('applies a per-call deadline, and the 2 s default is longer than a fast call', async () => {
    const broker = createTokenBrokerClient({ address: address(), serviceToken: TOKEN });
    try {
      await expect(
        broker.getGoogleAccessToken({ userId: SLOW_USER, forceRefresh: false }, { deadlineMs: 50 }),
      ).rejects.toMatchObject({ code: GrpcStatus.DEADLINE_EXCEEDED });
      await expect(
        broker.getGoogleAccessToken({ userId: 'user-1', forceRefresh: false }),
      ).resolves.toMatchObject({
        token: { accessToken: 'ya29.for-user-1' },
      });
    } finally {
      broker.close();
    }
  });

  it('cancels a call when its AbortSignal fires', async () => {
    const broker = createTokenBrokerClient({ address: address(), serviceToken: TOKEN });
    try {
      await expect(
        broker.getGoogleAccessToken(
          { userId: SLOW_USER, forceRefresh: false },
          { signal: AbortSignal.timeout(50) },
        ),
      ).rejects.toMatchObject({ code: GrpcStatus.CANCELLED });
    } finally {
      broker.close();
    }
  });
});

describe('unimplemented methods', () => {
  it.each([
    [
      'SignOut',
      (a: ReturnType<typeof createAccountServiceClient>) => a.signOut({ sessionCookie: 'live-cookie' }),
    ],
    [
      'ListApiKeys',
      (a: ReturnType<typeof createAccountServiceClient>) => a.listApiKeys({ sessionCookie: 'x' }),
    ],
    [
      'GetInteraction',
      (a: ReturnType<typeof createAccountServiceClient>) =>
        a.getInteraction({ interactionUid: 'abc', sessionCookie: '' }),
    ],
  ])('%s answers UNIMPLEMENTED, never a fake success', async (_name, call) => {
    const accounts = createAccountServiceClient({ address: address(), serviceToken: TOKEN });
    try {
      await expect(call(accounts)).rejects.toMatchObject({ code: GrpcStatus.UNIMPLEMENTED });
    } finally {
      accounts.close();
    }
  });
});

describe('misconfiguration fails loudly', () => {
  it('refuses a server without a real service token', async () => {
    await expect(
      startGrpcServer({ host: '127.0.0.1', port: 0, serviceToken: '', services: [tokenBrokerService({})] }),
    ).rejects.toThrow(/service token/);
  });

  it('refuses a handler that is not a method of the service', async () => {
    await expect(
      startGrpcServer({
        host: '127.0.0.1',
        port: 0,
        serviceToken: TOKEN,
        services: [{ definition: TokenBrokerServiceService, handlers: { resolveApiKeyz: () => undefined } }],
      }),
    ).rejects.toThrow(/"resolveApiKeyz" is not a method/);
  });

  it('refuses a client without a service token', () => {
    expect(() => createTokenBrokerClient({ address: address(), serviceToken: '' })).toThrow(/service token/);
  });
});

describe('shutdown', () => {
  it('tryShutdown lets a call in flight finish, then refuses new connections', async () => {
    // The handler holds its answer until the shutdown has begun.
    let arrived!: () => void;
    const handlerRunning = new Promise<void>((resolve) => {
      arrived = resolve;
    });
    let release!: () => void;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    const own = await startGrpcServer({
      host: '127.0.0.1',
      port: 0,
      serviceToken: TOKEN,
      services: [
        tokenBrokerService({
          getGoogleAccessToken(_call, callback) {
            arrived();
            void released.then(() =>
              callback(null, {
                token: {
                  accessToken: 'late',
                  expiresAt: 1,
                  scopes: [],
                  email: 'a@example.com',
                  hostedDomain: '',
                },
              }),
            );
          },
        }),
      ],
    });
    const broker = createTokenBrokerClient({ address: `127.0.0.1:${own.port}`, serviceToken: TOKEN });
    try {
      const inFlight = broker.getGoogleAccessToken({ userId: 'user-1', forceRefresh: false });
      await handlerRunning;
      const shutdown = own.tryShutdown();
      let shutDown = false;
      void shutdown.then(() => {
        shutDown = true;
      });
      // Not done while the call is in flight.
      await new Promise((resolve) => setImmediate(resolve));
      expect(shutDown).toBe(false);
      release();
      await shutdown;
      await expect(inFlight).resolves.toMatchObject({ token: { accessToken: 'late' } });
      const later = createTokenBrokerClient({
        address: `127.0.0.1:${own.port}`,
        serviceToken: TOKEN,
        deadlineMs: 500,
      });
      await expect(
        later.getGoogleAccessToken({ userId: 'user-1', forceRefresh: false }),
      ).rejects.toMatchObject({
        code: GrpcStatus.UNAVAILABLE,
      });
      later.close();
    } finally {
      broker.close();
      own.forceShutdown();
    }
  });
});

describe('plain Node', () => {
  it('loads the package and its generated code with type stripping only, no build step', () => {
    const script = `
      const proto = await import(${JSON.stringify(path.join(protoRoot, 'src/index.ts'))});
      const bytes = proto.ResolveApiKeysRequest.encode({ apiKeys: ['k', 'l'], clientAddresses: ['192.0.2.1', '2001:db8::1'] }).finish();
      const back = proto.ResolveApiKeysRequest.decode(bytes);
      console.log(JSON.stringify({ back, services: Object.keys(proto.AccountServiceService) }));
    `;
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    const parsed = JSON.parse(out) as { back: unknown; services: string[] };
    expect(parsed.back).toEqual({ apiKeys: ['k', 'l'], clientAddresses: ['192.0.2.1', '2001:db8::1'] });
    expect(parsed.services).toContain('signOut');
  });
});

describe('the generated-code check (`pnpm proto:check`)', () => {
  let copy: string;
  beforeAll(() => {
    copy = mkdtempSync(path.join(tmpdir(), 'sheetgate-proto-check-'));
    for (const entry of ['buf.yaml', 'buf.gen.yaml', 'sheetgate', 'gen', 'scripts', 'package.json']) {
      cpSync(path.join(protoRoot, entry), path.join(copy, entry), { recursive: true });
    }
    symlinkSync(path.join(protoRoot, 'node_modules'), path.join(copy, 'node_modules'));
  });
  afterAll(() => rmSync(copy, { recursive: true, force: true }));

  const check = () =>
    execFileSync(process.execPath, [path.join(copy, 'scripts/generate.ts'), '--check'], {
      cwd: copy,
      encoding: 'utf8',
      stdio: 'pipe',
    });
  const failureOf = () => {
    try {
      check();
    } catch (error) {
      return error as { status?: number; stderr?: string };
    }
    return { status: 0, stderr: '' };
  };

  it('passes on the committed code', () => {
    expect(check()).toContain('generated code is current');
  });

  it('fails with a clear message when a .proto changed without regenerating', () => {
    const file = path.join(copy, 'sheetgate/v1/token_broker.proto');
    const original = readFileSync(file, 'utf8');
    writeFileSync(
      file,
      original.replace('bool force_refresh = 2;', 'bool force_refresh = 2;\n  string reason = 4;'),
    );
    try {
      const failure = failureOf();
      expect(failure.status).toBe(1);
      expect(failure.stderr).toContain(
        'generated code is stale (sheetgate/v1/token_broker.ts); run `pnpm proto:gen` and commit proto/gen',
      );
    } finally {
      writeFileSync(file, original);
    }
  });

  it('fails when generated code was edited by hand', () => {
    const file = path.join(copy, 'gen/sheetgate/v1/account_service.ts');
    const original = readFileSync(file, 'utf8');
    writeFileSync(file, `${original}\n// hand edit\n`);
    try {
      const failure = failureOf();
      expect(failure.status).toBe(1);
      expect(failure.stderr).toContain('generated code is stale (sheetgate/v1/account_service.ts)');
    } finally {
      writeFileSync(file, original);
    }
  });

  it('fails when a .proto breaks the lint rules, naming the problem', () => {
    const file = path.join(copy, 'sheetgate/v1/token_broker.proto');
    const original = readFileSync(file, 'utf8');
    writeFileSync(file, original.replace('message GoogleAccessToken {', 'message google_access_token {'));
    try {
      const failure = failureOf();
      expect(failure.status).toBe(1);
      expect(failure.stderr).toContain('buf lint failed');
    } finally {
      writeFileSync(file, original);
    }
  });
});
