import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { freePort } from '@sheetgate/test-harness';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registeredTools } from '../src/tools/registry.ts';
import {
  measureGoogleRequestsPerTool,
  oneCallOfEachTool,
  type RequestsPerTool,
} from './support/every-tool-call.ts';
import { type McpUnderTest, startMcpUnderTest } from './support/stack.ts';

// The Google requests each tool makes for one ordinary call (issue 22, "frugal"): counted by the
// Google emulator per API method, pinned here so that a tool that starts asking more shows as a
// failure; and the MCP service's own count per tool and method agrees.

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
 * new tab), nor does insert_dimension (the response names its tab).
 */
const PINNED: RequestsPerTool = {
  list_spreadsheets: { 'drive.files.list': 1 },
  get_spreadsheet: { 'sheets.spreadsheets.get': 1 },
  read_range: { 'sheets.spreadsheets.values.get': 1 },
  read_ranges: { 'sheets.spreadsheets.values.batchGet': 1 },
  // The tabs' names and sizes, then both (1000 × 26) tabs in one values.batchGet of ≤ 100,000 cells.
  find_in_spreadsheet: { 'sheets.spreadsheets.get': 1, 'sheets.spreadsheets.values.batchGet': 1 },
  // The tab's size, the header and the first window in one answer (FORMATTED_VALUE).
  read_records: { 'sheets.spreadsheets.get': 1 },
  // The tab's size comes with the cells.
  read_cell_details: { 'sheets.spreadsheets.get': 1 },
  // The formats, the tab's size and its merges in one answer.
  read_formats: { 'sheets.spreadsheets.get': 1 },
  // The formula and revision checks of a safe write are one batchGet.
  write_range: { 'sheets.spreadsheets.values.batchGet': 1, 'sheets.spreadsheets.values.update': 1 },
  write_ranges: { 'sheets.spreadsheets.values.batchGet': 1, 'sheets.spreadsheets.values.batchUpdate': 1 },
  append_rows: { 'sheets.spreadsheets.values.append': 1 },
  // The change journal's before-image of what is cleared.
  clear_range: { 'sheets.spreadsheets.values.clear': 1, 'sheets.spreadsheets.values.get': 1 },
  list_changes: {},
  undo_change: { 'sheets.spreadsheets.values.batchGet': 1, 'sheets.spreadsheets.values.batchUpdate': 1 },
  // The second get is the change journal's before-image (the notes replaced).
  set_notes: { 'sheets.spreadsheets.get': 2, 'sheets.spreadsheets.batchUpdate': 1 },
  insert_dimension: { 'sheets.spreadsheets.batchUpdate': 1 },
  // The change journal keeps the removed cells: the tabs' titles, then the span's grid.
  delete_dimension: { 'sheets.spreadsheets.batchUpdate': 1, 'sheets.spreadsheets.get': 2 },
  add_sheet: { 'sheets.spreadsheets.batchUpdate': 1 },
  rename_sheet: { 'sheets.spreadsheets.batchUpdate': 1, 'sheets.spreadsheets.getByDataFilter': 1 },
  duplicate_sheet: { 'sheets.spreadsheets.batchUpdate': 1 },
  // The change journal keeps the tab: its size, then its grid, read before the delete.
  delete_sheet: { 'sheets.spreadsheets.batchUpdate': 1, 'sheets.spreadsheets.get': 2 },
  format_range: {
    'sheets.spreadsheets.get': 1,
    'sheets.spreadsheets.batchUpdate': 1,
    'sheets.spreadsheets.getByDataFilter': 1,
  },
  batch_update: { 'sheets.spreadsheets.batchUpdate': 1, 'sheets.spreadsheets.get': 1 },
  // The editing tools read the tabs (ids, sizes, merges) to refuse a bad range before writing; an
  // find_replace in every tab needs only one request.
  copy_range: {
    'sheets.spreadsheets.get': 1,
    'sheets.spreadsheets.batchUpdate': 1,
    'sheets.spreadsheets.getByDataFilter': 1,
  },
  autofill: {
    'sheets.spreadsheets.get': 1,
    'sheets.spreadsheets.batchUpdate': 1,
    'sheets.spreadsheets.getByDataFilter': 1,
  },
  sort_range: {
    'sheets.spreadsheets.get': 1,
    'sheets.spreadsheets.batchUpdate': 1,
    'sheets.spreadsheets.getByDataFilter': 1,
  },
  find_replace: { 'sheets.spreadsheets.batchUpdate': 1, 'sheets.spreadsheets.get': 1 },
  // Removing duplicates and changing case read the range's cells too (a header's names, the rows
  // holding data, the text to change); trimming leaves the text to Google.
  remove_duplicates: {
    'sheets.spreadsheets.get': 2,
    'sheets.spreadsheets.batchUpdate': 1,
    'sheets.spreadsheets.getByDataFilter': 1,
  },
  trim_whitespace: {
    'sheets.spreadsheets.get': 1,
    'sheets.spreadsheets.batchUpdate': 1,
    'sheets.spreadsheets.getByDataFilter': 1,
  },
  change_case: {
    'sheets.spreadsheets.get': 2,
    'sheets.spreadsheets.batchUpdate': 1,
    'sheets.spreadsheets.getByDataFilter': 1,
  },
  merge_cells: {
    'sheets.spreadsheets.get': 1,
    'sheets.spreadsheets.batchUpdate': 1,
    'sheets.spreadsheets.getByDataFilter': 1,
  },
  unmerge_cells: {
    'sheets.spreadsheets.get': 1,
    'sheets.spreadsheets.batchUpdate': 1,
    'sheets.spreadsheets.getByDataFilter': 1,
  },
  freeze: {
    'sheets.spreadsheets.get': 1,
    'sheets.spreadsheets.batchUpdate': 1,
    'sheets.spreadsheets.getByDataFilter': 1,
  },
  set_dimension_properties: {
    'sheets.spreadsheets.get': 1,
    'sheets.spreadsheets.batchUpdate': 1,
    'sheets.spreadsheets.getByDataFilter': 1,
  },
  copy_sheet_to: { 'sheets.spreadsheets.sheets.copyTo': 1 },
  // The tabs (and the rules or objects a change checks against), then the write.
  set_data_validation: {
    'sheets.spreadsheets.get': 1,
    'sheets.spreadsheets.batchUpdate': 1,
    'sheets.spreadsheets.getByDataFilter': 1,
  },
  add_conditional_format: {
    'sheets.spreadsheets.get': 1,
    'sheets.spreadsheets.batchUpdate': 1,
    'sheets.spreadsheets.getByDataFilter': 1,
  },
  list_conditional_formats: { 'sheets.spreadsheets.get': 1 },
  update_conditional_format: {
    'sheets.spreadsheets.get': 1,
    'sheets.spreadsheets.batchUpdate': 1,
    'sheets.spreadsheets.getByDataFilter': 1,
  },
  delete_conditional_format: {
    'sheets.spreadsheets.get': 1,
    'sheets.spreadsheets.batchUpdate': 1,
    'sheets.spreadsheets.getByDataFilter': 1,
  },
  add_named_range: { 'sheets.spreadsheets.get': 2, 'sheets.spreadsheets.batchUpdate': 1 },
  list_named_ranges: { 'sheets.spreadsheets.get': 1 },
  update_named_range: { 'sheets.spreadsheets.get': 2, 'sheets.spreadsheets.batchUpdate': 1 },
  delete_named_range: { 'sheets.spreadsheets.get': 2, 'sheets.spreadsheets.batchUpdate': 1 },
  add_protected_range: {
    'sheets.spreadsheets.get': 1,
    'sheets.spreadsheets.batchUpdate': 1,
    'sheets.spreadsheets.getByDataFilter': 1,
  },
  list_protected_ranges: { 'sheets.spreadsheets.get': 1 },
  delete_protected_range: { 'sheets.spreadsheets.get': 2, 'sheets.spreadsheets.batchUpdate': 1 },
  // A new chart's range is read (values.get) so that an empty one, or one without numbers, is refused.
  add_chart: {
    'sheets.spreadsheets.get': 1,
    'sheets.spreadsheets.values.get': 1,
    'sheets.spreadsheets.batchUpdate': 1,
    'sheets.spreadsheets.getByDataFilter': 1,
  },
  list_charts: { 'sheets.spreadsheets.get': 1 },
  update_chart: { 'sheets.spreadsheets.get': 2, 'sheets.spreadsheets.batchUpdate': 1 },
  delete_chart: { 'sheets.spreadsheets.get': 2, 'sheets.spreadsheets.batchUpdate': 1 },
  set_basic_filter: {
    'sheets.spreadsheets.get': 1,
    'sheets.spreadsheets.batchUpdate': 1,
    'sheets.spreadsheets.getByDataFilter': 1,
  },
  clear_basic_filter: {
    'sheets.spreadsheets.get': 1,
    'sheets.spreadsheets.batchUpdate': 1,
    'sheets.spreadsheets.getByDataFilter': 1,
  },
  list_filters: { 'sheets.spreadsheets.get': 1 },
  add_filter_view: {
    'sheets.spreadsheets.get': 1,
    'sheets.spreadsheets.batchUpdate': 1,
    'sheets.spreadsheets.getByDataFilter': 1,
  },
  update_filter_view: { 'sheets.spreadsheets.get': 2, 'sheets.spreadsheets.batchUpdate': 1 },
  delete_filter_view: { 'sheets.spreadsheets.get': 2, 'sheets.spreadsheets.batchUpdate': 1 },
  add_table: {
    'sheets.spreadsheets.get': 1,
    'sheets.spreadsheets.batchUpdate': 1,
    'sheets.spreadsheets.getByDataFilter': 1,
  },
  list_tables: { 'sheets.spreadsheets.get': 1 },
  update_table: {
    'sheets.spreadsheets.get': 1,
    'sheets.spreadsheets.batchUpdate': 1,
    'sheets.spreadsheets.getByDataFilter': 1,
  },
  delete_table: { 'sheets.spreadsheets.get': 2, 'sheets.spreadsheets.batchUpdate': 1 },
  // The change journal keeps the new file's modifiedTime: undo refuses to trash it once changed since.
  create_spreadsheet: { 'sheets.spreadsheets.create': 1, 'drive.files.get': 1 },
  convert_file: { 'drive.files.get': 1, 'drive.files.export': 1, 'drive.files.create': 1 },
  list_folders: { 'drive.files.list': 1 },
  search_spreadsheets: { 'drive.files.list': 1 },
  copy_spreadsheet: { 'drive.files.copy': 1 },
  create_folder: { 'drive.files.create': 1 },
  list_folder_contents: { 'drive.files.list': 1 },
  // The change journal keeps what the grantee had before (sharing again replaces the role).
  share_file: { 'drive.permissions.list': 1, 'drive.permissions.create': 1 },
  list_permissions: { 'drive.permissions.list': 1 },
  // The change journal keeps the permission before the change (update) or removal (delete).
  update_permission: { 'drive.permissions.get': 1, 'drive.permissions.update': 1 },
  remove_permission: { 'drive.permissions.get': 1, 'drive.permissions.delete': 1 },
  list_comments: { 'drive.comments.list': 1 },
  add_comment: { 'drive.comments.create': 1 },
  // The change journal keeps the comment's text and whether it was resolved before the reply.
  reply_to_comment: { 'drive.comments.get': 1, 'drive.replies.create': 1 },
  resolve_comment: { 'drive.comments.get': 1, 'drive.replies.create': 1 },
};

let stack: McpUnderTest;
let client: Client;
let userId: string;
let metricsPort: number;

beforeAll(async () => {
  metricsPort = await freePort();
  stack = await startMcpUnderTest({ MCP_METRICS_PORT: String(metricsPort) });
  ({ userId } = await stack.signIn('alice@example.com'));
  client = await stack.connectClient(userId, 'quota counter');
}, 120_000);
afterAll(async () => {
  await client?.close();
  await stack?.stop();
});

describe('Google requests per tool call', () => {
  let measured: RequestsPerTool = {};

  it('pins a row for every registered tool, and none for a tool that is not', () => {
    expect(Object.keys(PINNED).sort()).toEqual(
      registeredTools()
        .map((tool) => tool.name)
        .sort(),
    );
  });

  it('every registered tool has a call here', async () => {
    const { tools } = await client.listTools();
    const called = oneCallOfEachTool({ spreadsheetId: 'x', planId: 0, notesId: 1 }).map(([tool]) => tool);
    expect([...called].sort()).toEqual(tools.map((tool) => tool.name).sort());
  });

  it('one ordinary call of each tool makes exactly the pinned Google requests', async () => {
    measured = await measureGoogleRequestsPerTool(
      stack,
      userId,
      async (name, args) => (await client.callTool({ name, arguments: args })) as CallToolResult,
    );
    expect(measured).toEqual(PINNED);
  }, 120_000);

  it("the MCP service's own count per tool and method agrees with the emulator's", async () => {
    const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
    const counted: Record<string, Record<string, number>> = {};
    for (const line of text.split('\n')) {
      const match = /^sheetgate_mcp_tool_google_requests_total\{(.*)\} (\d+)$/.exec(line);
      if (!match) continue;
      const labels = Object.fromEntries([...match[1]!.matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
      counted[labels.tool!] = { ...counted[labels.tool!], [labels.method!]: Number(match[2]) };
    }
    // A tool that sent Google nothing (list_changes) has no series.
    const sending = Object.fromEntries(
      Object.entries(measured).filter(([, methods]) => Object.keys(methods).length > 0),
    );
    expect(counted).toEqual(sending);
  });
});
