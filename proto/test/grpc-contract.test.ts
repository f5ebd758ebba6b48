import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AccountServiceService,
  createAccountServiceClient,
  createTokenBrokerClient,
  GrpcStatus,
  type ResolveApiKeyRequest,
  type RunningGrpcServer,
  startGrpcServer,
  TokenBrokerServiceService,
} from '../src/index.ts';

const TOKEN = 'a-service-token-for-tests-only-0123456789';
let server: RunningGrpcServer;
const received: ResolveApiKeyRequest[] = [];

beforeAll(async () => {
  server = await startGrpcServer({
    host: '127.0.0.1',
    port: 0,
    serviceToken: TOKEN,
    services: [
      {
        definition: TokenBrokerServiceService,
        handlers: {
          resolveApiKey: (
            call: { request: ResolveApiKeyRequest },
            callback: (error: null, response: unknown) => void,
          ) => {
            received.push(call.request);
            callback(null, { resolved: { userId: 'user-1', scopes: ['sheets:read'], keyId: 'key-1' } });
          },
          getGoogleAccessToken: (_call: unknown, callback: (error: null, response: unknown) => void) => {
            // Slower than the client's deadline in the deadline test.
            setTimeout(() => callback(null, { token: { accessToken: 'x', expiresAt: 1, scopes: [] } }), 500);
          },
        },
      },
      // AccountService is bound with no handlers: every method must answer UNIMPLEMENTED.
      { definition: AccountServiceService, handlers: {} },
    ],
  });
});
afterAll(async () => {
  await server?.close();
});

const address = () => `127.0.0.1:${server.port}`;

describe('internal gRPC contracts', () => {
  it('carries a call with the service credential to the handler and back', async () => {
    const broker = createTokenBrokerClient({ address: address(), serviceToken: TOKEN });
    const response = await broker.resolveApiKey({ apiKey: 'sg_live_example' });
    expect(response).toEqual({
      resolved: { userId: 'user-1', scopes: ['sheets:read'], keyId: 'key-1' },
      refused: undefined,
    });
    expect(received.at(-1)).toEqual({ apiKey: 'sg_live_example' });
    broker.close();
  });

  it.each([
    ['a wrong credential', 'not-the-token'],
    ['an empty credential', ''],
  ])('refuses %s with UNAUTHENTICATED without calling the handler', async (_name, token) => {
    const before = received.length;
    const broker = createTokenBrokerClient({ address: address(), serviceToken: token });
    await expect(broker.resolveApiKey({ apiKey: 'sg_live_example' })).rejects.toMatchObject({
      code: GrpcStatus.UNAUTHENTICATED,
    });
    expect(received.length).toBe(before);
    broker.close();
  });

  it('enforces the client deadline', async () => {
    const broker = createTokenBrokerClient({ address: address(), serviceToken: TOKEN, deadlineMs: 100 });
    await expect(
      broker.getGoogleAccessToken({ userId: 'user-1', forceRefresh: false }),
    ).rejects.toMatchObject({
      code: GrpcStatus.DEADLINE_EXCEEDED,
    });
    broker.close();
  });

  it('answers UNIMPLEMENTED for a method nobody implemented, never a fake success', async () => {
    const accounts = createAccountServiceClient({ address: address(), serviceToken: TOKEN });
    await expect(accounts.getSession({ sessionCookie: 'x' })).rejects.toMatchObject({
      code: GrpcStatus.UNIMPLEMENTED,
    });
    accounts.close();
  });
});

describe('generated code check', () => {
  const protoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
  let copy: string;
  beforeAll(() => {
    copy = mkdtempSync(path.join(tmpdir(), 'sheetgate-proto-check-'));
    for (const entry of ['buf.yaml', 'buf.gen.yaml', 'sheetgate', 'gen', 'scripts']) {
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

  it('passes on the committed code', () => {
    expect(check()).toContain('generated code is current');
  });

  it('fails with a clear message when a .proto changed without regenerating', () => {
    const file = path.join(copy, 'sheetgate/v1/token_broker.proto');
    writeFileSync(
      file,
      readFileSync(file, 'utf8').replace(
        'bool force_refresh = 2;',
        'bool force_refresh = 2;\n  string reason = 3;',
      ),
    );
    let failure: { status?: number; stderr?: string } = {};
    try {
      check();
    } catch (error) {
      failure = error as typeof failure;
    }
    expect(failure.status).toBe(1);
    expect(failure.stderr).toContain('generated code is stale (sheetgate/v1/token_broker.ts)');
  });
});
