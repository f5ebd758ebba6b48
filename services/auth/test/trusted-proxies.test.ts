import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AuthUnderTest, startAuthUnderTest } from './support/auth-process.ts';

// The auth process trusts 127.0.0.1 (standing in for the gateway) and 10/8 (an Ingress controller's
// pods); the tests connect from 127.0.0.2 (on Linux all of 127/8 reaches the loopback) to be an
// untrusted peer, and from 127.0.0.1 to be the trusted proxy.
const TRUSTED_PROXY = '127.0.0.1';
const UNTRUSTED_PEER = '127.0.0.2';
const LIMIT = 3;

let subject: AuthUnderTest;
let port: number;

beforeAll(async () => {
  subject = await startAuthUnderTest({
    TRUSTED_PROXIES: `${TRUSTED_PROXY},10.0.0.0/8`,
    RATE_LIMIT_OVERRIDES: JSON.stringify({ authIp: { points: LIMIT, durationSeconds: 600 } }),
  });
  port = Number(new URL(subject.baseUrl).port);
});

afterAll(() => subject?.stop());

/** GET /api/auth/jwks (rate-limited per client address) from `from`, with a forwarded-for header. */
function jwksStatus(from: string, forwardedFor?: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const request = http.get(
      {
        host: '127.0.0.1',
        port,
        path: '/api/auth/jwks',
        localAddress: from,
        agent: false,
        headers: forwardedFor ? { 'x-forwarded-for': forwardedFor } : {},
      },
      (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode!));
      },
    );
    request.on('error', reject);
  });
}

/** Sends `LIMIT` requests that must pass and one more that must not, each with its own header. */
async function expectLimitedTogether(from: string, forwardedFor: (attempt: number) => string) {
  for (let attempt = 0; attempt < LIMIT; attempt++)
    expect(await jwksStatus(from, forwardedFor(attempt))).toBe(200);
  expect(await jwksStatus(from, forwardedFor(LIMIT))).toBe(429);
}

describe('the client address behind TRUSTED_PROXIES', () => {
  it('ignores X-Forwarded-For from a peer that is not a trusted proxy', async () => {
    // Each request forges another address; all count against the peer that sent them.
    await expectLimitedTogether(UNTRUSTED_PEER, (attempt) => `1.2.3.${attempt}`);
    expect(await jwksStatus(UNTRUSTED_PEER)).toBe(429);
  });

  it('takes the last hop that is not a trusted proxy when a trusted proxy forwards', async () => {
    // What a client writes to the left of the hops the proxies appended is not believed ...
    await expectLimitedTogether(TRUSTED_PROXY, (attempt) => `9.9.9.${attempt}, 203.0.113.7, 10.42.0.9`);
    // ... and clients behind the same Ingress controller are counted apart.
    expect(await jwksStatus(TRUSTED_PROXY, '203.0.113.8, 10.42.0.9')).toBe(200);
    expect(await jwksStatus(TRUSTED_PROXY, '203.0.113.8')).toBe(200);
  });

  it('counts IPv6 clients by their /64', async () => {
    await expectLimitedTogether(TRUSTED_PROXY, (attempt) => `2001:db8:1:2::${attempt + 1}`);
    expect(await jwksStatus(TRUSTED_PROXY, '2001:db8:1:2:ffff:ffff:ffff:ffff')).toBe(429);
    expect(await jwksStatus(TRUSTED_PROXY, '2001:db8:1:3::1')).toBe(200);
  });
});
