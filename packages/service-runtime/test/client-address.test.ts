import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  addressLimitKey,
  clientAddressResolver,
  DEFAULT_TRUSTED_PROXIES,
  parseTrustedProxies,
} from '../src/client-address.ts';
import { closeHttpServer, listen } from '../src/http-server.ts';
import { parseSettings, SettingsError, setting } from '../src/settings.ts';

const servers: http.Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => closeHttpServer(server)));
});

/** A real server answering with the client address it derives; the test connects from 127.0.0.1. */
async function addressServer(trustedProxies: string) {
  const clientAddress = clientAddressResolver(parseTrustedProxies(trustedProxies));
  const server = http.createServer((request, response) => response.end(clientAddress(request)));
  servers.push(server);
  await listen(server, 0, '127.0.0.1', 'TEST_PORT');
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return async (forwardedFor?: string) =>
    (await fetch(url, { headers: forwardedFor ? { 'x-forwarded-for': forwardedFor } : {} })).text();
}

describe('the client address behind trusted proxies', () => {
  it('is the socket peer when the peer is not a trusted proxy, whatever X-Forwarded-For says', async () => {
    const addressOf = await addressServer('10.0.0.0/8');
    expect(await addressOf('1.2.3.4')).toBe('127.0.0.1');
    expect(await addressOf('5.6.7.8, 1.2.3.4')).toBe('127.0.0.1');
    expect(await addressOf()).toBe('127.0.0.1');
  });

  it('is the last hop that is not a trusted proxy when a trusted proxy forwards', async () => {
    const addressOf = await addressServer(DEFAULT_TRUSTED_PROXIES);
    // The gateway (loopback) appended the client; what the client wrote before it is not believed.
    expect(await addressOf('1.2.3.4, 203.0.113.7')).toBe('203.0.113.7');
    // An Ingress controller in a private range forwarded to the gateway: it is skipped too.
    expect(await addressOf('1.2.3.4, 203.0.113.7, 10.42.0.9')).toBe('203.0.113.7');
    expect(await addressOf('2001:db8::5, fd00::1')).toBe('2001:db8::5');
    // One hop is the client, even a private one (a client inside the cluster).
    expect(await addressOf('203.0.113.9')).toBe('203.0.113.9');
    expect(await addressOf('10.1.2.3')).toBe('10.1.2.3');
    // Every hop trusted: the furthest is all there is to go by.
    expect(await addressOf('10.1.2.3, 10.42.0.9')).toBe('10.1.2.3');
    expect(await addressOf()).toBe('127.0.0.1');
  });
});

describe('addressLimitKey', () => {
  it('counts an IPv6 address by its /64 and every other address by itself', () => {
    expect(addressLimitKey('2001:db8:1:2:aaaa::1')).toBe(addressLimitKey('2001:db8:1:2:ffff:1:2:3'));
    expect(addressLimitKey('2001:db8:1:2::1')).toBe('2001:db8:1:2::/64');
    expect(addressLimitKey('2001:db8:1:3::1')).not.toBe(addressLimitKey('2001:db8:1:2::1'));
    expect(addressLimitKey('203.0.113.7')).toBe('203.0.113.7');
    expect(addressLimitKey('203.0.113.8')).not.toBe(addressLimitKey('203.0.113.7'));
    expect(addressLimitKey('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(addressLimitKey('not an address')).toBe('not an address');
  });
});

describe('TRUSTED_PROXIES', () => {
  const schema = z.object({ TRUSTED_PROXIES: setting.trustedProxies() });

  it('defaults to the loopback and the private ranges, and reads a list', () => {
    expect(parseSettings('test', schema, {}).TRUSTED_PROXIES).toEqual(['loopback', 'uniquelocal']);
    expect(
      parseSettings('test', schema, { TRUSTED_PROXIES: '10.1.0.0/16, 2001:db8::/48,loopback' })
        .TRUSTED_PROXIES,
    ).toEqual(['10.1.0.0/16', '2001:db8::/48', 'loopback']);
  });

  it('refuses an entry that is not an address, a range or a known name', () => {
    expect(() => parseSettings('test', schema, { TRUSTED_PROXIES: '10.0.0.0/8,ingress' })).toThrow(
      SettingsError,
    );
  });
});
