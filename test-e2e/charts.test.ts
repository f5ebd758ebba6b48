import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { type Stack, startStack } from '@sheetgate/test-harness';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedFiles } from './support/google-emulator.ts';
import { connectWithOAuth, RecordingOAuthProvider } from './support/oauth-client.ts';
import { accountService, createApiKey, signIn } from './support/people.ts';

// Charts through the real MCP SDK client against the whole stack and the Google emulator: with an
// API key made on the dashboard's AccountService (every set, and one with only the charts set)
// and with an OAuth connection; a person's charts tools never reach another person's file; hostile
// arguments are refused before Google is sent a write.

let stack: Stack;
let aliceKey: Client;
let aliceOAuth: Client;
let chartsOnly: Client;
let bobKey: Client;
let aliceBook: string;
let bobBook: string;

/** The same name and layout for both: only the cells say whose it is. */
const book = (owner: string) => [
  {
    name: 'Quarterly',
    sheets: [
      {
        title: 'Sales',
        values: [
          ['Month', `${owner} north`, `${owner} south`],
          ['Jan', 10, 7],
          ['Feb', 12, 9],
          ['Mar', 15, 8],
        ],
      },
    ],
  },
];

async function keyClient(secret: string): Promise<Client> {
  const client = new Client({ name: 'sheetgate-e2e-charts', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${stack.baseUrl}/api/mcp`), {
      requestInit: { headers: { 'x-api-key': secret } },
    }),
  );
  return client;
}

const call = async (client: Client, name: string, args: Record<string, unknown>) =>
  (await client.callTool({ name, arguments: args })) as CallToolResult;

// biome-ignore lint/suspicious/noExplicitAny: results are checked by toEqual/toMatchObject
type Structured = Record<string, any>;

function structured(result: CallToolResult): Structured {
  if (result.isError) throw new Error(`tool error: ${JSON.stringify(result.content)}`);
  return result.structuredContent as Structured;
}

const textOf = (result: CallToolResult) => (result.content as Array<{ text: string }>)[0]!.text;

async function writesAtGoogle(): Promise<number> {
  const stats = (await (await fetch(`${stack.emulatorUrl}/__emulator/stats`)).json()) as {
    methods: Record<string, { attempts: number }>;
  };
  return stats.methods['sheets.spreadsheets.batchUpdate']?.attempts ?? 0;
}

beforeAll(async () => {
  stack = await startStack();
  [aliceBook] = (await seedFiles(stack, 'alice@example.com', book('Alice'))) as [string];
  [bobBook] = (await seedFiles(stack, 'bob@example.com', book('Bob'))) as [string];
  const alice = await signIn(stack, 'alice@example.com');
  aliceKey = await keyClient((await createApiKey(stack, alice.sessionCookie)).secret);
  const accounts = accountService(stack);
  try {
    const onlyCharts = await accounts.createApiKey({
      sessionCookie: alice.sessionCookie,
      name: 'charts only',
      scopes: ['sheets:read', 'sheets:write'],
      expiresAt: '',
      toolsets: { names: ['charts'] },
    });
    chartsOnly = await keyClient(onlyCharts.secret);
  } finally {
    accounts.close();
  }
  aliceOAuth = await connectWithOAuth(stack, new RecordingOAuthProvider(), {
    browser: alice.browser,
    email: 'alice@example.com',
  });
  const bob = await signIn(stack, 'bob@example.com');
  bobKey = await keyClient((await createApiKey(stack, bob.sessionCookie)).secret);
}, 120_000);

afterAll(async () => {
  for (const client of [aliceKey, aliceOAuth, chartsOnly, bobKey]) await client?.close();
  await stack?.stop();
});

/** A journal entry's `changeId`. */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('charts over MCP', { timeout: 60_000 }, () => {
  it('with an API key: adds a column chart, lists it, changes it, moves it to its own sheet and deletes it', async () => {
    const added = structured(
      await call(aliceKey, 'add_chart', {
        spreadsheetId: aliceBook,
        type: 'column',
        range: 'Sales!A1:C4',
        title: 'By month',
        yAxisTitle: 'Units',
      }),
    );
    expect(added).toMatchObject({
      type: 'column',
      title: 'By month',
      tab: 'Sales',
      anchorCell: 'Sales!E1',
      domain: 'Sales!A1:A4',
      series: ['Sales!B1:B4', 'Sales!C1:C4'],
      yAxisTitle: 'Units',
    });
    const chartId = added.chartId as number;
    // The answer names its journal entry (docs/design.md §11.8); the chart listed is the rest.
    const { changeId, ...chart } = added;
    expect(changeId).toMatch(UUID);
    const listed = structured(await call(aliceKey, 'list_charts', { spreadsheetId: aliceBook }));
    expect(listed.charts).toEqual([chart]);

    const changed = structured(
      await call(aliceKey, 'update_chart', {
        spreadsheetId: aliceBook,
        chartId,
        type: 'area',
        stacked: true,
      }),
    );
    expect(changed).toMatchObject({
      type: 'area',
      stacked: true,
      previous: { type: 'column', stacked: false },
    });
    const alone = structured(
      await call(aliceKey, 'update_chart', { spreadsheetId: aliceBook, chartId, newSheet: true }),
    );
    expect(alone).toMatchObject({ ownSheet: true, tab: 'Chart1' });
    const tabs = structured(await call(aliceKey, 'get_spreadsheet', { spreadsheetId: aliceBook }))
      .sheets as Structured[];
    expect(tabs.map((tab) => tab.title)).toEqual(['Sales', 'Chart1']);

    const dry = await call(aliceKey, 'delete_chart', { spreadsheetId: aliceBook, chartId, dryRun: true });
    expect(textOf(dry)).toContain('Nothing was changed.');
    expect(structured(await call(aliceKey, 'list_charts', { spreadsheetId: aliceBook })).charts).toHaveLength(
      1,
    );
    structured(await call(aliceKey, 'delete_chart', { spreadsheetId: aliceBook, chartId }));
    expect(structured(await call(aliceKey, 'list_charts', { spreadsheetId: aliceBook })).charts).toEqual([]);
    const after = structured(await call(aliceKey, 'get_spreadsheet', { spreadsheetId: aliceBook }))
      .sheets as Structured[];
    expect(after.map((tab) => tab.title)).toEqual(['Sales']);
  });

  it('with an OAuth connection: adds a pie chart on its own sheet, lists, resizes over the tab and deletes it', async () => {
    const pie = structured(
      await call(aliceOAuth, 'add_chart', {
        spreadsheetId: aliceBook,
        type: 'pie',
        range: 'Sales!A1:B4',
        newSheet: true,
        legendPosition: 'right',
      }),
    );
    expect(pie).toMatchObject({
      type: 'pie',
      ownSheet: true,
      domain: 'Sales!A2:A4',
      series: ['Sales!B2:B4'],
    });
    const over = structured(
      await call(aliceOAuth, 'update_chart', {
        spreadsheetId: aliceBook,
        chartId: pie.chartId,
        anchorCell: 'Sales!A7',
        width: 480,
        height: 300,
      }),
    );
    expect(over).toMatchObject({
      ownSheet: false,
      tab: 'Sales',
      anchorCell: 'Sales!A7',
      width: 480,
      height: 300,
    });
    const { previous: _previous, changeId, ...now } = over;
    expect(changeId).toMatch(UUID);
    expect(structured(await call(aliceOAuth, 'list_charts', { spreadsheetId: aliceBook })).charts).toEqual([
      now,
    ]);
    structured(await call(aliceOAuth, 'delete_chart', { spreadsheetId: aliceBook, chartId: pie.chartId }));
    expect(structured(await call(aliceOAuth, 'list_charts', { spreadsheetId: aliceBook })).charts).toEqual(
      [],
    );
  });

  it('a key with only the charts toolset lists exactly the chart tools, and every one of them works', async () => {
    const { tools } = await chartsOnly.listTools();
    expect(tools.map((tool) => tool.name)).toEqual([
      'add_chart',
      'list_charts',
      'update_chart',
      'delete_chart',
      'set_pivot_table',
    ]);
    // Outside its sets a tool is refused as unknown to this credential (-32602), naming the set.
    await expect(
      call(chartsOnly, 'read_range', { spreadsheetId: aliceBook, range: 'Sales!A1' }),
    ).rejects.toThrow(/"core-read" \(Reading\)/);
    const added = structured(
      await call(chartsOnly, 'add_chart', { spreadsheetId: aliceBook, type: 'line', range: 'Sales!A1:B4' }),
    );
    structured(
      await call(chartsOnly, 'update_chart', {
        spreadsheetId: aliceBook,
        chartId: added.chartId,
        title: 'Line',
      }),
    );
    expect(
      structured(await call(chartsOnly, 'list_charts', { spreadsheetId: aliceBook })).charts,
    ).toMatchObject([{ chartId: added.chartId, type: 'line', title: 'Line' }]);
    structured(await call(chartsOnly, 'delete_chart', { spreadsheetId: aliceBook, chartId: added.chartId }));
    const pivot = structured(
      await call(chartsOnly, 'set_pivot_table', {
        spreadsheetId: aliceBook,
        anchor: 'Sales!F1',
        source: 'Sales!A1:C4',
        rows: [{ column: 'month' }],
        values: [{ column: 'Alice north', summary: 'MAX' }],
      }),
    );
    expect(pivot).toMatchObject({
      anchor: 'Sales!F1',
      pivotTable: 'from Sales!A1:C4; rows Month; values MAX of Alice north',
      previous: null,
    });
    expect(pivot.changeId).toMatch(UUID);
    const shown = structured(
      await call(aliceKey, 'read_range', { spreadsheetId: aliceBook, range: 'Sales!F1:G5' }),
    );
    expect(shown.values).toEqual([
      ['Month', 'MAX of Alice north'],
      ['Feb', '12'],
      ['Jan', '10'],
      ['Mar', '15'],
      ['Grand Total', '15'],
    ]);
    structured(
      await call(chartsOnly, 'set_pivot_table', {
        spreadsheetId: aliceBook,
        anchor: 'Sales!F1',
        remove: true,
      }),
    );
  });

  it("alice's key and OAuth token cannot list, add, change or delete charts on bob's file; bob's chart is unchanged", async () => {
    const bobs = structured(
      await call(bobKey, 'add_chart', {
        spreadsheetId: bobBook,
        type: 'column',
        range: 'Sales!A1:C4',
        title: 'Bob',
      }),
    );
    const before = structured(await call(bobKey, 'list_charts', { spreadsheetId: bobBook })).charts;
    for (const client of [aliceKey, aliceOAuth]) {
      for (const [name, args] of [
        ['list_charts', {}],
        ['add_chart', { type: 'column', range: 'Sales!A1:C4', title: 'Mallory' }],
        ['update_chart', { chartId: bobs.chartId, title: 'Mallory' }],
        ['delete_chart', { chartId: bobs.chartId }],
        ['set_pivot_table', { anchor: 'Sales!F1', source: 'Sales!A1:C4', rows: [{ column: 'Month' }] }],
      ] as const) {
        const result = await call(client, name, { spreadsheetId: bobBook, ...args });
        const said = JSON.stringify(result);
        expect(result.isError, `${name}: ${said}`).toBe(true);
        expect(said, name).toMatch(/not found/i);
        expect(said, name).not.toMatch(/Bob north/);
      }
    }
    expect(structured(await call(bobKey, 'list_charts', { spreadsheetId: bobBook })).charts).toEqual(before);
  });

  it('refuses hostile and malformed arguments before Google is sent a write', async () => {
    const before = await writesAtGoogle();
    const attempts: Array<[string, Record<string, unknown>, RegExp]> = [
      [
        'add_chart',
        { type: 'column', range: 'Sales!A1:C4\'!; =IMPORTXML("x")' },
        /cannot read the cells|no tab/,
      ],
      ['add_chart', { type: 'column', range: 'Sales!A1:ZZZ9' }, /reaches outside the tab/],
      ['add_chart', { type: 'column', range: 'Sales!D1:D9' }, /is empty/],
      ['add_chart', { type: '<script>', range: 'Sales!A1:C4' }, /invalid arguments/],
      ['add_chart', { type: 'column', range: 'Sales!A1:C4', title: 'x'.repeat(10_000) }, /invalid arguments/],
      ['add_chart', { type: 'column', range: 'Sales!A1:C4', width: 1e9 }, /invalid arguments/],
      [
        'add_chart',
        { type: 'column', range: 'Sales!A1:C4', anchorCell: '__proto__' },
        /no tab named "__proto__"/,
      ],
      ['update_chart', { chartId: 2 ** 31 - 2, title: 'x' }, /there is no chart/],
      ['update_chart', { chartId: { $ne: 1 }, title: 'x' }, /invalid arguments/],
      ['delete_chart', { chartId: 1.5 }, /invalid arguments/],
      ['list_charts', { spreadsheetId: '../../etc/passwd' }, /invalid arguments/],
      [
        'set_pivot_table',
        { anchor: 'Sales!B2', source: 'Sales!A1:C4', rows: [{ column: 'Month' }] },
        /inside the source/,
      ],
      [
        'set_pivot_table',
        { anchor: 'Sales!F1', source: 'Sales!A1:C4', rows: [{ column: '__proto__' }] },
        /no column "__proto__" in the header row/,
      ],
      [
        'set_pivot_table',
        { anchor: 'Sales!F1', source: 'Sales!A1:C4', values: [{ column: 'Month', summary: 'CUSTOM' }] },
        /invalid arguments/,
      ],
    ];
    for (const [name, args, said] of attempts) {
      const result = await call(aliceKey, name, { spreadsheetId: aliceBook, ...args });
      expect(result.isError, `${name} ${JSON.stringify(args).slice(0, 80)}`).toBe(true);
      expect(textOf(result)).toMatch(said);
    }
    expect(await writesAtGoogle()).toBe(before);
  });
});
