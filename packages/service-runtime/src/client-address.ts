import type { IncomingMessage } from 'node:http';
import ipaddr from 'ipaddr.js';
import proxyaddr from 'proxy-addr';

/**
 * The proxies trusted to say who the client is (`TRUSTED_PROXIES` by default): the loopback (the
 * local gateway) and the private ranges a Kubernetes Ingress controller connects from
 * (10/8, 172.16/12, 192.168/16, fc00::/7; proxy-addr's `uniquelocal`).
 */
export const DEFAULT_TRUSTED_PROXIES = 'loopback,uniquelocal';

/**
 * A list of trusted proxies as proxy-addr takes it: addresses, CIDR ranges and the names
 * `loopback`, `linklocal`, `uniquelocal`, separated by commas. Throws a TypeError naming the
 * first entry proxy-addr cannot read.
 */
export function parseTrustedProxies(value: string): string[] {
  const entries = value
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  proxyaddr.compile(entries);
  return entries;
}

/** The client's address for a request, given who may speak for it. */
export type ClientAddressOf = (request: IncomingMessage) => string;

// Peers are few (the gateway, the Ingress controller's pods); remembering whether each is trusted
// keeps the check off the request path. Cleared when full, so a flood of peers cannot grow it.
const MAX_REMEMBERED_PEERS = 1_024;

/**
 * The client's address as the trusted proxies report it: the socket's peer when it is not a
 * trusted proxy (whatever X-Forwarded-For it sent), else the nearest X-Forwarded-For hop, walking
 * from the right, that is not a trusted proxy itself. One rule for every service behind the
 * gateway or Ingress. Empty when the socket is already closed.
 */
export function clientAddressResolver(trustedProxies: readonly string[]): ClientAddressOf {
  const trust = proxyaddr.compile([...trustedProxies]);
  const trustedPeers = new Map<string, boolean>();
  const isTrustedPeer = (peer: string) => {
    let trusted = trustedPeers.get(peer);
    if (trusted === undefined) {
      trusted = trust(peer, 0);
      if (trustedPeers.size >= MAX_REMEMBERED_PEERS) trustedPeers.clear();
      trustedPeers.set(peer, trusted);
    }
    return trusted;
  };
  return (request) => {
    const peer = request.socket.remoteAddress;
    if (peer === undefined) return '';
    const forwardedFor = request.headers['x-forwarded-for'];
    if (forwardedFor === undefined || !isTrustedPeer(peer)) return peer;
    // A single hop (what the gateway and an Ingress controller send for a client that sent none)
    // is the client whatever it is, as proxy-addr would find; a chain is proxy-addr's to walk.
    if (typeof forwardedFor === 'string' && !forwardedFor.includes(',')) return forwardedFor.trim() || peer;
    return proxyaddr(request, trust);
  };
}

/**
 * What per-address limits count a client address under: an IPv4 address (also when written as
 * IPv4-mapped IPv6) as itself, an IPv6 address by its /64, the smallest block a single subscriber
 * is routinely given (RFC 6177), so rotating through one's own addresses buys nothing. Anything
 * that is not an address is its own key.
 */
export function addressLimitKey(address: string): string {
  if (!ipaddr.isValid(address)) return address;
  const parsed = ipaddr.process(address);
  if (parsed.kind() === 'ipv4') return parsed.toString();
  const parts = (parsed as ipaddr.IPv6).parts.slice(0, 4);
  return `${parts.map((part) => part.toString(16)).join(':')}::/64`;
}
