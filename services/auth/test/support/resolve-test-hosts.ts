/**
 * Preloaded into an auth process under test (NODE_OPTIONS=--import=<this file>), never into a
 * deployed one: `fetch` requests to the host names listed in SHEETGATE_TEST_HOSTS (a JSON array)
 * connect to 127.0.0.1, where the test serves them over HTTPS (its CA in NODE_EXTRA_CA_CERTS).
 *
 * Auth fetches Client ID Metadata Documents through an agent that refuses special-use addresses,
 * loopback included, before it connects (src/oidc/outbound-fetch.ts); requests to these names use
 * a plain agent instead, so a test can serve documents locally. Every other request —
 * `https://localhost:…`, `https://127.0.0.1:…` — still goes through auth's agent, which the tests
 * check.
 */
import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';

const names = new Set<string>(JSON.parse(process.env.SHEETGATE_TEST_HOSTS ?? '[]'));

type LookupCallback = (error: Error | null, address: string | LookupAddress[], family?: number) => void;
function lookup(hostname: string, options: LookupOptions, callback: LookupCallback) {
  if (!names.has(hostname)) return dnsLookup(hostname, options, callback as never);
  if (options.all) return callback(null, [{ address: '127.0.0.1', family: 4 }]);
  return callback(null, '127.0.0.1', 4);
}

// Node's fetch is undici; touching Response loads it, which installs its global Agent (the same
// way oidc-provider finds the Agent class for its own protected agent).
void Response;
type AgentClass = new (options: { connect: { lookup: typeof lookup } }) => object;
const Agent = (globalThis as unknown as Record<symbol, { constructor: AgentClass } | undefined>)[
  Symbol.for('undici.globalDispatcher.1')
]?.constructor;
if (!Agent) throw new Error('resolve-test-hosts: undici global dispatcher not found');
const agent = new Agent({ connect: { lookup } });
const realFetch = globalThis.fetch;

globalThis.fetch = (input: string | URL | Request, init?: RequestInit) => {
  const url = new URL(input instanceof Request ? input.url : String(input));
  if (!names.has(url.hostname)) return realFetch(input, init);
  return realFetch(input, { ...init, dispatcher: agent } as RequestInit);
};
