import { randomBytes } from 'node:crypto';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AuthUnderTest, startAuthUnderTest } from './support/auth-process.ts';

// A Client ID Metadata Document URL is chosen by whoever starts an authorization, so fetching it
// must never reach this machine or its private networks (SSRF): every address a name resolves to
// is checked before any connection is made, and the connection goes to the checked address only.
// A listener on 127.0.0.1 counts connections: for a hostile client_id it must see none at all —
// no TCP handshake, no TLS ClientHello — and the answer must come at once.

let subject: AuthUnderTest;
let listener: Server;
let port: number;
const sockets: Socket[] = [];

beforeAll(async () => {
  listener = createServer((socket) => {
    sockets.push(socket);
    // Holds the connection open without answering, as a service that never speaks TLS would.
    socket.on('error', () => {});
  });
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  port = (listener.address() as { port: number }).port;
  subject = await startAuthUnderTest();
});
afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await new Promise((resolve) => listener?.close(resolve));
  await subject?.stop();
});

/** Opens a connection to the listener and returns it as the listener saw it, once it has. */
async function connectionFromHere(): Promise<Socket> {
  const own = connect(port, '127.0.0.1');
  own.on('error', () => {});
  try {
    await new Promise<void>((resolve) => own.once('connect', resolve));
    const isOwn = (socket: Socket) => socket.remotePort === own.localPort;
    while (!sockets.some(isOwn)) await new Promise((resolve) => listener.once('connection', resolve));
    return sockets.find(isOwn)!;
  } finally {
    own.destroy();
  }
}

async function authorizeWith(clientId: string) {
  const params = new URLSearchParams({
    client_id: clientId,
    response_type: 'code',
    redirect_uri: 'http://127.0.0.1:50000/callback',
    code_challenge: randomBytes(32).toString('base64url'),
    code_challenge_method: 'S256',
    scope: 'sheets:read',
  });
  const started = performance.now();
  const response = await fetch(`${subject.baseUrl}/api/auth/oauth2/authorize?${params}`, {
    redirect: 'manual',
  });
  return {
    status: response.status,
    location: response.headers.get('location'),
    body: (await response.json()) as { error: string; error_description?: string },
    elapsedMs: performance.now() - started,
  };
}

describe('Client ID Metadata Document fetches (SSRF)', () => {
  it.each([
    ['a loopback address', '127.0.0.1'],
    ['a decimal IPv4 address', '2130706433'],
    ['a hex and short IPv4 address', '0x7f.1'],
    ['a short IPv4 address', '127.1'],
    ['an IPv4-mapped IPv6 address', '[::ffff:127.0.0.1]'],
    ['the IPv6 loopback address', '[::1]'],
    ['the unspecified address', '0.0.0.0'],
    ['a name resolving to loopback', 'localhost'],
    ['a name resolving to loopback, fully qualified', 'localhost.'],
  ])('makes no connection for %s (https://%s:…) and refuses at once', async (_name, host) => {
    const before = sockets.length;
    const answer = await authorizeWith(
      `https://${host}:${port}/oauth/${randomBytes(4).toString('hex')}.json`,
    );
    expect(answer.status).toBe(400);
    expect(answer.location).toBeNull();
    expect(answer.body.error).toBe('invalid_client');
    expect(answer.elapsedMs).toBeLessThan(1000);
    // A connection auth began before it answered is in the listener's queue before one the test
    // opens now: once the listener has the test's own, any of auth's would have shown.
    const arrived = await connectionFromHere();
    expect(sockets.slice(before, sockets.indexOf(arrived))).toEqual([]);
  });

  it.each([
    ['a private address', '10.0.0.1'],
    ['a private address', '192.168.1.1'],
    ['a private address', '172.16.0.1'],
    ['a shared (carrier-grade NAT) address', '100.64.0.1'],
    ['a link-local address (cloud metadata)', '169.254.169.254'],
    ['an IPv6 unique local address', '[fd00::1]'],
    ['an IPv6 link-local address', '[fe80::1]'],
    ['a NAT64 address of a private one', '[64:ff9b::a00:1]'],
  ])('does not even try to connect to %s (%s)', async (_name, host) => {
    // Nothing listens there: a connection attempt would hang until the fetch deadline.
    const answer = await authorizeWith(`https://${host}/oauth/${randomBytes(4).toString('hex')}.json`);
    expect(answer.status).toBe(400);
    expect(answer.body.error).toBe('invalid_client');
    // Refused before the fetch began, not for want of an answer.
    expect(answer.body.error_description).toBe('client_id metadata document fetch not allowed');
    expect(answer.elapsedMs).toBeLessThan(1000);
  });
});
