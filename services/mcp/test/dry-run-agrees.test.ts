import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { splitRange } from '../src/tools/kit/a1.ts';
import { registeredTools } from '../src/tools/registry.ts';
import { freshCallOf, type ToolCallTarget } from './support/every-tool-call.ts';
import { type McpUnderTest, startMcpUnderTest } from './support/stack.ts';
import { type Answer, callTool } from './support/tool-answers.ts';

// A dry run checks what the real call would (issue 35): for every write tool, bad variants of its
// ordinary call (every-tool-call.ts), each on a fresh book, called first with `dryRun: true` and
// then for real on the same book (the dry run changed nothing). The two must agree: both succeed,
// or both fail with the same message. Through the MCP SDK client against real mcp and auth
// processes and the Google emulator.

type Args = Record<string, unknown>;
type Variant = [name: string, make: (args: Args, target: ToolCallTarget) => Args];

/** No tab, chart, filter view or protected range has this id; no file this name. */
const NO_ID = 987_654;

/** The arguments that hold an A1 range, as a path into the call's arguments. */
const RANGE_KEYS = ['range', 'source', 'destination', 'anchorCell'] as const;
const RANGE_LIST_KEYS = ['ranges'] as const;
const RANGE_ITEM_LISTS = ['data', 'notes'] as const;

/** `args` with every range argument given by `change` (one variant changes all of them). */
function everyRange(args: Args, change: (range: string) => string): Args | undefined {
  let changed = false;
  const next: Args = { ...args };
  for (const key of RANGE_KEYS)
    if (typeof args[key] === 'string') {
      next[key] = change(args[key] as string);
      changed = true;
    }
  for (const key of RANGE_LIST_KEYS)
    if (Array.isArray(args[key])) {
      next[key] = (args[key] as string[]).map(change);
      changed = true;
    }
  for (const key of RANGE_ITEM_LISTS)
    if (Array.isArray(args[key])) {
      next[key] = (args[key] as Args[]).map((item) => ({ ...item, range: change(item.range as string) }));
      changed = true;
    }
  return changed ? next : undefined;
}

/** The same cells on a tab that is not there. */
const onUnknownTab = (range: string) => `Nowhere!${splitRange(range).cells || 'A1'}`;
/** Cells of the same tab from row 2,000,000 (past any grid) or from column ZZZ (past this one's). */
const pastRows = (range: string) => `${tabOf(range)}!A2000000:B2000001`;
const pastColumns = (range: string) => `${tabOf(range)}!ZZZ1:ZZZ2`;
function tabOf(range: string): string {
  return splitRange(range).sheetTitle ?? 'Plan';
}

/** Variants every tool gets that has the argument they change. */
function genericVariants(ordinary: Args): Variant[] {
  const variants: Variant[] = [];
  const ranged = (name: string, change: (range: string) => string) => {
    if (everyRange(ordinary, change)) variants.push([name, (args) => everyRange(args, change)!]);
  };
  ranged('a range on an unknown tab', onUnknownTab);
  ranged('a range from row 2,000,000', pastRows);
  ranged('a range in column ZZZ', pastColumns);
  if ('sheetId' in ordinary) {
    variants.push(['a sheetId of no tab', (args) => ({ ...args, sheetId: NO_ID })]);
    variants.push(['a tab name of no tab', (args) => ({ ...args, sheetId: 'Nowhere' })]);
  }
  for (const [key, value] of Object.entries(ordinary))
    if (Array.isArray(value) && value.length > 0)
      variants.push([`an empty ${key}`, (args) => ({ ...args, [key]: [] })]);
  if (Array.isArray(ordinary.values) && Array.isArray(ordinary.values[0]))
    variants.push([
      'values past the most one call writes',
      (args) => ({ ...args, values: Array.from({ length: 100_001 }, () => [1]) }),
    ]);
  return variants;
}

/** A 2 × 3 block: rows of three values. */
const TWO_BY_THREE = [
  [1, 2, 3],
  [4, 5, 6],
];

/** Variants of one tool: inputs only it takes. */
const TOOL_VARIANTS: Record<string, Variant[]> = {
  write_range: [
    ['a 2×3 block into A1:B2', (args) => ({ ...args, range: 'Plan!N1:O2', values: TWO_BY_THREE })],
    [
      'three rows into two',
      (args) => ({ ...args, range: 'Plan!A1:C2', values: [...TWO_BY_THREE, [7, 8, 9]] }),
    ],
    ['a 2×3 block into a whole column', (args) => ({ ...args, range: 'Plan!C:C', values: TWO_BY_THREE })],
    [
      'valuesOnly: a result of three rows into two',
      (args) => ({ ...args, range: 'Plan!N1:N2', values: [['=SEQUENCE(3)']], valuesOnly: true }),
    ],
    [
      'valuesOnly: an error result',
      (args) => ({ ...args, range: 'Plan!N1', values: [['=1/0']], valuesOnly: true }),
    ],
  ],
  write_ranges: [
    [
      'a 2×3 block into A1:B2',
      (args) => ({
        ...args,
        data: [...(args.data as Args[]), { range: 'Notes!N1:O2', values: TWO_BY_THREE }],
      }),
    ],
  ],
  append_rows: [
    ['a 2×3 block into A1:B2', (args) => ({ ...args, range: 'Plan!A1:B2', values: TWO_BY_THREE })],
  ],
  set_notes: [
    ['a note on a tab that is not there', (args) => ({ ...args, notes: [{ range: 'Nope!A1', note: 'x' }] })],
  ],
  update_conditional_format: [['a rule index of no rule', (args) => ({ ...args, index: 99 })]],
  delete_conditional_format: [['a rule index of no rule', (args) => ({ ...args, index: 99 })]],
  update_named_range: [
    ['a name of no named range', (args) => ({ ...args, name: 'Nope' })],
    ['a range on an unknown tab', (args) => ({ ...args, range: 'Nowhere!A1:A3' })],
    ['a range from row 2,000,000', (args) => ({ ...args, range: 'Plan!A2000000:A2000002' })],
  ],
  delete_named_range: [
    ['a name of no named range', (args) => ({ ...args, name: 'Nope' })],
    ['an empty name', (args) => ({ ...args, name: '' })],
  ],
  add_named_range: [['a name that is taken', (args) => ({ ...args, name: 'Items' })]],
  delete_protected_range: [
    ['a protectedRangeId of none', (args) => ({ ...args, protectedRangeId: NO_ID })],
    ['a negative protectedRangeId', (args) => ({ ...args, protectedRangeId: -1 })],
  ],
  add_chart: [
    ['a column not in the header', (args) => ({ ...args, columns: ['Item', 'Nope'] })],
    ['an anchor cell on an unknown tab', (args) => ({ ...args, anchorCell: 'Nowhere!F1' })],
  ],
  update_chart: [
    ['a chartId of no chart', (args) => ({ ...args, chartId: NO_ID })],
    ['a range on an unknown tab', (args) => ({ ...args, range: 'Nowhere!A1:B4' })],
  ],
  delete_chart: [
    ['a chartId of no chart', (args) => ({ ...args, chartId: NO_ID })],
    ['a negative chartId', (args) => ({ ...args, chartId: -1 })],
  ],
  set_pivot_table: [
    ['a column not in the header', (args) => ({ ...args, rows: [{ column: 'Nope' }] })],
    ['an anchor on an unknown tab', (args) => ({ ...args, anchor: 'Nowhere!F1' })],
    ['an anchor inside the source', (args) => ({ ...args, anchor: 'Plan!B2' })],
    ['a source of one row', (args) => ({ ...args, source: 'Plan!A1:B1' })],
    [
      'removing where there is none',
      (args) => ({ spreadsheetId: args.spreadsheetId, anchor: 'Plan!H1', remove: true }),
    ],
  ],
  set_basic_filter: [
    [
      'a criteria column outside the range',
      (args) => ({ ...args, criteria: [{ column: 'Q', condition: 'NUMBER_GREATER', values: [1] }] }),
    ],
    ['a sort column outside the range', (args) => ({ ...args, sort: [{ column: 'Q' }] })],
  ],
  add_filter_view: [['a sort column outside the range', (args) => ({ ...args, sort: [{ column: 'Q' }] })]],
  update_filter_view: [
    ['a filterViewId of no filter view', (args) => ({ ...args, filterViewId: NO_ID })],
    ['a range on an unknown tab', (args) => ({ ...args, range: 'Nowhere!A1:B4' })],
  ],
  delete_filter_view: [
    ['a filterViewId of no filter view', (args) => ({ ...args, filterViewId: NO_ID })],
    ['a negative filterViewId', (args) => ({ ...args, filterViewId: -1 })],
  ],
  add_table: [['more column types than columns', (args) => ({ ...args, columns: [{}, {}, {}] })]],
  update_table: [
    ['a table of no name', (args) => ({ ...args, table: 'Nope' })],
    ['a range on an unknown tab', (args) => ({ ...args, range: 'Nowhere!A1:B4' })],
  ],
  delete_table: [
    ['a table of no name', (args) => ({ ...args, table: 'Nope' })],
    ['an empty table name', (args) => ({ ...args, table: '' })],
  ],
  sort_range: [['a sort column outside the range', (args) => ({ ...args, sortBy: [{ column: 'Q' }] })]],
  remove_duplicates: [['a column outside the range', (args) => ({ ...args, columns: ['ZZ'] })]],
  autofill: [['a count past the grid', (args) => ({ ...args, count: 2_000_000 })]],
  insert_dimension: [['a start past the grid', (args) => ({ ...args, startIndex: 5_000 })]],
  delete_dimension: [['an end past the grid', (args) => ({ ...args, endIndex: 5_000 })]],
  set_dimension_properties: [['an end past the grid', (args) => ({ ...args, endIndex: 5_000 })]],
  freeze: [['more frozen rows than the tab has', (args) => ({ ...args, rows: 5_000 })]],
  add_sheet: [
    ['a title that is taken', (args) => ({ ...args, title: 'Plan' })],
    ['an index past the tabs', (args) => ({ ...args, index: 50 })],
  ],
  rename_sheet: [['a title that is taken', (args) => ({ ...args, title: 'Plan' })]],
  duplicate_sheet: [['a title that is taken', (args) => ({ ...args, newTitle: 'Notes' })]],
  delete_sheet: [],
  copy_range: [['a destination on an unknown tab', (args) => ({ ...args, destination: 'Nowhere!C1' })]],
  copy_sheet_to: [
    ['a destination that is no spreadsheet', (args) => ({ ...args, destinationSpreadsheetId: 'nope' })],
  ],
  find_replace: [
    ['a range on an unknown tab', (args) => ({ ...args, range: 'Nowhere!A1:B4' })],
    ['a range from row 2,000,000', (args) => ({ ...args, range: 'Plan!A2000000:B2000001' })],
  ],
  batch_update: [
    [
      'a request on a sheetId of no tab',
      (args) => ({
        ...args,
        requests: [
          { updateSheetProperties: { properties: { sheetId: NO_ID, title: 'x' }, fields: 'title' } },
        ],
      }),
    ],
    // Not a bad call: a tab the batch adds may be named by the requests after it, in both.
    [
      'a request on the tab the batch adds',
      (args) => ({
        ...args,
        requests: [
          { addSheet: { properties: { sheetId: NO_ID, title: 'Added' } } },
          { updateSheetProperties: { properties: { sheetId: NO_ID, title: 'Renamed' }, fields: 'title' } },
        ],
      }),
    ],
    [
      'a request past the grid',
      (args) => ({
        ...args,
        requests: [
          {
            repeatCell: {
              range: { sheetId: 0, startRowIndex: 2_000_000, endRowIndex: 2_000_001 },
              cell: {},
              fields: 'userEnteredValue',
            },
          },
        ],
      }),
    ],
  ],
  create_spreadsheet: [
    ['values for a tab not named', (args) => ({ ...args, sheetTitles: ['A'], values: [[1]] })],
    ['a folder that is not there', (args) => ({ ...args, folderId: 'nope' })],
  ],
  convert_file: [
    ['a file that is not there', (args) => ({ ...args, fileId: 'nope' })],
    ['a folder that is not there', (args) => ({ ...args, folderId: 'nope' })],
  ],
  copy_spreadsheet: [
    ['a spreadsheet that is not there', (args) => ({ ...args, spreadsheetId: 'nope' })],
    ['a folder that is not there', (args) => ({ ...args, folderId: 'nope' })],
  ],
  create_folder: [
    ['a parent that is not there', (args) => ({ ...args, parentId: 'nope' })],
    ['an empty name', (args) => ({ ...args, name: '' })],
  ],
  trash_file: [
    ['a file that is not there', (args) => ({ ...args, fileId: 'no-such-file' })],
    ['a file not made through Sheetgate', (args, target) => ({ ...args, fileId: target.spreadsheetId })],
  ],
  share_file: [
    ['a file that is not there', (args) => ({ ...args, fileId: 'nope' })],
    ['a user with no email address', ({ emailAddress: _, ...args }) => args],
  ],
  update_permission: [
    ['a permission that is not there', (args) => ({ ...args, permissionId: 'nope' })],
    ['a file that is not there', (args) => ({ ...args, fileId: 'nope' })],
  ],
  remove_permission: [
    ['a permission that is not there', (args) => ({ ...args, permissionId: 'nope' })],
    ['a file that is not there', (args) => ({ ...args, fileId: 'nope' })],
  ],
  add_comment: [
    ['a file that is not there', (args) => ({ ...args, fileId: 'nope' })],
    ['an empty comment', (args) => ({ ...args, content: '' })],
  ],
  reply_to_comment: [
    ['a comment that is not there', (args) => ({ ...args, commentId: 'nope' })],
    ['a file that is not there', (args) => ({ ...args, fileId: 'nope' })],
  ],
  resolve_comment: [
    ['a comment that is not there', (args) => ({ ...args, commentId: 'nope' })],
    ['a file that is not there', (args) => ({ ...args, fileId: 'nope' })],
  ],
};

/**
 * What only Google refuses, so a dry run approves and the real call fails: `tool: variant` and why
 * the dry run cannot know.
 */
const GOOGLE_ONLY: Record<string, string> = {
  'append_rows: a range in column ZZZ':
    'where appended rows land is known only to Google’s table detection, so a block that runs past the last column (ZZZ) is not seen',
  'batch_update: a request past the grid':
    'an earlier request of the batch may grow the tab, so a dry run does not size each request’s ranges against the grid',
};

const walked = registeredTools().filter(
  (tool) =>
    tool.scope === 'sheets:write' && tool.name !== 'undo_change' && 'dryRun' in tool.inputSchema.shape,
);

let stack: McpUnderTest;
let client: Client;
let userId: string;

beforeAll(async () => {
  stack = await startMcpUnderTest();
  ({ userId } = await stack.signIn('alice@example.com'));
  client = await stack.connectClient(userId, 'dry-run-agrees-test');
}, 120_000);
afterAll(async () => {
  await client?.close();
  await stack?.stop();
});

/** An answer as the comparison reads it: success, or the error's text. */
function outcome(answer: Answer): string {
  return answer.isError ? `error: ${answer.text}` : 'ok';
}

describe('a dry run and the real call', () => {
  it('walk every write tool that takes dryRun, each with at least two bad variants', async () => {
    expect(walked.length).toBeGreaterThan(40);
    const few: Record<string, number> = {};
    for (const tool of walked) {
      const { args } = await freshCallOf(stack, userId, tool.name);
      const count = genericVariants(args).length + (TOOL_VARIANTS[tool.name]?.length ?? 0);
      if (count < 2) few[tool.name] = count;
    }
    expect(few).toEqual({});
  }, 120_000);

  it.each(walked.map((tool) => tool.name))(
    'agree on bad variants of %s',
    async (tool) => {
      const { args: ordinary } = await freshCallOf(stack, userId, tool);
      const variants = [...genericVariants(ordinary), ...(TOOL_VARIANTS[tool] ?? [])];
      const disagreements: Record<string, { dryRun: string; real: string }> = {};
      const googleOnlySeen: string[] = [];
      for (const [name, make] of variants) {
        const { args, target } = await freshCallOf(stack, userId, tool);
        const variant = make(args, target);
        const dry = outcome(await callTool(client, tool, { ...variant, dryRun: true }));
        const real = outcome(await callTool(client, tool, variant));
        const key = `${tool}: ${name}`;
        if (key in GOOGLE_ONLY) {
          googleOnlySeen.push(key);
          expect({ key, dry, realFailed: real !== 'ok' }).toEqual({ key, dry: 'ok', realFailed: true });
        } else if (dry !== real)
          disagreements[name] = { dryRun: dry.slice(0, 400), real: real.slice(0, 400) };
      }
      expect(disagreements).toEqual({});
    },
    120_000,
  );
});
