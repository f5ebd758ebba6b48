import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { BlockList, isIP } from 'node:net';

/**
 * Addresses no fetch chosen by a client may reach: this machine, private and shared networks, and
 * every other special-purpose block of the IANA registries (RFC 6890 and its updates). An
 * IPv4-mapped IPv6 address (`::ffff:a.b.c.d`) is checked against the IPv4 rules by BlockList.
 */
const SPECIAL_USE = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], // "this network"; 0.0.0.0 connects to this machine
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // shared address space (carrier-grade NAT)
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local (cloud metadata services)
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // documentation
  ['192.31.196.0', 24], // AS112
  ['192.52.193.0', 24], // AMT
  ['192.88.99.0', 24], // 6to4 relay anycast
  ['192.168.0.0', 16], // private
  ['192.175.48.0', 24], // direct delegation AS112
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation
  ['203.0.113.0', 24], // documentation
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, and the limited broadcast address
] as const)
  SPECIAL_USE.addSubnet(network, prefix, 'ipv4');
for (const [network, prefix] of [
  ['::', 128], // unspecified
  ['::1', 128], // loopback
  ['64:ff9b::', 96], // NAT64: would reach any IPv4 address, private ones included
  ['64:ff9b:1::', 48], // local-use NAT64
  ['100::', 64], // discard-only
  ['2001::', 23], // IETF protocol assignments (Teredo among them)
  ['2001:db8::', 32], // documentation
  ['2002::', 16], // 6to4: embeds any IPv4 address
  ['3fff::', 20], // documentation
  ['5f00::', 16], // segment routing
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated)
  ['ff00::', 8], // multicast
] as const)
  SPECIAL_USE.addSubnet(network, prefix, 'ipv6');

/** Whether `address` (an IP literal, IPv6 with or without brackets) is special-use. */
function isSpecialUseAddress(address: string): boolean {
  const bare = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  const version = isIP(bare);
  if (version === 0) return false;
  return SPECIAL_USE.check(bare, version === 4 ? 'ipv4' : 'ipv6');
}

class SpecialUseAddressError extends Error {
  constructor(hostname: string) {
    super(`${hostname} resolves to a special-use address`);
    this.name = 'SpecialUseAddressError';
  }
}

type LookupCallback = (error: Error | null, address: string | LookupAddress[], family?: number) => void;

/**
 * The resolver of outbound connections: resolves every address of the name, refuses the name if
 * ANY of them is special-use, and hands the connection exactly the addresses it checked, so that a
 * name re-pointed between check and connect (DNS rebinding) cannot slip through.
 */
function vettedLookup(hostname: string, options: LookupOptions, callback: LookupCallback): void {
  dnsLookup(hostname, { all: true, verbatim: true }, (error, addresses) => {
    if (error) return callback(error, []);
    if (addresses.length === 0 || addresses.some(({ address }) => isSpecialUseAddress(address)))
      return callback(new SpecialUseAddressError(hostname), []);
    if (options.all) return callback(null, addresses);
    return callback(null, addresses[0]!.address, addresses[0]!.family);
  });
}

type AgentClass = new (options: { connect: { lookup: typeof vettedLookup; timeout: number } }) => object;

/**
 * Node's fetch is undici, whose Agent is not exported by Node: it is the class of the global
 * dispatcher that touching `Response` installs (oidc-provider finds it the same way).
 */
function undiciAgentClass(): AgentClass {
  // A test a bundler keeps (it drops a bare `void Response` as unused; pnpm start bundles auth).
  if (typeof Response !== 'function') throw new Error('this Node has no fetch');
  const agent = (globalThis as unknown as Record<symbol, { constructor: AgentClass } | undefined>)[
    Symbol.for('undici.globalDispatcher.1')
  ];
  if (!agent) throw new Error("undici's global dispatcher was not found");
  return agent.constructor;
}

const CONNECT_TIMEOUT_MS = 2000;
/** One deadline for the whole fetch: resolution, connection, TLS, answer and body. */
const OUTBOUND_FETCH_DEADLINE_MS = 3000;

/**
 * oidc-provider's `fetch` (Client ID Metadata Documents, and any client `jwks_uri`): URLs a client
 * chooses, so each address is checked before a connection is made — an IP literal here, a name
 * in the connection's resolver (which Node skips for IP literals) — rather than after it, as the
 * provider's own agent does (its check runs once the TCP and TLS handshakes are done). No
 * redirect is followed: the provider accepts only a 200.
 */
export function createOutboundFetch(): (
  input: string | URL | Request,
  init?: RequestInit,
) => Promise<Response> {
  const Agent = undiciAgentClass();
  const dispatcher = new Agent({ connect: { lookup: vettedLookup, timeout: CONNECT_TIMEOUT_MS } });
  return async (input, init = {}) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    if (isSpecialUseAddress(url.hostname)) throw new SpecialUseAddressError(url.hostname);
    const deadline = AbortSignal.timeout(OUTBOUND_FETCH_DEADLINE_MS);
    // Looked up on each call, as the provider's default does: a test process may wrap it
    // (test/support/resolve-test-hosts.ts).
    return globalThis.fetch(input, {
      ...init,
      redirect: 'manual',
      signal: init.signal ? AbortSignal.any([init.signal, deadline]) : deadline,
      dispatcher,
    } as RequestInit);
  };
}

/**
 * `clientIdMetadataDocument.allowFetch`: a client_id whose host is a special-use IP literal is
 * refused before any fetch (a name is checked when it is resolved, by the fetch itself).
 */
export async function allowMetadataDocumentFetch(_ctx: unknown, clientId: string): Promise<boolean> {
  const url = URL.parse(clientId);
  return url !== null && !isSpecialUseAddress(url.hostname);
}
