import { randomUUID } from 'node:crypto';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { ChangeCredentialKind, createChangeJournalClient } from '@sheetgate/proto';
import { registeredTools } from '../../src/tools/registry.ts';
import type { McpUnderTest, SeedFile } from './stack.ts';

/** The spreadsheet each call works on: a "Plan" table and a "Notes" tab, and a CSV file. */
export const TOOL_CALL_BOOK: SeedFile[] = [
  {
    name: 'Quota book',
    sheets: [
      {
        title: 'Plan',
        values: [
          ['Item', 'Amount'],
          ['Rent', 1200],
          ['Food', 300],
          ['Travel', 150],
        ],
      },
      { title: 'Notes', values: [['a note']] },
    ],
  },
];

/**
 * What the change and delete calls of rules and range objects act on: put on the book through the
 * emulator directly (no tool, so no count) for the calls marked `ON_RULE_FIXTURES` below.
 */
export const RULE_FIXTURES = {
  namedRange: 'Items',
  protectedRangeId: 777,
  filterViewId: 555,
  table: 'Fixture',
  chartId: 888,
} as const;
function ruleFixtureRequests(planId: number): unknown[] {
  const items = { sheetId: planId, startRowIndex: 1, endRowIndex: 4, startColumnIndex: 0, endColumnIndex: 1 };
  return [
    {
      addConditionalFormatRule: {
        rule: {
          ranges: [{ ...items, startColumnIndex: 1, endColumnIndex: 2 }],
          booleanRule: {
            condition: { type: 'NUMBER_GREATER', values: [{ userEnteredValue: '1000' }] },
            format: { textFormat: { bold: true } },
          },
        },
      },
    },
    { addNamedRange: { namedRange: { name: RULE_FIXTURES.namedRange, range: items } } },
    {
      mergeCells: {
        range: { sheetId: planId, startRowIndex: 6, endRowIndex: 7, startColumnIndex: 0, endColumnIndex: 2 },
        mergeType: 'MERGE_ALL',
      },
    },
    {
      addProtectedRange: {
        protectedRange: { protectedRangeId: RULE_FIXTURES.protectedRangeId, range: items },
      },
    },
    { setBasicFilter: { filter: { range: { ...items, startRowIndex: 0, endColumnIndex: 2 } } } },
    {
      addFilterView: {
        filter: {
          filterViewId: RULE_FIXTURES.filterViewId,
          title: 'Big',
          range: { ...items, endColumnIndex: 2 },
        },
      },
    },
    {
      addTable: {
        table: { name: RULE_FIXTURES.table, range: { ...items, startRowIndex: 0, endColumnIndex: 2 } },
      },
    },
    {
      addChart: {
        chart: {
          chartId: RULE_FIXTURES.chartId,
          spec: {
            basicChart: {
              chartType: 'COLUMN',
              headerCount: 1,
              domains: [{ domain: { sourceRange: { sources: [{ ...items, startRowIndex: 0 }] } } }],
              series: [
                {
                  series: {
                    sourceRange: {
                      sources: [{ ...items, startRowIndex: 0, startColumnIndex: 1, endColumnIndex: 2 }],
                    },
                  },
                },
              ],
            },
          },
          position: { overlayPosition: { anchorCell: { sheetId: planId, columnIndex: 3 } } },
        },
      },
    },
  ];
}

export interface ToolCallTarget {
  spreadsheetId: string;
  /** For the sharing and comment tools: a permission and a comment on the (Sheetgate-made) book. */
  permissionId?: string;
  commentId?: string;
  /** For trash_file: a copy of the book whose making is in the person's change journal. */
  madeFileId?: string;
  /** The "Plan" tab's and the "Notes" tab's sheetId. */
  planId: number;
  notesId: number;
}

/** Marks a call that acts on RULE_FIXTURES, put on its book before it runs. */
const ON_RULE_FIXTURES = 'on rule fixtures';
/** Marks a clean-up call: a repeated row on "Plan" and padded text on "Notes" are put there first. */
const ON_MESSY_DATA = 'on messy data';
/** Marks a call on a file the person made through Sheetgate (a copy_spreadsheet of the book). */
const ON_MADE_FILE = 'on a made file';
type ToolCall = [
  tool: string,
  args: Record<string, unknown>,
  needs?: typeof ON_RULE_FIXTURES | typeof ON_MESSY_DATA | typeof ON_MADE_FILE,
];

function messyDataRequests(planId: number, notesId: number): unknown[] {
  const text = (stringValue: string) => ({ userEnteredValue: { stringValue } });
  return [
    {
      updateCells: {
        start: { sheetId: planId, rowIndex: 4, columnIndex: 0 },
        rows: [{ values: [text('food'), { userEnteredValue: { numberValue: 300 } }] }],
        fields: 'userEnteredValue',
      },
    },
    {
      updateCells: {
        start: { sheetId: notesId, rowIndex: 1, columnIndex: 0 },
        rows: [{ values: [text('  a   padded note ')] }],
        fields: 'userEnteredValue',
      },
    },
  ];
}

/**
 * One ordinary call of every tool, on a fresh copy of TOOL_CALL_BOOK: what the Google requests
 * per tool are counted on (google-requests-per-tool.test.ts pins them; `pnpm bench` prints them).
 * Throws unless there is exactly one call for each registered tool, so a tool added to the registry
 * without a call here, or a call of a tool no longer registered, fails every test that uses it.
 */
export function oneCallOfEachTool(
  target: ToolCallTarget,
): Array<[tool: string, args: Record<string, unknown>]> {
  return everyToolCall(target).map(([tool, args]) => [tool, args]);
}

function everyToolCall(target: ToolCallTarget): ToolCall[] {
  const calls = toolCalls(target);
  const called = calls.map(([tool]) => tool);
  const registered = registeredTools().map((tool) => tool.name);
  const missing = registered.filter((name) => !called.includes(name));
  const stale = called.filter((name) => !registered.includes(name));
  const twice = called.filter((name, index) => called.indexOf(name) !== index);
  if (missing.length + stale.length + twice.length > 0)
    throw new Error(
      `every-tool-call.ts must call each registered tool once: missing ${missing.join(', ') || 'none'}; not registered ${stale.join(', ') || 'none'}; twice ${twice.join(', ') || 'none'}`,
    );
  return calls;
}

function toolCalls(target: ToolCallTarget): ToolCall[] {
  const {
    spreadsheetId,
    planId,
    notesId,
    permissionId = 'x',
    commentId = 'x',
    madeFileId = spreadsheetId,
  } = target;
  return [
    ['list_spreadsheets', {}],
    ['get_spreadsheet', { spreadsheetId }],
    ['read_range', { spreadsheetId, range: 'Plan!A1:B4' }],
    ['read_ranges', { spreadsheetId, ranges: ['Plan!A1:B2', 'Notes!A1'] }],
    ['find_in_spreadsheet', { spreadsheetId, query: 'Food' }],
    ['evaluate_formulas', { spreadsheetId, formulas: ['=SUM(Plan!B2:B4)'] }],
    ['read_records', { spreadsheetId, range: 'Plan' }],
    ['read_cell_details', { spreadsheetId, range: 'Plan!A1:B2' }],
    ['read_formats', { spreadsheetId, range: 'Plan!A1:B4' }],
    ['write_range', { spreadsheetId, range: 'Plan!B2', values: [[1300]] }],
    [
      'write_ranges',
      {
        spreadsheetId,
        data: [
          { range: 'Plan!B2', values: [[1300]] },
          { range: 'Notes!A2', values: [['b']] },
        ],
      },
    ],
    ['append_rows', { spreadsheetId, range: 'Plan!A:B', values: [['Books', 40]] }],
    ['clear_range', { spreadsheetId, range: 'Notes!A1' }],
    // The change journal: no Google request to list; undo of the clear just above (the
    // credential's last change) reads the cells it cleared and writes them back.
    ['list_changes', {}],
    ['undo_change', {}],
    ['set_notes', { spreadsheetId, notes: [{ range: 'Plan!A1', note: 'the items' }] }],
    ['insert_dimension', { spreadsheetId, sheetId: planId, dimension: 'ROWS', startIndex: 1, count: 1 }],
    ['delete_dimension', { spreadsheetId, sheetId: notesId, dimension: 'ROWS', startIndex: 0, endIndex: 1 }],
    ['add_sheet', { spreadsheetId, title: 'Extra' }],
    ['rename_sheet', { spreadsheetId, sheetId: notesId, title: 'Remarks' }],
    ['duplicate_sheet', { spreadsheetId, sheetId: planId, newTitle: 'Plan copy' }],
    ['delete_sheet', { spreadsheetId, sheetId: notesId }],
    ['format_range', { spreadsheetId, range: 'Plan!A1:B1', bold: true }],
    [
      'batch_update',
      { spreadsheetId, requests: [{ findReplace: { find: 'Rent', replacement: 'Lease', allSheets: true } }] },
    ],
    [
      'set_data_validation',
      { spreadsheetId, range: 'Plan!B2:B4', condition: 'NUMBER_GREATER_THAN_EQ', values: [0] },
    ],
    [
      'add_conditional_format',
      {
        spreadsheetId,
        ranges: ['Plan!B2:B4'],
        condition: 'NUMBER_GREATER',
        values: [1000],
        format: { backgroundColor: '#f4cccc' },
      },
    ],
    ['list_conditional_formats', { spreadsheetId }],
    [
      'update_conditional_format',
      { spreadsheetId, sheetId: planId, index: 0, condition: 'NUMBER_LESS', values: [100] },
      ON_RULE_FIXTURES,
    ],
    ['delete_conditional_format', { spreadsheetId, sheetId: planId, index: 0 }, ON_RULE_FIXTURES],
    ['add_named_range', { spreadsheetId, name: 'Amounts', range: 'Plan!B2:B4' }],
    ['list_named_ranges', { spreadsheetId }],
    [
      'update_named_range',
      { spreadsheetId, name: RULE_FIXTURES.namedRange, newName: 'Things' },
      ON_RULE_FIXTURES,
    ],
    ['delete_named_range', { spreadsheetId, name: RULE_FIXTURES.namedRange }, ON_RULE_FIXTURES],
    ['add_protected_range', { spreadsheetId, range: 'Notes', warningOnly: true }],
    ['list_protected_ranges', { spreadsheetId }],
    [
      'delete_protected_range',
      { spreadsheetId, protectedRangeId: RULE_FIXTURES.protectedRangeId },
      ON_RULE_FIXTURES,
    ],
    ['add_chart', { spreadsheetId, type: 'column', range: 'Plan!A1:B4', title: 'Spending' }],
    ['list_charts', { spreadsheetId }],
    [
      'update_chart',
      { spreadsheetId, chartId: RULE_FIXTURES.chartId, type: 'bar', title: 'Spending' },
      ON_RULE_FIXTURES,
    ],
    ['delete_chart', { spreadsheetId, chartId: RULE_FIXTURES.chartId }, ON_RULE_FIXTURES],
    [
      'set_pivot_table',
      {
        spreadsheetId,
        anchor: 'Notes!C1',
        source: 'Plan!A1:B4',
        rows: [{ column: 'Item' }],
        values: [{ column: 'Amount', summary: 'SUM' }],
      },
    ],
    [
      'set_basic_filter',
      {
        spreadsheetId,
        range: 'Plan!A1:B4',
        criteria: [{ column: 'B', condition: 'NUMBER_GREATER', values: [200] }],
      },
    ],
    ['clear_basic_filter', { spreadsheetId, sheetId: planId }, ON_RULE_FIXTURES],
    ['list_filters', { spreadsheetId }],
    ['add_filter_view', { spreadsheetId, title: 'Cheap', range: 'Plan!A1:B4', sort: [{ column: 'B' }] }],
    [
      'update_filter_view',
      { spreadsheetId, filterViewId: RULE_FIXTURES.filterViewId, title: 'Costly' },
      ON_RULE_FIXTURES,
    ],
    ['delete_filter_view', { spreadsheetId, filterViewId: RULE_FIXTURES.filterViewId }, ON_RULE_FIXTURES],
    [
      'add_table',
      { spreadsheetId, name: 'Budget', range: 'Plan!A1:B4', columns: [{}, { type: 'CURRENCY' }] },
    ],
    ['list_tables', { spreadsheetId }],
    ['update_table', { spreadsheetId, table: RULE_FIXTURES.table, newName: 'Spending' }, ON_RULE_FIXTURES],
    ['delete_table', { spreadsheetId, table: RULE_FIXTURES.table }, ON_RULE_FIXTURES],
    ['copy_range', { spreadsheetId, source: 'Plan!A1:B2', destination: 'Notes!C1' }],
    ['autofill', { spreadsheetId, source: 'Plan!B3:B4', direction: 'down', count: 2 }],
    ['sort_range', { spreadsheetId, range: 'Plan!A1:B4', sortBy: [{ column: 'B' }], headerRow: true }],
    ['find_replace', { spreadsheetId, find: 'Food', replacement: 'Groceries' }],
    ['remove_duplicates', { spreadsheetId, range: 'Plan', headerRow: true }, ON_MESSY_DATA],
    ['trim_whitespace', { spreadsheetId, range: 'Notes' }, ON_MESSY_DATA],
    ['change_case', { spreadsheetId, range: 'Plan!A2:A4', case: 'upper' }],
    ['merge_cells', { spreadsheetId, range: 'Notes!C1:D1' }],
    ['unmerge_cells', { spreadsheetId, range: 'Plan!A7:B7' }, ON_RULE_FIXTURES],
    ['freeze', { spreadsheetId, sheetId: planId, rows: 1 }],
    [
      'set_dimension_properties',
      { spreadsheetId, sheetId: planId, dimension: 'COLUMNS', startIndex: 0, endIndex: 2, fitToData: true },
    ],
    ['copy_sheet_to', { spreadsheetId, sheetId: planId, destinationSpreadsheetId: spreadsheetId }],
    ['create_spreadsheet', { title: 'New book' }],
    ['convert_file', { fileId: spreadsheetId, to: 'csv' }],
    ['list_folders', {}],
    ['search_spreadsheets', { query: 'Quota' }],
    ['copy_spreadsheet', { spreadsheetId }],
    ['create_folder', { name: 'Reports' }],
    ['list_folder_contents', {}],
    ['trash_file', { fileId: madeFileId }, ON_MADE_FILE],
    ['share_file', { fileId: spreadsheetId, emailAddress: 'carol@example.com', role: 'reader' }],
    ['list_permissions', { fileId: spreadsheetId }],
    ['update_permission', { fileId: spreadsheetId, permissionId, role: 'writer' }],
    ['remove_permission', { fileId: spreadsheetId, permissionId }],
    ['list_comments', { fileId: spreadsheetId }],
    ['add_comment', { fileId: spreadsheetId, content: 'Check the rent' }],
    ['reply_to_comment', { fileId: spreadsheetId, commentId, content: 'Checked' }],
    ['resolve_comment', { fileId: spreadsheetId, commentId }],
  ];
}

/**
 * What one call of each tool costs, by Google API method (docs/design.md §11.4). Where a tool makes
 * two or three requests the second is needed: a write's checks read before it (Sheets has no
 * conditional write); set_notes and format_range need the tab's sheetId (batchUpdate takes no
 * titles); find_in_spreadsheet needs the tabs' names and sizes; convert_file the file's type and
 * name, and an export comes here before it is uploaded. A structure write reads once more, just
 * before its batchUpdate, what the batchUpdate may change — the change journal's before-image, for
 * undo (journal/state/state-read.ts): a getByDataFilter of the ranges and tabs its requests name,
 * or a get when they name objects by id only or every tab (the after-image comes in the
 * batchUpdate's own response); add_sheet and duplicate_sheet read nothing more (the reply names the
 * new tab), nor does insert_dimension (the response names its tab). Every call that writes into (or
 * comments on) an existing spreadsheet first reads its owners, one Drive files.get
 * (guards/spreadsheet-owners.ts; kept a minute in service, none across calls in the test stack):
 * each call here is on a fresh copy, so each reads them.
 */
export const PINNED_GOOGLE_REQUESTS: RequestsPerTool = {
  list_spreadsheets: { 'drive.files.list': 1 },
  get_spreadsheet: { 'sheets.spreadsheets.get': 1 },
  read_range: { 'sheets.spreadsheets.values.get': 1 },
  read_ranges: { 'sheets.spreadsheets.values.batchGet': 1 },
  // The tabs' names and sizes, then both (1000 × 26) tabs in one values.batchGet of ≤ 100,000 cells.
  find_in_spreadsheet: { 'sheets.spreadsheets.get': 1, 'sheets.spreadsheets.values.batchGet': 1 },
  // The scratch tab added, written and read back in one batchUpdate, and deleted in another.
  evaluate_formulas: { 'sheets.spreadsheets.batchUpdate': 2 },
  // The tab's size, the header and the first window in one answer (FORMATTED_VALUE).
  read_records: { 'sheets.spreadsheets.get': 1 },
  // The tab's size comes with the cells.
  read_cell_details: { 'sheets.spreadsheets.get': 1 },
  // The formats, the tab's size and its merges in one answer.
  read_formats: { 'sheets.spreadsheets.get': 1 },
  // The formula and revision checks of a safe write are one batchGet.
  write_range: {
    'drive.files.get': 1,
    'sheets.spreadsheets.values.batchGet': 1,
    'sheets.spreadsheets.values.update': 1,
  },
  write_ranges: {
    'drive.files.get': 1,
    'sheets.spreadsheets.values.batchGet': 1,
    'sheets.spreadsheets.values.batchUpdate': 1,
  },
  append_rows: { 'drive.files.get': 1, 'sheets.spreadsheets.values.append': 1 },
  // The change journal's before-image of what is cleared.
  clear_range: {
    'drive.files.get': 1,
    'sheets.spreadsheets.values.clear': 1,
    'sheets.spreadsheets.values.get': 1,
  },
  list_changes: {},
  undo_change: { 'sheets.spreadsheets.values.batchGet': 1, 'sheets.spreadsheets.values.batchUpdate': 1 },
  // The second get is the change journal's before-image (the notes replaced).
  set_notes: { 'drive.files.get': 1, 'sheets.spreadsheets.get': 2, 'sheets.spreadsheets.batchUpdate': 1 },
  insert_dimension: { 'drive.files.get': 1, 'sheets.spreadsheets.batchUpdate': 1 },
  // The change journal keeps the removed cells: the tabs' titles, then the span's grid.
  delete_dimension: {
    'drive.files.get': 1,
    'sheets.spreadsheets.batchUpdate': 1,
    'sheets.spreadsheets.get': 2,
  },
  add_sheet: { 'drive.files.get': 1, 'sheets.spreadsheets.batchUpdate': 1 },
  rename_sheet: {
    'drive.files.get': 1,
    'sheets.spreadsheets.batchUpdate': 1,
    'sheets.spreadsheets.getByDataFilter': 1,
  },
  duplicate_sheet: { 'drive.files.get': 1, 'sheets.spreadsheets.batchUpdate': 1 },
  // The change journal keeps the tab: its size, then its grid, read before the delete.
  delete_sheet: { 'drive.files.get': 1, 'sheets.spreadsheets.batchUpdate': 1, 'sheets.spreadsheets.get': 2 },
  format_range: {
    'drive.files.get': 1,
    'sheets.spreadsheets.get': 1,
    'sheets.spreadsheets.batchUpdate': 1,
    'sheets.spreadsheets.getByDataFilter': 1,
  },
  batch_update: { 'drive.files.get': 1, 'sheets.spreadsheets.batchUpdate': 1, 'sheets.spreadsheets.get': 1 },
  // The editing tools read the tabs (ids, sizes, merges) to refuse a bad range before writing; an
  // find_replace in every tab needs only one request.
  copy_range: {
    'drive.files.get': 1,
    'sheets.spreadsheets.get': 1,
    'sheets.spreadsheets.batchUpdate': 1,
    'sheets.spreadsheets.getByDataFilter': 1,
  },
  autofill: {
    'drive.files.get': 1,
    'sheets.spreadsheets.get': 1,
    'sheets.spreadsheets.batchUpdate': 1,
    'sheets.spreadsheets.getByDataFilter': 1,
  },
  sort_range: {
    'drive.files.get': 1,
    'sheets.spreadsheets.get': 1,
    'sheets.spreadsheets.batchUpdate': 1,
    'sheets.spreadsheets.getByDataFilter': 1,
  },
  find_replace: { 'drive.files.get': 1, 'sheets.spreadsheets.batchUpdate': 1, 'sheets.spreadsheets.get': 1 },
  // Removing duplicates and changing case read the range's cells too (a header's names, the rows
  // holding data, the text to change); trimming leaves the text to Google.
  remove_duplicates: {
    'drive.files.get': 1,
    'sheets.spreadsheets.get': 2,
    'sheets.spreadsheets.batchUpdate': 1,
    'sheets.spreadsheets.getByDataFilter': 1,
  },
  trim_whitespace: {
    'drive.files.get': 1,
    'sheets.spreadsheets.get': 1,
    'sheets.spreadsheets.batchUpdate': 1,
    'sheets.spreadsheets.getByDataFilter': 1,
  },
  change_case: {
    'drive.files.get': 1,
    'sheets.spreadsheets.get': 2,
    'sheets.spreadsheets.batchUpdate': 1,
    'sheets.spreadsheets.getByDataFilter': 1,
  },
  merge_cells: {
    'drive.files.get': 1,
    'sheets.spreadsheets.get': 1,
    'sheets.spreadsheets.batchUpdate': 1,
    'sheets.spreadsheets.getByDataFilter': 1,
  },
  unmerge_cells: {
    'drive.files.get': 1,
    'sheets.spreadsheets.get': 1,
    'sheets.spreadsheets.batchUpdate': 1,
    'sheets.spreadsheets.getByDataFilter': 1,
  },
  freeze: {
    'drive.files.get': 1,
    'sheets.spreadsheets.get': 1,
    'sheets.spreadsheets.batchUpdate': 1,
    'sheets.spreadsheets.getByDataFilter': 1,
  },
  set_dimension_properties: {
    'drive.files.get': 1,
    'sheets.spreadsheets.get': 1,
    'sheets.spreadsheets.batchUpdate': 1,
    'sheets.spreadsheets.getByDataFilter': 1,
  },
  copy_sheet_to: { 'drive.files.get': 1, 'sheets.spreadsheets.sheets.copyTo': 1 },
  // The tabs (and the rules or objects a change checks against), then the write.
  set_data_validation: {
    'drive.files.get': 1,
    'sheets.spreadsheets.get': 1,
    'sheets.spreadsheets.batchUpdate': 1,
    'sheets.spreadsheets.getByDataFilter': 1,
  },
  add_conditional_format: {
    'drive.files.get': 1,
    'sheets.spreadsheets.get': 1,
    'sheets.spreadsheets.batchUpdate': 1,
    'sheets.spreadsheets.getByDataFilter': 1,
  },
  list_conditional_formats: { 'sheets.spreadsheets.get': 1 },
  update_conditional_format: {
    'drive.files.get': 1,
    'sheets.spreadsheets.get': 1,
    'sheets.spreadsheets.batchUpdate': 1,
    'sheets.spreadsheets.getByDataFilter': 1,
  },
  delete_conditional_format: {
    'drive.files.get': 1,
    'sheets.spreadsheets.get': 1,
    'sheets.spreadsheets.batchUpdate': 1,
    'sheets.spreadsheets.getByDataFilter': 1,
  },
  add_named_range: {
    'drive.files.get': 1,
    'sheets.spreadsheets.get': 2,
    'sheets.spreadsheets.batchUpdate': 1,
  },
  list_named_ranges: { 'sheets.spreadsheets.get': 1 },
  update_named_range: {
    'drive.files.get': 1,
    'sheets.spreadsheets.get': 2,
    'sheets.spreadsheets.batchUpdate': 1,
  },
  delete_named_range: {
    'drive.files.get': 1,
    'sheets.spreadsheets.get': 2,
    'sheets.spreadsheets.batchUpdate': 1,
  },
  add_protected_range: {
    'drive.files.get': 1,
    'sheets.spreadsheets.get': 1,
    'sheets.spreadsheets.batchUpdate': 1,
    'sheets.spreadsheets.getByDataFilter': 1,
  },
  list_protected_ranges: { 'sheets.spreadsheets.get': 1 },
  delete_protected_range: {
    'drive.files.get': 1,
    'sheets.spreadsheets.get': 2,
    'sheets.spreadsheets.batchUpdate': 1,
  },
  // A new chart's range is read (values.get) so that an empty one, or one without numbers, is refused.
  add_chart: {
    'drive.files.get': 1,
    'sheets.spreadsheets.get': 1,
    'sheets.spreadsheets.values.get': 1,
    'sheets.spreadsheets.batchUpdate': 1,
    'sheets.spreadsheets.getByDataFilter': 1,
  },
  // The tabs, the anchor's pivot table, then the source's header row; the journal's before-image.
  set_pivot_table: {
    'drive.files.get': 1,
    'sheets.spreadsheets.get': 2,
    'sheets.spreadsheets.values.batchGet': 1,
    'sheets.spreadsheets.getByDataFilter': 1,
    'sheets.spreadsheets.batchUpdate': 1,
  },
  list_charts: { 'sheets.spreadsheets.get': 1 },
  update_chart: { 'drive.files.get': 1, 'sheets.spreadsheets.get': 2, 'sheets.spreadsheets.batchUpdate': 1 },
  delete_chart: { 'drive.files.get': 1, 'sheets.spreadsheets.get': 2, 'sheets.spreadsheets.batchUpdate': 1 },
  set_basic_filter: {
    'drive.files.get': 1,
    'sheets.spreadsheets.get': 1,
    'sheets.spreadsheets.batchUpdate': 1,
    'sheets.spreadsheets.getByDataFilter': 1,
  },
  clear_basic_filter: {
    'drive.files.get': 1,
    'sheets.spreadsheets.get': 1,
    'sheets.spreadsheets.batchUpdate': 1,
    'sheets.spreadsheets.getByDataFilter': 1,
  },
  list_filters: { 'sheets.spreadsheets.get': 1 },
  add_filter_view: {
    'drive.files.get': 1,
    'sheets.spreadsheets.get': 1,
    'sheets.spreadsheets.batchUpdate': 1,
    'sheets.spreadsheets.getByDataFilter': 1,
  },
  update_filter_view: {
    'drive.files.get': 1,
    'sheets.spreadsheets.get': 2,
    'sheets.spreadsheets.batchUpdate': 1,
  },
  delete_filter_view: {
    'drive.files.get': 1,
    'sheets.spreadsheets.get': 2,
    'sheets.spreadsheets.batchUpdate': 1,
  },
  add_table: {
    'drive.files.get': 1,
    'sheets.spreadsheets.get': 1,
    'sheets.spreadsheets.batchUpdate': 1,
    'sheets.spreadsheets.getByDataFilter': 1,
  },
  list_tables: { 'sheets.spreadsheets.get': 1 },
  update_table: {
    'drive.files.get': 1,
    'sheets.spreadsheets.get': 1,
    'sheets.spreadsheets.batchUpdate': 1,
    'sheets.spreadsheets.getByDataFilter': 1,
  },
  delete_table: { 'drive.files.get': 1, 'sheets.spreadsheets.get': 2, 'sheets.spreadsheets.batchUpdate': 1 },
  // The change journal keeps the new file's modifiedTime: undo refuses to trash it once changed since.
  create_spreadsheet: { 'sheets.spreadsheets.create': 1, 'drive.files.get': 1 },
  convert_file: { 'drive.files.get': 1, 'drive.files.export': 1, 'drive.files.create': 1 },
  list_folders: { 'drive.files.list': 1 },
  search_spreadsheets: { 'drive.files.list': 1 },
  copy_spreadsheet: { 'drive.files.copy': 1 },
  create_folder: { 'drive.files.create': 1 },
  list_folder_contents: { 'drive.files.list': 1 },
  // The file's name, type and whether it is in the trash already (a folder's items: one list more).
  trash_file: { 'drive.files.get': 1, 'drive.files.update': 1 },
  // The change journal keeps what the grantee had before (sharing again replaces the role).
  share_file: { 'drive.permissions.list': 1, 'drive.permissions.create': 1 },
  list_permissions: { 'drive.permissions.list': 1 },
  // The change journal keeps the permission before the change (update) or removal (delete).
  update_permission: { 'drive.permissions.get': 1, 'drive.permissions.update': 1 },
  remove_permission: { 'drive.permissions.get': 1, 'drive.permissions.delete': 1 },
  list_comments: { 'drive.comments.list': 1 },
  add_comment: { 'drive.files.get': 1, 'drive.comments.create': 1 },
  // The change journal keeps the comment's text and whether it was resolved before the reply.
  reply_to_comment: { 'drive.files.get': 1, 'drive.comments.get': 1, 'drive.replies.create': 1 },
  resolve_comment: { 'drive.comments.get': 1, 'drive.replies.create': 1 },
};

/**
 * What the sharing set's tools act on: under drive.file only a file Sheetgate made, so the book is
 * copied with the person's own token (no tool, so no count), and given a permission and a comment.
 */
const SHEETGATE_FILE_TOOLS = new Set(
  registeredTools()
    .filter((tool) => tool.toolset === 'sharing')
    .map((tool) => tool.name),
);

async function sheetgateMadeCopy(
  emulatorUrl: string,
  target: ToolCallTarget,
  token: string,
): Promise<ToolCallTarget> {
  const post = async (path: string, body: unknown) => {
    const response = await fetch(`${emulatorUrl}/drive/v3/files/${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (!response.ok) throw new Error(`the sharing fixtures were refused: ${await response.text()}`);
    return (await response.json()) as { id: string };
  };
  const copy = await post(`${target.spreadsheetId}/copy`, {});
  const permission = await post(`${copy.id}/permissions?sendNotificationEmail=false&fields=id`, {
    type: 'user',
    role: 'reader',
    emailAddress: 'dave@example.com',
  });
  const comment = await post(`${copy.id}/comments?fields=id`, { content: 'Rent?' });
  return { ...target, spreadsheetId: copy.id, permissionId: permission.id, commentId: comment.id };
}

/**
 * A copy of the book as copy_spreadsheet makes one: copied with the person's Google token for
 * Sheetgate's app, and its making journaled in auth as the MCP service journals it (no tool call,
 * which the service's own request counts would show).
 */
async function madeThroughSheetgate(
  stack: BookStack,
  userId: string,
  spreadsheetId: string,
  token: string,
): Promise<string> {
  const response = await fetch(`${stack.emulatorUrl}/drive/v3/files/${spreadsheetId}/copy`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'Made copy' }),
  });
  if (!response.ok) throw new Error(`the made file was refused: ${await response.text()}`);
  const copy = (await response.json()) as { id: string };
  const journal = createChangeJournalClient({ address: stack.grpcAddress, serviceToken: stack.serviceToken });
  try {
    await journal.recordChanges({
      changes: [
        {
          id: randomUUID(),
          userId,
          occurredAtMs: Date.now(),
          credentialKind: ChangeCredentialKind.CHANGE_CREDENTIAL_KIND_APP,
          credentialId: 'made-file-fixture',
          tool: 'copy_spreadsheet',
          spreadsheetId: copy.id,
          ranges: ['Made copy'],
          cells: 0,
          rows: 0,
          undoable: false,
          undoUnavailableReason: 'a test fixture',
          payload: Buffer.alloc(0),
          undoesChangeId: '',
          summary: 'copied the book as "Made copy"',
        },
      ],
    });
  } finally {
    journal.close();
  }
  return copy.id;
}

/** Google requests by API method, per tool. */
export type RequestsPerTool = Record<string, Record<string, number>>;

type BookStack = Pick<
  McpUnderTest,
  'emulatorUrl' | 'seed' | 'googleAccessToken' | 'grpcAddress' | 'serviceToken'
>;

/**
 * A fresh copy of TOOL_CALL_BOOK for `tool`'s one call (with the rule fixtures when the call acts
 * on them; a Sheetgate-made copy for the sharing tools), put there through the emulator directly
 * (no tool, so no count; for trash_file a copy journaled as copy_spreadsheet's), and that call.
 */
export async function freshCallOf(
  stack: BookStack,
  userId: string,
  tool: string,
): Promise<{ target: ToolCallTarget; args: Record<string, unknown> }> {
  const [spreadsheetId] = await stack.seed('alice@example.com', TOOL_CALL_BOOK);
  const token = await stack.googleAccessToken(userId);
  const book = (await (
    await fetch(`${stack.emulatorUrl}/v4/spreadsheets/${spreadsheetId}?fields=sheets.properties`, {
      headers: { authorization: `Bearer ${token}` },
    })
  ).json()) as { sheets: Array<{ properties: { sheetId: number; title: string } }> };
  const idOf = (title: string) =>
    book.sheets.find((sheet) => sheet.properties.title === title)!.properties.sheetId;
  const needs = everyToolCall({ spreadsheetId: 'x', planId: 0, notesId: 1 }).find(([name]) => name === tool);
  if (!needs) throw new Error(`no call of ${tool} in every-tool-call.ts`);
  if (needs[2] === ON_RULE_FIXTURES) {
    const response = await fetch(`${stack.emulatorUrl}/v4/spreadsheets/${spreadsheetId}:batchUpdate`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ requests: ruleFixtureRequests(idOf('Plan')) }),
    });
    if (!response.ok) throw new Error(`the rule fixtures were refused: ${await response.text()}`);
  }
  if (needs[2] === ON_MESSY_DATA) {
    const response = await fetch(`${stack.emulatorUrl}/v4/spreadsheets/${spreadsheetId}:batchUpdate`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ requests: messyDataRequests(idOf('Plan'), idOf('Notes')) }),
    });
    if (!response.ok) throw new Error(`the messy data was refused: ${await response.text()}`);
  }
  const plain = { spreadsheetId: spreadsheetId!, planId: idOf('Plan'), notesId: idOf('Notes') };
  const target = SHEETGATE_FILE_TOOLS.has(tool)
    ? await sheetgateMadeCopy(stack.emulatorUrl, plain, token!)
    : needs[2] === ON_MADE_FILE
      ? { ...plain, madeFileId: await madeThroughSheetgate(stack, userId, plain.spreadsheetId, token!) }
      : plain;
  const [, args] = everyToolCall(target).find(([name]) => name === tool)!;
  return { target, args };
}

/**
 * Calls each tool once (`oneCallOfEachTool`, each on a fresh copy of the book) through `callTool`
 * and answers the Google requests each call made, by API method, as the emulator counted them.
 * Throws when a call fails: a failed call's count says nothing.
 */
export async function measureGoogleRequestsPerTool(
  stack: BookStack,
  userId: string,
  callTool: (name: string, args: Record<string, unknown>) => Promise<CallToolResult>,
): Promise<RequestsPerTool> {
  const emulatorCounts = async (): Promise<Record<string, number>> => {
    const stats = (await (await fetch(`${stack.emulatorUrl}/__emulator/stats`)).json()) as {
      methods: Record<string, { attempts: number }>;
    };
    return Object.fromEntries(Object.entries(stats.methods).map(([method, each]) => [method, each.attempts]));
  };
  const measured: RequestsPerTool = {};
  for (const [tool] of everyToolCall({ spreadsheetId: 'x', planId: 0, notesId: 1 })) {
    const { args } = await freshCallOf(stack, userId, tool);
    const before = await emulatorCounts();
    const result = await callTool(tool, args);
    if (result.isError) throw new Error(`${tool} failed: ${JSON.stringify(result.content)}`);
    const after = await emulatorCounts();
    measured[tool] = Object.fromEntries(
      Object.entries(after)
        .map(([method, total]) => [method, total - (before[method] ?? 0)] as const)
        .filter(([, delta]) => delta > 0),
    );
  }
  return measured;
}
