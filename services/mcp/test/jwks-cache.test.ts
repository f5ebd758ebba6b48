import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, jwtVerify, SignJWT } from 'jose';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createJwksCache, type JwksCache, JwksUnavailableError } from '../src/auth/jwks-cache.ts';

// The JWKS cache before its first successful fetch, against a real HTTP server standing in for
// auth's JWKS endpoint: it counts the fetches and answers 503 until the test lets it serve keys.

let server: http.Server;
let url: string;
let fetches = 0;
/** When each fetch reached the server (Date.now()). */
let fetchedAt: number[] = [];
let keySet: { keys: object[] } | undefined;
let cache: JwksCache | undefined;

beforeEach(async () => {
  fetches = 0;
  fetchedAt = [];
  keySet = undefined;
  server = http.createServer((_request, response) => {
    fetches++;
    fetchedAt.push(Date.now());
    if (!keySet) {
      response.writeHead(503).end();
      return;
    }
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(keySet));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/auth/jwks`;
});
afterEach(async () => {
  cache?.close();
  server.close();
  await once(server, 'close');
});

async function signedToken() {
  const { privateKey, publicKey } = await generateKeyPair('ES256');
  const token = await new SignJWT({})
    .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: 'k1' })
    .sign(privateKey);
  const jwk = { ...(await exportJWK(publicKey)), kid: 'k1', alg: 'ES256', use: 'sig' };
  return { token, jwk };
}

const until = async (condition: () => boolean) => {
  for (let i = 0; i < 100 && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 20));
};

describe('the JWKS cache before its first key set', () => {
  it('fetches once at start without being asked', async () => {
    cache = createJwksCache({ url, unknownKidCooldownMs: 60_000 });
    await until(() => fetches > 0);
    expect(fetches).toBe(1);
  });

  it('refuses with JwksUnavailableError and a Retry-After once the fetch it waited for fails; requests start at most one fetch a second', async () => {
    const { token } = await signedToken();
    const started = Date.now();
    cache = createJwksCache({ url, unknownKidCooldownMs: 60_000 });
    const burst = () => Promise.allSettled(Array.from({ length: 20 }, () => jwtVerify(token, cache!.getKey)));
    for (const attempts of [await burst(), await burst()]) {
      for (const attempt of attempts) {
        expect(attempt.status).toBe('rejected');
        const error = (attempt as PromiseRejectedResult).reason;
        expect(error).toBeInstanceOf(JwksUnavailableError);
        expect(error.retryAfterSeconds).toBeGreaterThan(0);
        expect(error.retryAfterSeconds).toBeLessThanOrEqual(60);
      }
    }
    // 40 requests over about two seconds: requests fetch at most once a second, and the timer
    // (1 s after the first failure) at most once more per second. Not one fetch per request.
    const seconds = Math.ceil((Date.now() - started) / 1000);
    expect(fetches).toBeGreaterThanOrEqual(2);
    expect(fetches).toBeLessThanOrEqual(2 * seconds + 1);
  });

  it('a request arriving just after a failed try waits for the next one instead of being refused', async () => {
    const { token, jwk } = await signedToken();
    cache = createJwksCache({ url, unknownKidCooldownMs: 60_000, refreshIntervalMs: 60_000 });
    await until(() => fetches > 0);
    // The try at start has failed; auth now answers, and the timer's next try is a second away.
    await new Promise((resolve) => setTimeout(resolve, 50));
    keySet = { keys: [jwk] };
    await expect(jwtVerify(token, cache.getKey)).resolves.toMatchObject({ protectedHeader: { kid: 'k1' } });
  });

  it('backs off while auth does not answer: a few fetches in seconds, not one per request', async () => {
    const started = Date.now();
    cache = createJwksCache({ url, unknownKidCooldownMs: 2_000 });
    for (let i = 0; i < 150 && fetches < 4; i++) await new Promise((resolve) => setTimeout(resolve, 100));
    // At 0, 1 s, 3 s, 5 s: 1 s, then 2 s apart, where the cooldown caps the back-off. A busy
    // machine delays timers (gaps grow, fewer fetches), never shortens them: so only the least
    // gaps and the most fetches are asserted.
    expect(fetchedAt.length, 'the timer kept trying').toBeGreaterThanOrEqual(4);
    const gaps = fetchedAt.slice(1).map((at, index) => at - fetchedAt[index]!);
    expect(gaps[0]).toBeGreaterThanOrEqual(990);
    expect(gaps[1], 'the second wait doubles').toBeGreaterThanOrEqual(1_990);
    expect(gaps[2], 'and stays at the cooldown').toBeGreaterThanOrEqual(1_990);
    expect(fetchedAt.filter((at) => at - started < 4_000).length).toBeLessThanOrEqual(3);
  });

  it('verifies once auth answers, without a request having to ask', async () => {
    const { token, jwk } = await signedToken();
    cache = createJwksCache({ url, unknownKidCooldownMs: 1_000, refreshIntervalMs: 60_000 });
    await expect(jwtVerify(token, cache.getKey)).rejects.toBeInstanceOf(JwksUnavailableError);
    keySet = { keys: [jwk] };
    let verified: unknown;
    for (let i = 0; i < 50 && !verified; i++) {
      verified = await jwtVerify(token, cache.getKey).catch(() => undefined);
      if (!verified) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(verified).toMatchObject({ protectedHeader: { kid: 'k1' } });
  });
});
