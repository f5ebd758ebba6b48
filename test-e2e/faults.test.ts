import { execFileSync } from 'node:child_process';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  type RunningService,
  readJson,
  type Stack,
  startServiceProcess,
  startStack,
  withFreePorts,
} from '@sheetgate/test-harness';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  accountEmails,
  type ConnectedPerson,
  connectPeople,
  credentialHeaders,
  MCP_HEADERS,
  TOOLS_LIST,
  toolCall,
} from './support/connected-people.ts';
import {
  expectOnlyOutageFailures,
  type LoadTarget,
  startSteadyLoad,
  succeeded,
  summarise,
  throughOutage,
} from './support/steady-load.ts';

// Faults of the parts around the MCP service, on the whole stack under load: auth hanging, Google
// answering quota errors and 5xx in storms, and the MCP process told to stop mid-request.
// (PostgreSQL and Redis going down: faults-datastores.test.ts. Auth *dead* rather than hung, with
// minted tokens: services/mcp/test/mcp-resilience.test.ts.)

const EMAILS = accountEmails(3, 'faults');
let stack: Stack;
let people: ConnectedPerson[];

beforeAll(async () => {
  stack = await startStack({
    GOOGLE_EMULATOR_ACCOUNTS: EMAILS.join(','),
    LOG_LEVEL: 'warn',
    RATE_LIMIT_OVERRIDES: JSON.stringify({
      apiKey: { points: 1_000_000, durationSeconds: 60 },
      register: { points: 500, durationSeconds: 3600 },
    }),
  });
  people = await connectPeople(stack, EMAILS);
}, 120_000);
afterAll(async () => {
  await stack?.stop();
});

/** A service the stack's launcher started (its direct child running services/<name>). */
function servicePid(name: 'auth' | 'mcp'): number {
  const found = execFileSync(
    'pgrep',
    // The launcher's child whose command names the service's folder: its bundle or its sources.
    ['-P', String(stack.process.pid), '-f', `/services/${name}/`],
    { encoding: 'utf8' },
  );
  return Number(found.trim().split('\n')[0]);
}

async function emulator(path: string, init: RequestInit = {}) {
  const response = await fetch(`${stack.emulatorUrl}/__emulator/${path}`, {
    ...init,
    headers: { 'content-type': 'application/json' },
  });
  if (!response.ok) throw new Error(`emulator ${path}: ${response.status} ${await response.text()}`);
  return response.status === 204 ? undefined : readJson(response);
}

interface MethodStats {
  attempts: number;
  responses: Record<string, number>;
  inFlight: number;
  maxInFlight: number;
}
const methodStats = async (method: string): Promise<MethodStats | undefined> =>
  (await emulator('stats')).methods[method];

function mcpPost(url: string, person: ConnectedPerson, as: 'jwt' | 'key', body: string) {
  return fetch(url, { method: 'POST', headers: { ...MCP_HEADERS, ...credentialHeaders(person, as) }, body });
}

async function until(condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('auth hangs (SIGSTOP) while the MCP service serves', () => {
  it('JWT and API-key requests get 503 with Retry-After (revocations and keys cannot be checked), and recover', async () => {
    const [alice, bob] = people as [ConnectedPerson, ConnectedPerson];
    const mcp = `${stack.baseUrl}/api/mcp`;
    const post = (person: ConnectedPerson, as: 'jwt' | 'key', body: string) => () => ({
      method: 'POST',
      headers: { ...MCP_HEADERS, ...credentialHeaders(person, as) },
      body,
    });
    const targets: LoadTarget[] = [alice, bob].flatMap((person) => [
      { kind: 'jwt tools/list', url: mcp, init: post(person, 'jwt', TOOLS_LIST) },
      { kind: 'key tools/list', url: mcp, init: post(person, 'key', TOOLS_LIST) },
    ]);
    // The official SDK client with the token auth issued it through OAuth.
    const client = new Client({ name: 'faults-e2e', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(mcp), { authProvider: alice.oauth }));

    const auth = servicePid('auth');
    const run = await throughOutage(targets, async (load) => {
      const hungAt = Date.now();
      process.kill(auth, 'SIGSTOP');
      try {
        const refused = (kind: string) =>
          load.outcomes.filter(
            (outcome) => outcome.kind === kind && outcome.startedAt >= hungAt && outcome.status === 503,
          ).length;
        await until(() => refused('key tools/list') >= 4, 'API-key requests are refused while auth hangs');
        // The revocation stream is silent and auth cannot be asked instead: the replica cannot vouch
        // that a token's grant still stands.
        await until(() => refused('jwt tools/list') >= 4, 'JWT requests are refused while auth hangs');
      } finally {
        process.kill(auth, 'SIGCONT');
      }
    });
    // The whole list again (which tools it holds is pinned in mcp-tools.test.ts).
    expect((await client.listTools()).tools.length).toBeGreaterThan(20);
    await client.close();
    // Requests were refused only as docs/design.md §8 says (503 + Retry-After) while auth hung, and
    // succeed again since.
    const summary = expectOnlyOutageFailures(
      run,
      (outcome) =>
        (outcome.kind === 'key tools/list' || outcome.kind === 'jwt tools/list') &&
        outcome.status === 503 &&
        Number(outcome.retryAfter) > 0,
    );
    console.info('auth hung, outcomes by kind:', summary);
    expect(summary['key tools/list']?.['503']).toBeGreaterThanOrEqual(4);
    expect(summary['jwt tools/list']?.['503']).toBeGreaterThanOrEqual(4);
  }, 90_000);
});

/** The MCP service's documented bounds (services/mcp/README.md, "Tools"). */
const MAX_ATTEMPTS_PER_CALL = 4; // the first try and up to three retries
const PER_USER_CONCURRENCY = 4;
const PER_USER_WAITING = 16;

describe('Google answers in storms: bounded retries, clear errors, no pile-up', () => {
  afterAll(async () => {
    await emulator('faults', { method: 'DELETE' });
  });

  const storms = [
    {
      name: 'Sheets 429 RESOURCE_EXHAUSTED (userRateLimitExceeded), more calls than may wait',
      method: 'sheets.spreadsheets.values.get',
      // Retry-After 0: the storm is about counts, not about waiting (honouring a wait: mcp-tools).
      fault: { status: 429, reason: 'userRateLimitExceeded', retryAfterSeconds: 0 },
      calls: 30,
      tool: (person: ConnectedPerson) =>
        toolCall('read_range', { spreadsheetId: person.spreadsheetId, range: 'Sheet1!A1:B1' }),
      error: /Google's rate limit was reached \(userRateLimitExceeded\)/,
    },
    {
      name: 'Drive 403 userRateLimitExceeded',
      method: 'drive.files.list',
      fault: { status: 403, reason: 'userRateLimitExceeded' },
      calls: 8,
      tool: () => toolCall('list_spreadsheets', {}),
      error: /Google's rate limit was reached \(userRateLimitExceeded\)/,
    },
    {
      name: 'Sheets 500 backendError on writes',
      method: 'sheets.spreadsheets.values.update',
      fault: { status: 500, reason: 'backendError' },
      calls: 8,
      tool: (person: ConnectedPerson) =>
        toolCall('write_range', { spreadsheetId: person.spreadsheetId, range: 'Sheet1!D1', values: [['x']] }),
      error: /Google is not answering right now/,
    },
  ];

  it.each(storms)(
    '$name',
    async ({ method, fault, calls, tool, error }) => {
      const person = people[2]!;
      const mcp = `${stack.baseUrl}/api/mcp`;
      await emulator('stats', { method: 'DELETE' });
      // Each answer takes a moment, so the calls overlap at Google as they would in a real storm.
      const slowed = { ...fault, latencyMs: 150, count: 10_000 };
      await emulator('faults', { method: 'POST', body: JSON.stringify({ match: method, ...slowed }) });
      // N calls at once from one person, half through their OAuth client, half with their key;
      // each must end before a generous deadline (a pile-up would not).
      const deadline = AbortSignal.timeout(60_000);
      const texts = await Promise.all(
        Array.from({ length: calls }, async (_, index) => {
          const response = await fetch(mcp, {
            method: 'POST',
            headers: { ...MCP_HEADERS, ...credentialHeaders(person, index % 2 ? 'key' : 'jwt') },
            body: tool(person),
            signal: deadline,
          });
          expect(response.status).toBe(200);
          const reply = await readJson(response);
          expect(reply.result.isError, JSON.stringify(reply)).toBe(true);
          return reply.result.content[0].text as string;
        }),
      );
      // A call that found the person's queue full was refused at once, before reaching Google.
      const refusedAtOnce = texts.filter((text) => /Too many Google calls at once/.test(text)).length;
      expect(refusedAtOnce).toBe(Math.max(0, calls - PER_USER_CONCURRENCY - PER_USER_WAITING));
      for (const text of texts.filter((text) => !/Too many Google calls at once/.test(text)))
        expect(text).toMatch(error);

      const stats = (await methodStats(method))!;
      const reachedGoogle = calls - refusedAtOnce;
      // Every call that reached Google tried exactly as often as documented, then gave up: a storm
      // costs at most N × (1 + retries) requests, never more.
      expect(stats.attempts).toBe(reachedGoogle * MAX_ATTEMPTS_PER_CALL);
      expect(stats.responses).toEqual({ [fault.status]: stats.attempts });
      // At most the per-user cap at Google at once (and the calls did overlap), nothing left running.
      expect(stats.maxInFlight).toBeLessThanOrEqual(PER_USER_CONCURRENCY);
      expect(stats.maxInFlight).toBeGreaterThan(1);
      expect(stats.inFlight).toBe(0);

      await emulator('faults', { method: 'DELETE' });
      const calm = await readJson(await mcpPost(mcp, person, 'key', tool(person)));
      expect(calm.result.isError, JSON.stringify(calm)).toBeFalsy();
    },
    90_000,
  );
});

describe('SIGTERM to an MCP replica under load', () => {
  let replica: RunningService | undefined;
  afterAll(async () => {
    await replica?.stop();
    await emulator('faults', { method: 'DELETE' });
  });

  it('the requests under way finish with 200, new ones are no longer accepted, the process exits 0', async () => {
    // A second MCP process on the same auth and Google, as another replica behind the ingress.
    replica = await withFreePorts(1, ([port]) =>
      startServiceProcess(
        'mcp',
        {
          BASE_URL: stack.baseUrl,
          MCP_PORT: String(port),
          AUTH_INTERNAL_URL: `http://127.0.0.1:${stack.ports.AUTH_PORT}`,
          AUTH_GRPC_ADDRESS: `127.0.0.1:${stack.ports.AUTH_GRPC_PORT}`,
          INTERNAL_SERVICE_TOKEN: stack.serviceToken,
          GOOGLE_EMULATOR_URL: stack.emulatorUrl,
          LOG_LEVEL: 'info',
        },
        port!,
      ),
    );
    const url = `${replica.url}/api/mcp`;
    const method = 'sheets.spreadsheets.values.get';
    // Each person's reads are slowed at Google, so they are under way when the signal comes.
    const inFlight = people.flatMap((person) => (['jwt', 'key'] as const).map((as) => ({ person, as })));
    await emulator('stats', { method: 'DELETE' });
    await emulator('faults', {
      method: 'POST',
      body: JSON.stringify({ match: method, latencyMs: 2_000, count: inFlight.length }),
    });
    const calls = inFlight.map(({ person, as }) =>
      mcpPost(
        url,
        person,
        as,
        toolCall('read_range', { spreadsheetId: person.spreadsheetId, range: 'Sheet1!A1:B1' }),
      ),
    );
    await until(
      async () => (await methodStats(method))?.inFlight === inFlight.length,
      'every slowed read is at Google',
    );
    // And a steady stream of quick requests besides, through the signal and after it.
    const load = startSteadyLoad([
      {
        kind: 'jwt tools/list',
        url,
        init: () => ({
          method: 'POST',
          headers: { ...MCP_HEADERS, ...credentialHeaders(people[0]!, 'jwt') },
          body: TOOLS_LIST,
        }),
      },
    ]);
    await load.untilEachSucceeds(0, 3);
    replica.process.kill('SIGTERM');
    await until(async () => {
      try {
        await fetch(`${replica!.url}/healthz`);
        return false;
      } catch {
        return true;
      }
    }, 'the replica stops accepting connections');

    const answers = await Promise.all(calls);
    for (const [index, answer] of answers.entries()) {
      expect(answer.status).toBe(200);
      const text = await answer.text();
      expect(text).toContain(inFlight[index]!.person.marker);
      expect(JSON.parse(text).result.isError).toBeFalsy();
    }
    expect(await replica.exited).toBe(0);
    expect(replica.output.join('\n')).toMatch(/"msg":"stopped"/);
    await load.stop();
    // The stream never saw a 5xx or a broken answer: each request was answered whole, or (arriving
    // as the listener closed) refused at the connection, which a client or ingress retries.
    const summary = summarise(load.outcomes);
    for (const outcome of load.outcomes) {
      if (outcome.status === 0)
        expect(outcome.failure, JSON.stringify(summary)).toMatch(/ECONNREFUSED|ECONNRESET|UND_ERR_SOCKET/);
      else expect(succeeded(outcome), JSON.stringify(outcome)).toBe(true);
    }
    console.info('SIGTERM, quick requests:', summary);
  }, 60_000);
});
