import { createTokenBrokerClient, GrpcStatus } from '@sheetgate/proto';
import { createBrowser } from '@sheetgate/test-harness';
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabasePool, type DatabasePool } from '../src/db/pool.ts';
import { type AuthWithGoogle, startAuthWithGoogle } from './support/auth-with-google.ts';
import { signInWithGoogle } from './support/google-testbed.ts';

// GetGoogleAccessToken over gRPC against the auth process, when a Google refresh takes longer than
// the caller is willing to wait: auth answers a retryable UNAVAILABLE before the caller's deadline
// (never a DEADLINE_EXCEEDED the caller cannot tell from a dead server), and the refresh goes on.

// Short-lived Google tokens, so a forced refresh is honoured soon after sign-in (the broker ignores
// one for a token younger than a quarter of its lifetime).
const GOOGLE_TOKEN_TTL_SECONDS = 8;
const CALLER_DEADLINE_MS = 1_500;

let subject: AuthWithGoogle;
let pool: DatabasePool;
let broker: ReturnType<typeof createTokenBrokerClient>;
let userId: string;

beforeAll(async () => {
  subject = await startAuthWithGoogle({}, { proxy: true, accessTokenTtlSeconds: GOOGLE_TOKEN_TTL_SECONDS });
  pool = createDatabasePool(subject.database.url, 2);
  broker = createTokenBrokerClient({
    address: `127.0.0.1:${subject.env.AUTH_GRPC_PORT}`,
    serviceToken: subject.env.INTERNAL_SERVICE_TOKEN!,
  });
  const signedIn = await signInWithGoogle(subject, createBrowser(), { account: 'alice@example.com' });
  expect(signedIn.callback!.status).toBe(303);
  userId = (await pool.query<{ id: string }>("SELECT id FROM users WHERE email = 'alice@example.com'"))
    .rows[0]!.id;
});
afterAll(async () => {
  broker?.close();
  await pool?.end();
  await subject?.stop();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** Past the age under which the broker ignores a forced refresh of the cached token. */
const untilRefreshable = () => sleep((GOOGLE_TOKEN_TTL_SECONDS / 4) * 1000 + 200);

async function currentToken(): Promise<string> {
  const { token } = await broker.getGoogleAccessToken({ userId, forceRefresh: false });
  expect(token).toBeDefined();
  return token!.accessToken;
}

describe('GetGoogleAccessToken within the caller’s deadline', () => {
  it('uses a deadline that covers a Google refresh by default', async () => {
    // The token from sign-in, with the client's default deadline for this method.
    expect(await currentToken()).toEqual(expect.any(String));
  });

  it('answers UNAVAILABLE in time while Google is slow, and the refresh still lands', async () => {
    const before = await currentToken();
    await untilRefreshable();
    // Slower than the caller waits, quicker than auth's own timeout for Google (5 s).
    subject.proxy!.tokenDelayMs = 2 * CALLER_DEADLINE_MS;
    const refreshesBefore = subject.proxy!.tokenRequests;
    try {
      await expect(
        broker.getGoogleAccessToken({ userId, forceRefresh: true }, { deadlineMs: CALLER_DEADLINE_MS }),
      ).rejects.toMatchObject({ code: GrpcStatus.UNAVAILABLE });
      // The refresh auth started carries on; its token replaces the old one for the next call.
      let after = before;
      for (let attempt = 0; attempt < 100 && after === before; attempt++) {
        await sleep(100);
        after = await currentToken();
      }
      expect(after).not.toBe(before);
      expect(subject.proxy!.tokenRequests).toBe(refreshesBefore + 1);
    } finally {
      subject.proxy!.tokenDelayMs = 0;
    }
  });

  it('answers UNAVAILABLE in time while another replica holds the user’s refresh (Redis)', async (context) => {
    // Replicas share the lock in Redis; the in-process cache has no other replica to wait for.
    if (!subject.redis.url) return context.skip();
    await untilRefreshable();
    const redis = createClient({ url: subject.redis.url });
    await redis.connect();
    // The lock another auth replica takes while it refreshes this user's token (token-broker.ts).
    const lock = `sheetgate:auth:google-refresh-lock:${userId}`;
    try {
      await redis.set(lock, 'other-replica', { expiration: { type: 'PX', value: 30_000 } });
      const refreshes = subject.proxy!.tokenRequests;
      await expect(
        broker.getGoogleAccessToken({ userId, forceRefresh: true }, { deadlineMs: CALLER_DEADLINE_MS }),
      ).rejects.toMatchObject({ code: GrpcStatus.UNAVAILABLE });
      expect(subject.proxy!.tokenRequests).toBe(refreshes);
    } finally {
      await redis.del(lock);
      await redis.close();
    }
  });
});
