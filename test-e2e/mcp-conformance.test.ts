import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createBrowser, readJson, type Stack, startStack } from '@sheetgate/test-harness';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { baselineProblems, readBaseline, scenarioTable } from './support/conformance-baseline.ts';
import {
  type Requirements,
  readResults,
  requiredServerScenarios,
  runConformance,
} from './support/conformance-suite.ts';
import { MCP_HEADERS, refreshGrant, TOOLS_LIST } from './support/connected-people.ts';
import { type CredentialProxy, startCredentialProxy } from './support/credential-proxy.ts';
import { connectWithOAuth, RecordingOAuthProvider } from './support/oauth-client.ts';

// The official MCP conformance suite (@modelcontextprotocol/conformance, pinned) against the whole
// stack, once per requirement set, each at its own wire: 2026-07-28 stateless with per-request
// `_meta`, 2025-11-25 with the initialize handshake. The suite sends no credentials, so it talks
// to a proxy that adds a real person's OAuth token and changes nothing else (support/
// credential-proxy.ts says why that masks nothing). What may fail is checked in beside this file:
// conformance/expected-failures-<set>.yml, every entry with its reason (conformance/README.md).

const BASELINES = path.join(path.dirname(new URL(import.meta.url).pathname), 'conformance');
/** Each scenario's own limit; they take well under a second each against a healthy stack. */
const SCENARIO_TIMEOUT_MS = 20_000;
/** The whole run's: a hang detector, far above the ~2 s one set takes on this 2-core machine. */
const RUN_DEADLINE_MS = 240_000;

let proxy: CredentialProxy;
let stack: Stack;
/** The stack as its clients see it: its public origin is the proxy's. */
let front: Stack;
let scratch: string;
const oauth = new RecordingOAuthProvider({ clientName: 'MCP conformance suite' });

beforeAll(async () => {
  proxy = await startCredentialProxy();
  stack = await startStack({ BASE_URL: proxy.url });
  proxy.forwardTo({ host: '127.0.0.1', port: stack.ports.PORT! });
  front = { ...stack, baseUrl: proxy.url };
  // A person who signed in with Google (the emulator) and connected an MCP client over OAuth, so
  // the token is one a real client holds and a tool a scenario calls can reach Google.
  const client = await connectWithOAuth(front, oauth, {
    browser: createBrowser(),
    email: 'alice@example.com',
  });
  await client.close();
  proxy.useBearer(oauth.tokens()!.access_token);
  scratch = await mkdtemp(path.join(os.tmpdir(), 'sheetgate-conformance-'));
});

afterAll(async () => {
  await stack?.stop();
  await proxy?.close();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

describe('the credential proxy', () => {
  it('adds the person’s token to a request that has none: the endpoint answers it', async () => {
    const response = await fetch(`${proxy.url}/api/mcp`, {
      method: 'POST',
      headers: MCP_HEADERS,
      body: TOOLS_LIST,
    });
    expect(response.status).toBe(200);
    const { result } = await readJson(response);
    expect(result.tools.map((tool: { name: string }) => tool.name)).toContain('read_range');
  });

  it('passes Origin through as sent: the endpoint still refuses a foreign one', async () => {
    const foreign = await fetch(`${proxy.url}/api/mcp`, {
      method: 'POST',
      headers: { ...MCP_HEADERS, origin: 'http://evil.example.com' },
      body: TOOLS_LIST,
    });
    expect(foreign.status).toBe(403);
    const own = await fetch(`${proxy.url}/api/mcp`, {
      method: 'POST',
      headers: { ...MCP_HEADERS, origin: proxy.url },
      body: TOOLS_LIST,
    });
    expect(own.status).toBe(200);
  });
});

const SETS: Requirements[] = ['2026-07-28', '2025-11-25'];

describe.each(SETS)('the MCP conformance suite, requirements %s', (requirements) => {
  it(
    'passes every required scenario that applies to Sheetgate; the rest fail only as the baseline says',
    async () => {
      // A fresh token per run: access tokens live 15 minutes.
      await refreshGrant(front, { oauth });
      proxy.useBearer(oauth.tokens()!.access_token);
      const baseline = path.join(BASELINES, `expected-failures-${requirements}.yml`);
      const resultsDir = path.join(scratch, requirements);
      const run = await runConformance({
        url: `${proxy.url}/api/mcp`,
        requirements,
        expectedFailures: baseline,
        resultsDir,
        scenarioTimeoutMs: SCENARIO_TIMEOUT_MS,
        deadlineMs: RUN_DEADLINE_MS,
      });
      const results = await readResults(resultsDir);
      const required = await requiredServerScenarios(requirements);
      const problems = baselineProblems(await readBaseline(baseline), required, results);
      if (run.code !== 0 || problems.length > 0) {
        console.log(
          `${run.output}\n--- every scenario, with its failing checks:\n${scenarioTable(results, required)}`,
        );
      }
      expect(
        { exitCode: run.code, baselineProblems: problems },
        `the conformance suite's report is printed above; the baseline is ${baseline}`,
      ).toEqual({ exitCode: 0, baselineProblems: [] });
    },
    RUN_DEADLINE_MS + 30_000,
  );
});
