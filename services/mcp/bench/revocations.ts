/**
 * How long revoking an API key takes, and whether anything gets through after: three MCP
 * replicas serve a key under steady load (a few requests in flight on each, keep-alive), the key
 * is revoked through AccountService as the dashboard does it (one client for the run, as the web
 * service holds one), and every request that *started*
 * after the revoke call returned is checked — one answered 200 is a revocation that did not reach
 * the edge in time. Repeated with a new key each time for the latency percentiles. The load runs
 * in a worker thread (bench/revocation-load.ts): timed on the thread serving it, the revoke call's
 * answer waited behind the load's in this process's own event loop, which added up to ~100 ms
 * to the figure that auth never spent (its own count of the call stayed under 50 ms).
 */
import http from 'node:http';
import { Worker } from 'node:worker_threads';
import { createAccountServiceClient } from '@sheetgate/proto';
import type { McpUnderTest } from '../test/support/stack.ts';
import { listTools } from './eras.ts';
import { type LoadCommand, type LoadReport, type LoadSetup, post, wallClock } from './revocation-load.ts';

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
  const agent = new http.Agent({ keepAlive: true, maxSockets: urls.length });
  const load = new Worker(new URL('./revocation-load.ts', import.meta.url), {
    workerData: { urls, inFlightPerReplica: IN_FLIGHT_PER_REPLICA } satisfies LoadSetup,
  });
  const command = (message: LoadCommand) => load.postMessage(message);
  // One client for the run, as the web service holds one (a new channel per call would time its
  // connection too).
  const accounts = createAccountServiceClient({
    address: stack.grpcAddress,
    serviceToken: stack.serviceToken,
  });
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
      const reported = new Promise<LoadReport>((resolve, reject) => {
        load.once('error', reject);
        load.once('message', (report: LoadReport) => {
          load.off('error', reject);
          resolve(report);
        });
      });
      command({ start: { headers, body: request.body } });
      // Let the load run a moment before the revoke, so it meets requests in flight.
      await new Promise((resolve) => setTimeout(resolve, 50));
      const started = performance.now();
      const answer = await accounts.revokeApiKey({ sessionCookie, keyId });
      const returnedAt = wallClock();
      latenciesMs.push(performance.now() - started);
      command({ returnedAt });
      if (!answer.revoked) throw new Error('the key was not revoked');
      const report = await reported;
      checkedAfter += report.checkedAfter;
      acceptedAfter += report.acceptedAfter;
    }
  } finally {
    accounts.close();
    agent.destroy();
    command({ close: true });
    await load.terminate();
  }
  return {
    replicas: urls.length,
    revokes: options.revokes,
    latenciesMs: latenciesMs.sort((a, b) => a - b),
    acceptedAfter,
    checkedAfter,
  };
}
