import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createAccountServiceClient, isServiceError } from '@sheetgate/proto';
import { readJson, repoRoot, type Stack, startStack } from '@sheetgate/test-harness';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Sample,
  scrapeMetrics,
  total,
} from '../packages/service-runtime/test/support/prometheus-text.ts';
import { revokeGoogleGrant } from './support/google-emulator.ts';
import { connectWithOAuth, RecordingOAuthProvider } from './support/oauth-client.ts';
import { createApiKey, signIn } from './support/people.ts';

// Each service's /metrics, scraped from the stack `pnpm start` runs, after real traffic: every
// series counts what happened, checked against what the Google emulator and auth saw themselves.

const REGISTRATIONS_ALLOWED = 1;
const BOGUS_BEARERS = 3;

let stack: Stack;
let apiKeyClient: Client;
let oauthClient: Client;

const metricsUrl = (service: 'auth' | 'mcp' | 'web') =>
  `http://127.0.0.1:${stack.ports[`${service.toUpperCase()}_METRICS_PORT`]}`;

async function emulatorStats() {
  return readJson(await fetch(`${stack.emulatorUrl}/__emulator/stats`));
}

async function callTool(client: Client, name: string, args: Record<string, unknown>) {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

beforeAll(async () => {
  stack = await startStack({
    // Google access tokens last a second, so tool calls make auth refresh them at Google.
    GOOGLE_EMULATOR_ACCESS_TOKEN_TTL: '1',
    // Auth's staleness bound far beyond any test: from its first snapshot on, mcp serves the held
    // API key from its lease however late a heartbeat is on a loaded machine (a lagging replica
    // would ask auth of it, served=auth, at every request).
    REVOCATION_STALE_AFTER_MS: String(10 * 60_000),
    RATE_LIMIT_OVERRIDES: JSON.stringify({
      register: { points: REGISTRATIONS_ALLOWED, durationSeconds: 3600 },
    }),
  });
  const person = await signIn(stack, 'alice@example.com');
  const { secret } = await createApiKey(stack, person.sessionCookie);
  apiKeyClient = new Client({ name: 'metrics-e2e', version: '1.0.0' });
  await apiKeyClient.connect(
    new StreamableHTTPClientTransport(new URL(`${stack.baseUrl}/api/mcp`), {
      requestInit: { headers: { 'x-api-key': secret } },
    }),
  );
  oauthClient = await connectWithOAuth(stack, new RecordingOAuthProvider(), {
    browser: person.browser,
    email: 'alice@example.com',
  });
}, 120_000);

afterAll(async () => {
  await apiKeyClient?.close();
  await oauthClient?.close();
  await stack?.stop();
});

describe('metrics after real traffic', () => {
  let spreadsheetId: string;

  it('mcp: Google requests by method and status are exactly what the emulator answered, retries counted', async () => {
    const created = await callTool(apiKeyClient, 'create_spreadsheet', { title: 'Metrics' });
    expect(created.isError).toBeFalsy();
    spreadsheetId = (created.structuredContent as { spreadsheetId: string }).spreadsheetId;
    // One 503 from Google: the read is retried once and succeeds.
    const fault = await fetch(`${stack.emulatorUrl}/__emulator/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ match: 'sheets.spreadsheets.values.get', status: 503, count: 1 }),
    });
    expect(fault.status).toBe(201);
    const read = await callTool(apiKeyClient, 'read_range', { spreadsheetId, range: 'A1:B2' });
    expect(read.isError).toBeFalsy();

    const samples = await scrapeMetrics(metricsUrl('mcp'));
    const { methods } = await emulatorStats();
    expect(Object.keys(methods)).toEqual(
      expect.arrayContaining(['sheets.spreadsheets.create', 'sheets.spreadsheets.values.get']),
    );
    for (const [method, seen] of Object.entries(
      methods as Record<string, { responses: Record<string, number> }>,
    )) {
      for (const [status, count] of Object.entries(seen.responses)) {
        expect(
          total(samples, 'sheetgate_mcp_google_requests_total', { method, status }),
          `${method} ${status}`,
        ).toBe(count);
      }
      expect(total(samples, 'sheetgate_mcp_google_request_duration_seconds_count', { method })).toBe(
        Object.values(seen.responses).reduce((sum, n) => sum + n, 0),
      );
    }
    expect(total(samples, 'sheetgate_mcp_google_requests_total', { method: 'other' })).toBe(0);
    expect(total(samples, 'sheetgate_mcp_google_retries_total', { reason: 'unavailable' })).toBe(1);
  });

  it('mcp: tool calls by tool, toolset and outcome; API-key requests by how the replica served them', async () => {
    const calls = (samples: Sample[], tool: string, toolset: string, outcome: string) =>
      total(samples, 'sheetgate_mcp_tool_calls_total', { tool, toolset, outcome });
    // Counted once mcp vouches for its revocation stream (until its first snapshot it asks auth).
    for (
      let attempt = 0;
      total(await scrapeMetrics(metricsUrl('mcp')), 'sheetgate_mcp_revocations_current') !== 1;
      attempt++
    ) {
      expect(attempt, 'mcp vouches for its revocation stream').toBeLessThan(200);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const before = await scrapeMetrics(metricsUrl('mcp'));
    for (let i = 0; i < 3; i++)
      expect(
        (await callTool(apiKeyClient, 'read_range', { spreadsheetId, range: 'A1:B2' })).isError,
      ).toBeFalsy();
    const invalid = await callTool(apiKeyClient, 'read_range', { spreadsheetId: 42 });
    expect(invalid.isError).toBe(true);
    const missing = await callTool(apiKeyClient, 'read_range', {
      spreadsheetId: 'no-such-file',
      range: 'A1',
    });
    expect(missing.isError).toBe(true);
    const after = await scrapeMetrics(metricsUrl('mcp'));
    const change = (outcome: string) =>
      calls(after, 'read_range', 'core-read', outcome) - calls(before, 'read_range', 'core-read', outcome);
    expect(change('ok')).toBe(3);
    expect(change('invalid_arguments')).toBe(1);
    expect(change('tool_error')).toBe(1);
    // The key is held by the replica: these requests are served from its lease (auth is asked
    // again only if the replica's minute of holding it ended in between; never for a late
    // heartbeat, given the staleness bound above).
    const served = (samples: Sample[], how: string) =>
      total(samples, 'sheetgate_mcp_api_key_requests_total', { served: how }) -
      total(before, 'sheetgate_mcp_api_key_requests_total', { served: how });
    expect(served(after, 'lease') + served(after, 'auth')).toBe(5);
    expect(served(after, 'lease')).toBeGreaterThanOrEqual(4);
    expect(total(after, 'sheetgate_mcp_api_key_requests_total', { served: 'auth' })).toBeGreaterThanOrEqual(
      1,
    );
  });

  it('auth: Google token refreshes by outcome are the refresh grants the emulator answered', async () => {
    // Tokens live a second: keep calling until auth has refreshed one at Google (bounded).
    for (let attempt = 0; attempt < 40; attempt++) {
      const grants = (await emulatorStats()).tokenGrants?.refresh_token?.responses ?? {};
      if ((grants['200'] ?? 0) >= 1) break;
      await callTool(apiKeyClient, 'read_range', { spreadsheetId, range: 'A1' });
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    let grants = (await emulatorStats()).tokenGrants.refresh_token.responses;
    expect(grants['200']).toBeGreaterThanOrEqual(1);
    let samples = await scrapeMetrics(metricsUrl('auth'));
    expect(total(samples, 'sheetgate_auth_google_token_refreshes_total', { outcome: 'ok' })).toBe(
      grants['200'],
    );

    // The person revokes Sheetgate at Google: the next refresh is refused for good.
    await revokeGoogleGrant(stack, 'alice@example.com');
    for (let attempt = 0; attempt < 40; attempt++) {
      const refused = (await emulatorStats()).tokenGrants.refresh_token.responses['400'] ?? 0;
      if (refused >= 1) break;
      await callTool(apiKeyClient, 'read_range', { spreadsheetId, range: 'A1' });
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    // Marked for reconnection: later calls are refused by auth without asking Google again.
    const afterwards = await callTool(apiKeyClient, 'read_range', { spreadsheetId, range: 'A1' });
    expect(afterwards.isError).toBe(true);
    grants = (await emulatorStats()).tokenGrants.refresh_token.responses;
    expect(grants['400']).toBe(1);
    samples = await scrapeMetrics(metricsUrl('auth'));
    expect(total(samples, 'sheetgate_auth_google_token_refreshes_total', { outcome: 'invalid_grant' })).toBe(
      1,
    );
    expect(total(samples, 'sheetgate_auth_google_token_refreshes_total', { outcome: 'ok' })).toBe(
      grants['200'],
    );
  });

  it('mcp: bearer tokens counted as verified, cache hits and refusals by reason', async () => {
    await oauthClient.listTools();
    await oauthClient.listTools();
    for (let i = 0; i < BOGUS_BEARERS; i++) {
      const refused = await fetch(`${stack.baseUrl}/api/mcp`, {
        method: 'POST',
        headers: {
          authorization: 'Bearer not-a-jwt',
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
      expect(refused.status).toBe(401);
    }
    const samples = await scrapeMetrics(metricsUrl('mcp'));
    const verifications = (labels: Record<string, string>) =>
      total(samples, 'sheetgate_mcp_token_verifications_total', labels);
    expect(verifications({ outcome: 'verified' })).toBeGreaterThanOrEqual(1);
    expect(verifications({ outcome: 'cache_hit' })).toBeGreaterThanOrEqual(2);
    expect(verifications({ outcome: 'refused', reason: 'not_jws' })).toBe(BOGUS_BEARERS);
    expect(
      total(samples, 'sheetgate_http_requests_total', {
        route: '/api/mcp',
        method: 'POST',
        status_class: '4xx',
      }),
    ).toBeGreaterThanOrEqual(BOGUS_BEARERS);
    expect(
      total(samples, 'sheetgate_http_requests_total', {
        route: '/api/mcp',
        method: 'POST',
        status_class: '2xx',
      }),
    ).toBeGreaterThanOrEqual(5);
  });

  it('mcp broker calls and auth gRPC calls agree, method by method; a wrong credential is counted', async () => {
    const accounts = createAccountServiceClient({
      address: `127.0.0.1:${stack.ports.AUTH_GRPC_PORT}`,
      serviceToken: 'a-credential-auth-does-not-know-0123456789',
    });
    const refused = await accounts.getSession({ sessionCookie: '' }).catch((error: unknown) => error);
    accounts.close();
    expect(isServiceError(refused)).toBe(true);

    const mcp = await scrapeMetrics(metricsUrl('mcp'));
    const auth = await scrapeMetrics(metricsUrl('auth'));
    for (const method of ['ResolveApiKeys', 'GetGoogleAccessToken']) {
      const sent = total(mcp, 'sheetgate_mcp_broker_calls_total', { method, outcome: 'ok' });
      expect(sent, method).toBeGreaterThanOrEqual(1);
      expect(total(auth, 'sheetgate_auth_grpc_calls_total', { method, outcome: 'ok' }), method).toBe(sent);
      expect(total(mcp, 'sheetgate_mcp_broker_call_duration_seconds_count', { method })).toBe(
        total(mcp, 'sheetgate_mcp_broker_calls_total', { method }),
      );
    }
    expect(
      total(auth, 'sheetgate_auth_grpc_calls_total', { method: 'GetSession', outcome: 'unauthenticated' }),
    ).toBe(1);
  });

  it('auth: refusals by rate limit, each refused request counted', async () => {
    const register = () =>
      fetch(`${stack.baseUrl}/api/auth/oauth2/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          redirect_uris: ['http://127.0.0.1:9/cb'],
          token_endpoint_auth_method: 'none',
        }),
      });
    // The OAuth client above used the one registration allowed.
    expect((await register()).status).toBe(429);
    expect((await register()).status).toBe(429);
    const samples = await scrapeMetrics(metricsUrl('auth'));
    expect(total(samples, 'sheetgate_auth_rate_limit_refusals_total', { limit: 'register' })).toBe(2);
    expect(
      total(samples, 'sheetgate_http_requests_total', {
        route: '/api/auth/oauth2/register',
        method: 'POST',
        status_class: '4xx',
      }),
    ).toBe(2);
  });

  it('web: pages by route; /metrics is not routed by the gateway', async () => {
    const webRequests = async (labels: Record<string, string>) =>
      total(await scrapeMetrics(metricsUrl('web')), 'sheetgate_http_requests_total', labels);
    const login = { route: '/login', method: 'GET', status_class: '2xx' };
    const unmatched = { route: 'unmatched', method: 'GET', status_class: '4xx' };
    const before = { login: await webRequests(login), unmatched: await webRequests(unmatched) };
    expect((await fetch(`${stack.baseUrl}/login`)).status).toBe(200);
    const throughGateway = await fetch(`${stack.baseUrl}/metrics`);
    expect(throughGateway.status).toBe(404);
    expect(await throughGateway.text()).not.toContain('sheetgate_http_requests_total');
    expect(await webRequests(login)).toBe(before.login + 1);
    expect(await webRequests(unmatched)).toBe(before.unmatched + 1);
  });

  it('has every series the deploy README and the example alerts name, on the service they say', async () => {
    const scraped: Record<string, Sample[]> = {
      auth: await scrapeMetrics(metricsUrl('auth')),
      mcp: await scrapeMetrics(metricsUrl('mcp')),
      web: await scrapeMetrics(metricsUrl('web')),
    };
    const documents = ['deploy/README.md', 'deploy/k8s/examples/prometheus-rules.yaml'].map((file) =>
      readFileSync(path.join(repoRoot, file), 'utf8'),
    );
    const named = new Set(
      documents.flatMap((text) => [...text.matchAll(/\bsheetgate_[a-z_]+/g)].map((m) => m[0])),
    );
    expect(named.size).toBeGreaterThan(8);
    for (const name of named) {
      const owner = /^sheetgate_(auth|mcp)_/.exec(name)?.[1] ?? undefined;
      const where = owner ? [owner] : ['auth', 'mcp', 'web'];
      for (const service of where) {
        const names = new Set(scraped[service]!.map((s) => s.name));
        expect(names.has(name) || names.has(`${name}_count`), `${service} exports ${name}`).toBe(true);
      }
    }
    for (const [service, samples] of Object.entries(scraped)) {
      expect(new Set(samples.map((s) => s.labels.service))).toEqual(new Set([service]));
    }
  });
});
