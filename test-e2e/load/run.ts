/**
 * `pnpm test:load`: a sustained, mixed, bounded load on the whole stack over loopback — JWT
 * (OAuth) and API-key clients, reads and writes, several people — then figures: requests,
 * errors, p50/p99, RSS of the MCP service at start and end. It fails (exit 1) on any 5xx or on
 * data crossing between people. LOAD_SECONDS (default 20) bounds it.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createBrowser, startStack } from '@sheetgate/test-harness';
import autocannon from 'autocannon';
import { connectWithOAuth, RecordingOAuthProvider } from '../support/oauth-client.ts';
import { createApiKey, signIn } from '../support/people.ts';

const SECONDS = Number(process.env.LOAD_SECONDS ?? 20);
const PEOPLE = ['alice@example.com', 'bob@example.com'];

function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Math.round(Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024);
}

function mcpPid(): number {
  // The MCP service is the child of `pnpm start` that runs services/mcp/src/main.ts.
  return Number(execFileSync('pgrep', ['-n', '-f', 'services/mcp/src/main.ts'], { encoding: 'utf8' }).trim());
}

const stack = await startStack({
  GOOGLE_EMULATOR_ACCOUNTS: PEOPLE.join(','),
  LOG_LEVEL: 'warn',
  // The load is on the service, not on the per-key limiter (tested on its own).
  RATE_LIMIT_OVERRIDES: JSON.stringify({
    apiKey: { points: 10_000_000, durationSeconds: 60 },
    register: { points: 500, durationSeconds: 3600 },
  }),
});
let failed = false;
try {
  const people = [];
  for (const email of PEOPLE) {
    const { sessionCookie, browser } = await signIn(stack, email, createBrowser());
    const apiKey = (await createApiKey(stack, sessionCookie)).secret;
    const provider = new RecordingOAuthProvider();
    const client = await connectWithOAuth(stack, provider, { browser, email });
    const created = await client.callTool({
      name: 'create_spreadsheet',
      arguments: { title: `Load ${email}`, values: [['owner', email]] },
    });
    const spreadsheetId = (created.structuredContent as { spreadsheetId: string }).spreadsheetId;
    await client.close();
    people.push({ email, apiKey, accessToken: provider.tokens()!.access_token, spreadsheetId });
  }

  const call = (id: number, name: string, args: Record<string, unknown>) =>
    JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });
  const requests = people.flatMap((person, index) => {
    const asKey = { 'x-api-key': person.apiKey };
    const asJwt = { authorization: `Bearer ${person.accessToken}` };
    return [
      { headers: asJwt, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }) },
      {
        headers: asKey,
        body: call(2, 'read_range', { spreadsheetId: person.spreadsheetId, range: 'Sheet1!A1:B1' }),
      },
      {
        headers: asJwt,
        body: call(3, 'read_range', { spreadsheetId: person.spreadsheetId, range: 'Sheet1!A1:B1' }),
      },
      {
        headers: asKey,
        body: call(4, 'write_range', {
          spreadsheetId: person.spreadsheetId,
          range: 'Sheet1!C1',
          values: [[index]],
        }),
      },
    ].map((request) => ({
      method: 'POST' as const,
      path: '/api/mcp',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...request.headers,
      },
      body: request.body,
    }));
  });

  const pid = mcpPid();
  const rssStart = rssMb(pid);
  let crossed = 0;
  const result = await autocannon({
    url: stack.baseUrl,
    connections: 20,
    duration: SECONDS,
    requests,
    setupClient(client) {
      client.on('body', (body: Buffer) => {
        // A reply that names the other person's spreadsheet owner is a leak.
        const text = body.toString();
        if (PEOPLE.filter((email) => text.includes(email)).length > 1) crossed++;
      });
    },
  });
  const rssEnd = rssMb(pid);
  const fiveHundreds = result['5xx'];
  process.stdout.write(
    [
      `load: ${SECONDS} s, 20 connections, ${people.length} people, JWT and API-key clients, reads and writes`,
      `  requests ${result.requests.total}, ${Math.round(result.requests.average)} req/s`,
      `  errors ${result.errors}, non-2xx ${result.non2xx}, 5xx ${fiveHundreds}, timeouts ${result.timeouts}, statuses ${JSON.stringify(
        Object.fromEntries(
          Object.entries(result.statusCodeStats as Record<string, { count: number }>).map(([code, stat]) => [
            code,
            stat.count,
          ]),
        ),
      )}`,
      `  latency p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms`,
      `  mcp RSS start ${rssStart} MB, end ${rssEnd} MB`,
      `  replies naming another person's data: ${crossed}`,
    ].join('\n') + '\n',
  );
  failed = fiveHundreds > 0 || crossed > 0 || result.errors > 0;
} finally {
  await stack.stop();
}
process.exit(failed ? 1 : 0);
