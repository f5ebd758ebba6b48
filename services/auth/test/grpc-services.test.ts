import {
  createAccountServiceClient,
  createGoogleQuotaClient,
  createTokenBrokerClient,
  GrpcStatus,
  type TokenBrokerClient,
} from '@sheetgate/proto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabasePool, type DatabasePool } from '../src/db/pool.ts';
import { createSessionStore } from '../src/sessions/index.ts';
import { createUserLibrary } from '../src/users/index.ts';
import { type AuthUnderTest, startAuthUnderTest } from './support/auth-process.ts';

/** One key through the broker's `ResolveApiKeys`, as the MCP service sends it. */
async function resolveOne(broker: TokenBrokerClient, apiKey: string) {
  return (await broker.resolveApiKeys({ apiKeys: [apiKey], clientAddresses: [] })).results[0]!;
}

const API_KEY_LIMIT = 3;
let subject: AuthUnderTest;
let pool: DatabasePool;
let accounts: ReturnType<typeof createAccountServiceClient>;
let broker: ReturnType<typeof createTokenBrokerClient>;
let cookie: string;
let userId: string;

beforeAll(async () => {
  subject = await startAuthUnderTest({
    RATE_LIMIT_OVERRIDES: JSON.stringify({
      register: { points: 500, durationSeconds: 3600 },
      apiKey: { points: API_KEY_LIMIT, durationSeconds: 600 },
    }),
    GOOGLE_QUOTAS: JSON.stringify({ sheetsReadsPerMinutePerUser: 2 }),
  });
  pool = createDatabasePool(subject.database.url, 2);
  const address = `127.0.0.1:${subject.env.AUTH_GRPC_PORT}`;
  accounts = createAccountServiceClient({ address, serviceToken: subject.env.INTERNAL_SERVICE_TOKEN! });
  broker = createTokenBrokerClient({ address, serviceToken: subject.env.INTERNAL_SERVICE_TOKEN! });
  userId = (
    await createUserLibrary(pool).upsertFromGoogle({ sub: '2001', email: 'carol@example.com', name: 'Carol' })
  ).id;
  cookie = (await createSessionStore(pool).create(userId)).cookieValue;
});
afterAll(async () => {
  accounts?.close();
  broker?.close();
  await pool?.end();
  await subject?.stop();
});

describe('AccountService over gRPC', () => {
  it('resolves the dashboard session to its user, with a sign-out CSRF token', async () => {
    const session = await accounts.getSession({ sessionCookie: cookie });
    expect(session.user).toEqual({ id: userId, email: 'carol@example.com', name: 'Carol' });
    expect(session.signOutCsrfToken).toMatch(/^[\w-]{20,}$/);
    expect((await accounts.getSession({ sessionCookie: 'not-a-session' })).user).toBeUndefined();
  });

  it('refuses account calls without a live session', async () => {
    await expect(accounts.listApiKeys({ sessionCookie: 'x'.repeat(43) })).rejects.toMatchObject({
      code: GrpcStatus.PERMISSION_DENIED,
    });
  });

  it('creates, lists, resolves and revokes an API key end to end', async () => {
    const created = await accounts.createApiKey({
      sessionCookie: cookie,
      name: 'CI job',
      scopes: ['sheets:read'],
      expiresAt: '',
    });
    expect(created.secret).toMatch(/^sg_live_[A-Za-z0-9_-]{43}$/);
    expect(created.key).toMatchObject({
      name: 'CI job',
      scopes: ['sheets:read'],
      expiresAt: '',
      revokedAt: '',
    });
    expect(created.secret.startsWith(created.key!.displayPrefix)).toBe(true);

    const listed = await accounts.listApiKeys({ sessionCookie: cookie });
    expect(listed.keys.map((key) => key.id)).toEqual([created.key!.id]);
    expect(JSON.stringify(listed)).not.toContain(created.secret);

    const resolved = await resolveOne(broker, created.secret);
    expect(resolved.resolved).toEqual({
      userId,
      scopes: ['sheets:read'],
      keyId: created.key!.id,
      toolsets: [],
    });

    expect((await accounts.revokeApiKey({ sessionCookie: cookie, keyId: created.key!.id })).revoked).toBe(
      true,
    );
    const refused = await resolveOne(broker, created.secret);
    expect(refused.refused?.reason).toBe('API_KEY_REFUSAL_REVOKED');
  });

  it('refuses invalid key requests with INVALID_ARGUMENT', async () => {
    await expect(
      accounts.createApiKey({ sessionCookie: cookie, name: 'x', scopes: ['sheets:write'], expiresAt: '' }),
    ).rejects.toMatchObject({ code: GrpcStatus.INVALID_ARGUMENT });
    await expect(
      accounts.createApiKey({
        sessionCookie: cookie,
        name: 'x',
        scopes: ['sheets:read'],
        expiresAt: '2001-01-01T00:00:00Z',
      }),
    ).rejects.toMatchObject({ code: GrpcStatus.INVALID_ARGUMENT });
    await expect(
      accounts.createApiKey({
        sessionCookie: cookie,
        name: '\u202Eevil',
        scopes: ['sheets:read'],
        expiresAt: '',
      }),
    ).rejects.toMatchObject({ code: GrpcStatus.INVALID_ARGUMENT });
  });

  it('reports no Google connection, no connected apps, and unknown interactions as not found', async () => {
    expect(await accounts.getGoogleConnection({ sessionCookie: cookie })).toMatchObject({
      status: 'GOOGLE_CONNECTION_STATUS_NONE',
      partial: false,
    });
    expect((await accounts.listConnectedApps({ sessionCookie: cookie })).apps).toEqual([]);
    expect((await accounts.getInteraction({ interactionUid: 'nope', sessionCookie: cookie })).found).toBe(
      false,
    );
    expect((await accounts.getInteraction({ interactionUid: '../../etc', sessionCookie: '' })).found).toBe(
      false,
    );
  });

  it.each([
    ['a NUL byte', 'client\u0000id'],
    ['an oversized id', 'c'.repeat(100_000)],
    ['an unknown id', 'no-such-client'],
  ])('answers "not disconnected" for %s rather than failing', async (_, clientId) => {
    expect(await accounts.disconnectApp({ sessionCookie: cookie, clientId })).toEqual({
      disconnected: false,
    });
  });
});

describe('TokenBroker over gRPC', () => {
  it('answers unknown for malformed keys and NOT_CONNECTED for a user without Google', async () => {
    expect((await resolveOne(broker, 'nonsense')).refused?.reason).toBe('API_KEY_REFUSAL_UNKNOWN');
    const google = await broker.getGoogleAccessToken({ userId, forceRefresh: false });
    expect(google.refused).toBe('GOOGLE_TOKEN_REFUSAL_NOT_CONNECTED');
  });

  const newKey = async (expiresAt = '') =>
    accounts.createApiKey({
      sessionCookie: cookie,
      name: 'Refusal test',
      scopes: ['sheets:read'],
      expiresAt,
    });

  it('refuses an expired key with API_KEY_REFUSAL_EXPIRED', async () => {
    const { secret } = await newKey(new Date(Date.now() + 1_500).toISOString());
    expect((await resolveOne(broker, secret)).resolved?.userId).toBe(userId);
    await new Promise((resolve) => setTimeout(resolve, 1_600));
    const { resolved, refused } = await resolveOne(broker, secret);
    expect(resolved).toBeUndefined();
    expect(refused).toEqual({ reason: 'API_KEY_REFUSAL_EXPIRED', retryAfterSeconds: 0 });
  });

  it('refuses a revoked key with API_KEY_REFUSAL_REVOKED, from the very next call', async () => {
    const { secret, key } = await newKey();
    expect((await resolveOne(broker, secret)).resolved?.keyId).toBe(key!.id);
    expect((await accounts.revokeApiKey({ sessionCookie: cookie, keyId: key!.id })).revoked).toBe(true);
    expect((await resolveOne(broker, secret)).refused).toEqual({
      reason: 'API_KEY_REFUSAL_REVOKED',
      retryAfterSeconds: 0,
    });
  });

  it('refuses a key over its rate limit with API_KEY_REFUSAL_RATE_LIMITED and when to retry', async () => {
    const { secret } = await newKey();
    for (let call = 0; call < API_KEY_LIMIT; call++)
      expect((await resolveOne(broker, secret)).resolved?.userId).toBe(userId);
    const { resolved, refused } = await resolveOne(broker, secret);
    expect(resolved).toBeUndefined();
    expect(refused?.reason).toBe('API_KEY_REFUSAL_RATE_LIMITED');
    expect(refused?.retryAfterSeconds).toBeGreaterThan(0);
    expect(refused?.retryAfterSeconds).toBeLessThanOrEqual(600);
    // The limit is per key: another key of the same person still resolves.
    expect((await resolveOne(broker, (await newKey()).secret)).resolved?.userId).toBe(userId);
  });

  it('leases what is left of a key’s rate limit, resolving included; refuses a malformed lease', async () => {
    const { secret, key } = await newKey();
    const resolved = await resolveOne(broker, secret);
    expect(resolved.resolved).toMatchObject({ keyId: key!.id, expiresAt: undefined });
    // One of API_KEY_LIMIT spent by the resolve: asking for more gets what is left.
    const lease = await broker.leaseApiKeyAllowance({ keyId: key!.id, requested: 50 });
    expect(lease.granted).toBe(API_KEY_LIMIT - 1);
    expect(lease.retryAfterSeconds).toBeGreaterThan(0);
    expect(lease.validForMs).toBeGreaterThan(0);
    expect(await broker.leaseApiKeyAllowance({ keyId: key!.id, requested: 50 })).toMatchObject({
      granted: 0,
    });
    expect((await resolveOne(broker, secret)).refused?.reason).toBe('API_KEY_REFUSAL_RATE_LIMITED');
    for (const request of [
      { keyId: 'not-an-id', requested: 5 },
      { keyId: key!.id, requested: 0 },
      { keyId: key!.id, requested: 1_001 },
    ])
      await expect(broker.leaseApiKeyAllowance(request)).rejects.toMatchObject({
        code: GrpcStatus.INVALID_ARGUMENT,
      });
  });

  it('sends a key’s expiry with its resolution, in whole seconds', async () => {
    const expiresAt = new Date(Date.now() + 3_600_000);
    const { secret } = await newKey(expiresAt.toISOString());
    expect((await resolveOne(broker, secret)).resolved?.expiresAt).toBe(
      Math.floor(expiresAt.getTime() / 1000),
    );
  });

  it('refuses callers without the service credential', async () => {
    const stranger = createTokenBrokerClient({
      address: `127.0.0.1:${subject.env.AUTH_GRPC_PORT}`,
      serviceToken: 'wrong',
    });
    await expect(resolveOne(stranger, 'x')).rejects.toMatchObject({
      code: GrpcStatus.UNAUTHENTICATED,
    });
    stranger.close();
  });
});

describe('GoogleQuotaService over gRPC', () => {
  const quotaClient = (serviceToken = subject.env.INTERNAL_SERVICE_TOKEN!) =>
    createGoogleQuotaClient({ address: `127.0.0.1:${subject.env.AUTH_GRPC_PORT}`, serviceToken });

  it("grants a person's turns within GOOGLE_QUOTAS, then says how long to wait and why", async () => {
    const quota = quotaClient();
    const ask = (user: string) =>
      quota.acquireGoogleQuota({ userId: user, bucket: 'GOOGLE_QUOTA_BUCKET_SHEETS_READ', requested: 1 });
    expect(await ask('quota-user-1')).toEqual({
      granted: true,
      retryAfterMs: 0,
      limitedBy: 'GOOGLE_QUOTA_LIMIT_UNSPECIFIED',
      turns: 1,
      validForMs: 0,
    });
    expect((await ask('quota-user-1')).granted).toBe(true);
    const refused = await ask('quota-user-1');
    expect(refused).toMatchObject({ granted: false, limitedBy: 'GOOGLE_QUOTA_LIMIT_PERSON' });
    expect(refused.retryAfterMs).toBeGreaterThan(0);
    expect(refused.retryAfterMs).toBeLessThanOrEqual(61_000);
    // Plenty of room (the project's writes are unused): five turns at once, and what a replica
    // gives back counts against nobody.
    const leased = await quota.acquireGoogleQuota({
      userId: 'quota-user-5',
      bucket: 'GOOGLE_QUOTA_BUCKET_DRIVE',
      requested: 5,
    });
    expect(leased).toMatchObject({ granted: true, turns: 5, validForMs: 1_000 });
    await quota.returnGoogleQuota({ userId: 'quota-user-5', bucket: 'GOOGLE_QUOTA_BUCKET_DRIVE', count: 4 });
    // Near a small quota (2 a minute for a person's reads), one turn at a time.
    expect(
      await quota.acquireGoogleQuota({
        userId: 'quota-user-6',
        bucket: 'GOOGLE_QUOTA_BUCKET_SHEETS_READ',
        requested: 5,
      }),
    ).toMatchObject({ granted: true, turns: 1 });
    // Writes are a bucket of their own.
    expect(
      (
        await quota.acquireGoogleQuota({
          userId: 'quota-user-1',
          bucket: 'GOOGLE_QUOTA_BUCKET_SHEETS_WRITE',
          requested: 1,
        })
      ).granted,
    ).toBe(true);
    quota.close();
  });

  it("holds the bucket Google named for Google's Retry-After", async () => {
    const quota = quotaClient();
    await quota.reportGoogleQuotaExhausted({
      userId: 'quota-user-2',
      bucket: 'GOOGLE_QUOTA_BUCKET_DRIVE',
      perUser: true,
      retryAfterSeconds: 30,
    });
    const held = await quota.acquireGoogleQuota({
      userId: 'quota-user-2',
      bucket: 'GOOGLE_QUOTA_BUCKET_DRIVE',
      requested: 1,
    });
    expect(held).toMatchObject({ granted: false, limitedBy: 'GOOGLE_QUOTA_LIMIT_GOOGLE' });
    expect(held.retryAfterMs).toBeGreaterThan(20_000);
    expect(
      (
        await quota.acquireGoogleQuota({
          userId: 'quota-user-3',
          bucket: 'GOOGLE_QUOTA_BUCKET_DRIVE',
          requested: 1,
        })
      ).granted,
    ).toBe(true);
    quota.close();
  });

  it('refuses malformed requests and callers without the service credential', async () => {
    const quota = quotaClient();
    for (const request of [
      { userId: '', bucket: 'GOOGLE_QUOTA_BUCKET_SHEETS_READ' as const, requested: 1 },
      { userId: 'u'.repeat(65), bucket: 'GOOGLE_QUOTA_BUCKET_SHEETS_READ' as const, requested: 1 },
      { userId: 'quota-user-4', bucket: 'GOOGLE_QUOTA_BUCKET_UNSPECIFIED' as const, requested: 1 },
      { userId: 'quota-user-4', bucket: 'GOOGLE_QUOTA_BUCKET_SHEETS_READ' as const, requested: -1 },
      { userId: 'quota-user-4', bucket: 'GOOGLE_QUOTA_BUCKET_SHEETS_READ' as const, requested: 21 },
    ])
      await expect(quota.acquireGoogleQuota(request)).rejects.toMatchObject({
        code: GrpcStatus.INVALID_ARGUMENT,
      });
    for (const count of [0, 21])
      await expect(
        quota.returnGoogleQuota({ userId: 'quota-user-4', bucket: 'GOOGLE_QUOTA_BUCKET_SHEETS_READ', count }),
      ).rejects.toMatchObject({ code: GrpcStatus.INVALID_ARGUMENT });
    for (const retryAfterSeconds of [-1, 3_601])
      await expect(
        quota.reportGoogleQuotaExhausted({
          userId: 'quota-user-4',
          bucket: 'GOOGLE_QUOTA_BUCKET_SHEETS_READ',
          perUser: false,
          retryAfterSeconds,
        }),
      ).rejects.toMatchObject({ code: GrpcStatus.INVALID_ARGUMENT });
    // Nothing was held by the refused reports: the project's reads are open.
    expect(
      (
        await quota.acquireGoogleQuota({
          userId: 'quota-user-4',
          bucket: 'GOOGLE_QUOTA_BUCKET_SHEETS_READ',
          requested: 1,
        })
      ).granted,
    ).toBe(true);
    quota.close();
    const stranger = quotaClient('wrong');
    await expect(
      stranger.acquireGoogleQuota({
        userId: 'quota-user-4',
        bucket: 'GOOGLE_QUOTA_BUCKET_SHEETS_READ',
        requested: 1,
      }),
    ).rejects.toMatchObject({ code: GrpcStatus.UNAUTHENTICATED });
    stranger.close();
  });
});
