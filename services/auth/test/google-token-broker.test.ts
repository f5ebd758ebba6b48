import { createBrowser } from '@sheetgate/test-harness';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GoogleUnavailableError } from '../src/google/index.ts';
import { type GoogleTestbed, signInWithGoogle, startGoogleTestbed } from './support/google-testbed.ts';

// Short-lived Google access tokens, so expiry and refresh happen within a test.
const TTL_SECONDS = 3;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const waitForExpiry = () => sleep(TTL_SECONDS * 1000 + 300);

let testbed: GoogleTestbed;
beforeAll(async () => {
  testbed = await startGoogleTestbed({ accessTokenTtlSeconds: TTL_SECONDS });
});
afterAll(async () => {
  await testbed?.close();
});

async function signIn(account: string): Promise<string> {
  await signInWithGoogle(testbed, createBrowser(), { account });
  const { rows } = await testbed.pool.query<{ id: string }>('SELECT id FROM users WHERE email = $1', [
    account,
  ]);
  return rows[0]!.id;
}

/** What Google's Drive API says about an access token. */
const driveAccepts = async (accessToken: string) =>
  (
    await fetch(`${testbed.emulatorUrl}/drive/v3/files`, {
      headers: { authorization: `Bearer ${accessToken}` },
    })
  ).status;

describe('Google token broker (GetGoogleAccessToken)', () => {
  let aliceId: string;
  beforeAll(async () => {
    aliceId = await signIn('alice@example.com');
  });

  it('answers a token that Google’s APIs accept, and serves it from the cache on the next call', async () => {
    const proxy = await testbed.proxy();
    const broker = await testbed.newBroker({}, proxy);
    const first = await broker.getAccessToken(aliceId);
    if (!first.ok) throw new Error(`expected a token, got ${first.reason}`);
    expect(first.expiresAt).toBeGreaterThan(Date.now() / 1000);
    expect(first.expiresAt).toBeLessThanOrEqual(Date.now() / 1000 + TTL_SECONDS + 1);
    expect(first.scopes).toContain('https://www.googleapis.com/auth/spreadsheets');
    expect(await driveAccepts(first.accessToken)).toBe(200);

    const requestsSoFar = proxy.tokenRequests;
    const second = await broker.getAccessToken(aliceId);
    expect(second).toEqual(first);
    expect(proxy.tokenRequests).toBe(requestsSoFar);
  });

  it('keeps cached tokens sealed: the cache never holds the token in the clear', async () => {
    const broker = await testbed.newBroker();
    const answer = await broker.getAccessToken(aliceId);
    if (!answer.ok) throw new Error(answer.reason);
    const raw = await testbed.cache.get(`google-access-token:${aliceId}`);
    expect(raw).toMatch(/^v1\./);
    expect(raw).not.toContain(answer.accessToken);
  });

  it('refreshes an expired token', async () => {
    const proxy = await testbed.proxy();
    const broker = await testbed.newBroker({}, proxy);
    const before = await broker.getAccessToken(aliceId);
    if (!before.ok) throw new Error(before.reason);
    await waitForExpiry();
    expect(await driveAccepts(before.accessToken)).toBe(401);
    const after = await broker.getAccessToken(aliceId);
    if (!after.ok) throw new Error(after.reason);
    expect(after.accessToken).not.toBe(before.accessToken);
    expect(await driveAccepts(after.accessToken)).toBe(200);
    expect(proxy.tokenRequests).toBe(1);
  });

  it('runs one refresh when ten callers on ten replicas race for an expired token', async () => {
    const proxy = await testbed.proxy();
    const replicas = await Promise.all(Array.from({ length: 10 }, () => testbed.newBroker({}, proxy)));
    await waitForExpiry();
    const answers = await Promise.all(replicas.map((broker) => broker.getAccessToken(aliceId)));
    const tokens = answers.map((answer) => (answer.ok ? answer.accessToken : answer.reason));
    expect(new Set(tokens).size).toBe(1);
    expect(answers[0]!.ok).toBe(true);
    expect(proxy.tokenRequests).toBe(1);
  });

  it('runs one refresh for many concurrent calls in one replica', async () => {
    const proxy = await testbed.proxy();
    const broker = await testbed.newBroker({}, proxy);
    await waitForExpiry();
    const answers = await Promise.all(Array.from({ length: 10 }, () => broker.getAccessToken(aliceId)));
    expect(new Set(answers.map((answer) => (answer.ok ? answer.accessToken : answer.reason))).size).toBe(1);
    expect(proxy.tokenRequests).toBe(1);
  });

  it('replaces a token Google refused (forceRefresh) once for many callers, but not one just obtained', async () => {
    const proxy = await testbed.proxy();
    const replicas = await Promise.all(Array.from({ length: 5 }, () => testbed.newBroker({}, proxy)));
    const before = await replicas[0]!.getAccessToken(aliceId);
    if (!before.ok) throw new Error(before.reason);
    await sleep(1_000);
    const requestsBefore = proxy.tokenRequests;
    const forced = await Promise.all(
      replicas.flatMap((broker) => [
        broker.getAccessToken(aliceId, { forceRefresh: true }),
        broker.getAccessToken(aliceId, { forceRefresh: true }),
      ]),
    );
    const tokens = new Set(forced.map((answer) => (answer.ok ? answer.accessToken : answer.reason)));
    expect(tokens.size).toBe(1);
    expect(tokens.has(before.accessToken)).toBe(false);
    expect(proxy.tokenRequests - requestsBefore).toBe(1);
    // A caller whose 401 raced the refresh gets the fresh token, without another refresh.
    const late = await replicas[3]!.getAccessToken(aliceId, { forceRefresh: true });
    expect(late).toEqual(forced[0]);
    expect(proxy.tokenRequests - requestsBefore).toBe(1);
  });

  it('treats Google 5xx as retryable, not as a reason to reconnect', async () => {
    const proxy = await testbed.proxy();
    const broker = await testbed.newBroker({}, proxy);
    await waitForExpiry();
    proxy.failTokenWith = 503;
    await expect(broker.getAccessToken(aliceId)).rejects.toBeInstanceOf(GoogleUnavailableError);
    expect(await testbed.connections.find(aliceId)).toMatchObject({ status: 'connected' });
    proxy.failTokenWith = undefined;
    await sleep(2_100); // the short failure marker other waiters honour
    const recovered = await broker.getAccessToken(aliceId);
    expect(recovered.ok).toBe(true);
  });

  it('answers NOT_CONNECTED for a user without a Google connection', async () => {
    const stranger = await testbed.users.upsertFromGoogle({ sub: '999000', email: 'nobody@example.com' });
    const broker = await testbed.newBroker();
    expect(await broker.getAccessToken(stranger.id)).toEqual({ ok: false, reason: 'NOT_CONNECTED' });
    expect(await broker.getAccessToken('not-a-user-id')).toEqual({ ok: false, reason: 'NOT_CONNECTED' });
  });
});

describe('when Google refuses the refresh token (invalid_grant)', () => {
  let bobId: string;
  beforeAll(async () => {
    bobId = await signIn('bob@example.com');
  });

  it('answers GOOGLE_AUTH_REQUIRED and marks the connection reauth_required, once for racing callers', async () => {
    const proxy = await testbed.proxy();
    const replicas = await Promise.all(Array.from({ length: 5 }, () => testbed.newBroker({}, proxy)));
    const live = await replicas[0]!.getAccessToken(bobId);
    expect(live.ok).toBe(true);
    const changesBefore = testbed.connectionChanges.length;
    await testbed.revokeAtGoogle('bob@example.com');
    await waitForExpiry();

    const answers = await Promise.all(replicas.map((broker) => broker.getAccessToken(bobId)));
    expect(answers).toEqual(Array(5).fill({ ok: false, reason: 'GOOGLE_AUTH_REQUIRED' }));
    expect(proxy.tokenRequests).toBe(1);
    expect(await testbed.connections.find(bobId)).toMatchObject({ status: 'reauth_required' });
    expect(await testbed.audit.recent({ userId: bobId, kind: 'google.reauth_required' })).toHaveLength(1);
    // The MCP replicas are told once, before the refusal is answered, to forget bob's token.
    expect(testbed.connectionChanges.slice(changesBefore)).toEqual([bobId]);

    // Later calls answer from the database without asking Google again.
    expect(await replicas[1]!.getAccessToken(bobId)).toEqual({ ok: false, reason: 'GOOGLE_AUTH_REQUIRED' });
    expect(proxy.tokenRequests).toBe(1);
    expect(testbed.connectionChanges.slice(changesBefore)).toEqual([bobId]);
  });

  it('forgets the cached access token too: a caller that does not force a refresh is refused, not answered it', async () => {
    const carolId = await signIn('carol@example.com');
    const broker = await testbed.newBroker();
    const live = await broker.getAccessToken(carolId);
    if (!live.ok) throw new Error(live.reason);
    await sleep(1_000); // older than a forced refresh ignores (a quarter of the 3 s lifetime)
    await testbed.revokeAtGoogle('carol@example.com');
    expect(await broker.getAccessToken(carolId, { forceRefresh: true })).toEqual({
      ok: false,
      reason: 'GOOGLE_AUTH_REQUIRED',
    });
    // What an MCP replica told to forget carol's token asks next: not the token Google refused.
    expect(await broker.getAccessToken(carolId)).toEqual({ ok: false, reason: 'GOOGLE_AUTH_REQUIRED' });
    expect(await testbed.cache.get(`google-access-token:${carolId}`)).toBeUndefined();
  });

  it('is undone by signing in again (reconnect), which the MCP replicas are told of', async () => {
    const changesBefore = testbed.connectionChanges.length;
    const again = await signIn('bob@example.com');
    expect(again).toBe(bobId);
    expect(testbed.connectionChanges.slice(changesBefore)).toEqual([bobId]);
    expect(await testbed.connections.find(bobId)).toMatchObject({ status: 'connected' });
    await waitForExpiry();
    const broker = await testbed.newBroker();
    const answer = await broker.getAccessToken(bobId);
    if (!answer.ok) throw new Error(answer.reason);
    expect(await driveAccepts(answer.accessToken)).toBe(200);
  });
});

describe('disconnect', () => {
  it('revokes the grant at Google and deletes the stored tokens', async () => {
    const userId = await signIn('alice@example.com');
    const sealed = await testbed.connections.findSealed(userId);
    const refreshToken = testbed.connections.unsealRefreshToken(sealed!)!;
    const broker = await testbed.newBroker();
    const changesBefore = testbed.connectionChanges.length;
    expect(await broker.disconnect(userId)).toBe(true);
    expect(testbed.connectionChanges.slice(changesBefore)).toEqual([userId]);
    expect(await testbed.connections.find(userId)).toBeUndefined();
    expect(await testbed.cache.get(`google-access-token:${userId}`)).toBeUndefined();
    expect(await broker.getAccessToken(userId)).toEqual({ ok: false, reason: 'NOT_CONNECTED' });
    // Google no longer honours the refresh token.
    const refused = await fetch(`${testbed.emulatorUrl}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'refresh_token',
        refresh_token: refreshToken,
        client_id: testbed.settings.GOOGLE_CLIENT_ID,
        client_secret: testbed.settings.GOOGLE_CLIENT_SECRET,
      }),
    });
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({ error: 'invalid_grant' });
    expect(await broker.disconnect(userId)).toBe(false);
  });
});
