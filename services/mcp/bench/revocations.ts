/**
 * How long revoking an API key takes, and whether anything gets through after: three MCP
 * replicas serve a key under steady load (a few requests in flight on each, keep-alive), the key
 * is revoked through AccountService as the dashboard does it, and every request that *started*
 * after the revoke call returned is checked — one answered 200 is a revocation that did not reach
 * the edge in time. Repeated with a new key each time for the latency percentiles.
 */
import http from 'node:http';
import type { McpUnderTest } from '../test/support/stack.ts';
import { listTools } from './eras.ts';

const IN_FLIGHT_PER_REPLICA = 4;

export interface RevocationFigures {
  replicas: number;
  revokes: number;
  latenciesMs: number[];
  /** Requests that started after a revoke call returned and were still answered 200. */
  acceptedAfter: number;
  /** Requests that started after a revoke call returned (all of them must be refused). */
  checkedAfter: number;
}

export async function measureRevocations(
  stack: McpUnderTest,
  sessionCookie: string,
  options: { replicas: number; revokes: number },
): Promise<RevocationFigures> {
  const urls = [stack.mcpUrl];
  while (urls.length < options.replicas) urls.push((await stack.startMcp()).mcpUrl);
  const agent = new http.Agent({ keepAlive: true, maxSockets: IN_FLIGHT_PER_REPLICA * urls.length });
  const latenciesMs: number[] = [];
  let acceptedAfter = 0;
  let checkedAfter = 0;
  try {
    for (let round = 0; round < options.revokes; round++) {
      const { secret, keyId } = await stack.createApiKey(sessionCookie);
      const request = listTools('legacy');
      const headers = { ...request.headers, 'x-api-key': secret };
      // Every replica has served the key before it is revoked (what it may have kept of it).
      for (const url of urls) {
        const status = await post(agent, url, headers, request.body);
        if (status !== 200) throw new Error(`a replica refused a live key (${status})`);
      }
      let returnedAt = Number.POSITIVE_INFINITY;
      let stopLoad = false;
      const load = urls.flatMap((url) =>
        Array.from({ length: IN_FLIGHT_PER_REPLICA }, async () => {
          // Keep asking until a few requests that started after the return have been answered.
          let after = 0;
          while (!stopLoad && after < 3) {
            const startedAt = performance.now();
            const status = await post(agent, url, headers, request.body);
            if (startedAt > returnedAt) {
              after++;
              checkedAfter++;
              if (status === 200) acceptedAfter++;
            }
          }
        }),
      );
      // Let the load run a moment before the revoke, so it meets requests in flight.
      await new Promise((resolve) => setTimeout(resolve, 50));
      const started = performance.now();
      await stack.revokeApiKey(sessionCookie, keyId);
      returnedAt = performance.now();
      latenciesMs.push(returnedAt - started);
      const watchdog = setTimeout(() => {
        stopLoad = true;
      }, 10_000);
      await Promise.all(load);
      clearTimeout(watchdog);
    }
  } finally {
    agent.destroy();
  }
  return {
    replicas: urls.length,
    revokes: options.revokes,
    latenciesMs: latenciesMs.sort((a, b) => a - b),
    acceptedAfter,
    checkedAfter,
  };
}

function post(
  agent: http.Agent,
  url: string,
  headers: Record<string, string>,
  body: string,
): Promise<number> {
  return new Promise((resolve) => {
    const outgoing = http.request(url, { method: 'POST', agent, headers }, (response) => {
      response.resume();
      response.on('end', () => resolve(response.statusCode ?? 0));
    });
    outgoing.on('error', () => resolve(0));
    outgoing.end(body);
  });
}
