import { TOOLSET_NAMES, TOOLSETS, type ToolsetName, toolset } from '@sheetgate/proto';
import type { AuthInfo } from '../auth/auth-info.ts';
import type { ToolDefinition } from './tool-definition.ts';

/**
 * Which toolset enables each tool (docs/design.md §11, "Toolsets"): the one place a tool gets its
 * set. The sets' names and titles are @sheetgate/proto's TOOLSETS (auth and web use them too);
 * their membership lives here, beside the registry. A tool missing here stops the service at
 * start (`toolsetIndex`) and fails toolsets.test.ts.
 */
export const TOOL_TOOLSETS: Readonly<Record<string, ToolsetName>> = {
  // Reading: what a model needs to look at a spreadsheet.
  list_spreadsheets: 'core-read',
  get_spreadsheet: 'core-read',
  read_range: 'core-read',
  read_ranges: 'core-read',
  find_in_spreadsheet: 'core-read',
  read_records: 'core-read',
  read_cell_details: 'core-read',
  // Finding a spreadsheet by name or content, and the folders to look in, is part of reading.
  list_folders: 'core-read',
  search_spreadsheets: 'core-read',
  // The change journal: what was changed through Sheetgate is part of reading, undoing it of writing.
  list_changes: 'core-read',
  // Writing: cell values and notes, inside the existing grid.
  write_range: 'core-write',
  write_ranges: 'core-write',
  append_rows: 'core-write',
  clear_range: 'core-write',
  set_notes: 'core-write',
  undo_change: 'core-write',
  // Structure: the grid itself, its tabs and formats, and raw batch updates.
  insert_dimension: 'structure',
  delete_dimension: 'structure',
  add_sheet: 'structure',
  rename_sheet: 'structure',
  delete_sheet: 'structure',
  duplicate_sheet: 'structure',
  format_range: 'structure',
  batch_update: 'structure',
  copy_range: 'structure',
  autofill: 'structure',
  sort_range: 'structure',
  find_replace: 'structure',
  merge_cells: 'structure',
  unmerge_cells: 'structure',
  freeze: 'structure',
  set_dimension_properties: 'structure',
  copy_sheet_to: 'structure',
  // Rules and ranges: what constrains, highlights or names cells.
  set_data_validation: 'rules',
  add_conditional_format: 'rules',
  list_conditional_formats: 'rules',
  update_conditional_format: 'rules',
  delete_conditional_format: 'rules',
  add_named_range: 'rules',
  list_named_ranges: 'rules',
  update_named_range: 'rules',
  delete_named_range: 'rules',
  add_protected_range: 'rules',
  list_protected_ranges: 'rules',
  delete_protected_range: 'rules',
  // Charts: drawn from ranges, over a tab or on a sheet of their own.
  add_chart: 'charts',
  list_charts: 'charts',
  update_chart: 'charts',
  delete_chart: 'charts',
  // Filters and structured tables: what shows or structures the rows of a range.
  set_basic_filter: 'rules',
  clear_basic_filter: 'rules',
  list_filters: 'rules',
  add_filter_view: 'rules',
  update_filter_view: 'rules',
  delete_filter_view: 'rules',
  add_table: 'rules',
  list_tables: 'rules',
  update_table: 'rules',
  delete_table: 'rules',
  // Files: new spreadsheets and conversions in Drive.
  create_spreadsheet: 'files',
  convert_file: 'files',
  copy_spreadsheet: 'files',
  create_folder: 'files',
  // Sharing and comments on the files Sheetgate created or was given.
  share_file: 'sharing',
  list_permissions: 'sharing',
  update_permission: 'sharing',
  remove_permission: 'sharing',
  list_comments: 'sharing',
  add_comment: 'sharing',
  reply_to_comment: 'sharing',
  resolve_comment: 'sharing',
};

/** The tools of each set and the set of each tool, for the registered tools; throws on a tool without one. */
export function toolsetIndex(tools: readonly ToolDefinition[]): {
  setOf: ReadonlyMap<string, ToolsetName>;
  toolsIn: ReadonlyMap<ToolsetName, readonly ToolDefinition[]>;
} {
  const setOf = new Map<string, ToolsetName>();
  const toolsIn = new Map<ToolsetName, ToolDefinition[]>(TOOLSET_NAMES.map((name) => [name, []]));
  for (const tool of tools) {
    const name = Object.hasOwn(TOOL_TOOLSETS, tool.name) ? TOOL_TOOLSETS[tool.name] : undefined;
    if (!name) {
      const known = TOOLSETS.map((set) => set.name).join(', ');
      throw new Error(`tool ${tool.name} has no toolset: add it to TOOL_TOOLSETS (one of ${known})`);
    }
    setOf.set(tool.name, name);
    toolsIn.get(name)!.push(tool);
  }
  return { setOf, toolsIn };
}

/**
 * The credential's toolsets as a cache key: known names in TOOLSETS order, space-separated
 * (undefined, every set). Unknown names enable nothing, so there are at most 2^n distinct keys.
 */
export function toolsetKey(toolsets: readonly string[] | undefined): string {
  if (toolsets === undefined) return ALL_TOOLSETS_KEY;
  let key = '';
  for (const name of TOOLSET_NAMES) if (toolsets.includes(name)) key = key ? `${key} ${name}` : name;
  return key;
}

export const ALL_TOOLSETS_KEY = TOOLSET_NAMES.join(' ');

/** A set's name and title, as a refusal names it: `"structure" (Structure and formatting)`. */
export function describeToolset(name: ToolsetName): string {
  return `"${name}" (${toolset(name).title})`;
}

/** The set of the tool of that name; undefined for a name no tool has (one from another release). */
export function toolsetOf(tool: string): ToolsetName | undefined {
  return Object.hasOwn(TOOL_TOOLSETS, tool) ? TOOL_TOOLSETS[tool] : undefined;
}

/** Whether the credential enables the set: one that names no sets enables every set. */
export function enablesToolset(auth: Pick<AuthInfo, 'toolsets'>, set: ToolsetName): boolean {
  return auth.toolsets === undefined || auth.toolsets.includes(set);
}

/**
 * The end of a refusal for something outside the credential's sets, in the words tools/call uses
 * for a tool outside them (mcp-server.ts): `which this API key does not enable; to use it, create
 * an API key with it at <BASE_URL>/dashboard`. A tool whose call carries work of another set
 * (undo_change, batch_update) says it this way too, so a call may do only what its credential's
 * sets allow whichever tool carries it.
 */
export function notEnabledClause(
  credential: AuthInfo['credential'],
  dashboardUrl: string | undefined,
): string {
  const dashboard = dashboardUrl ?? 'the Sheetgate dashboard';
  const where =
    credential === 'api_key'
      ? `create an API key with it at ${dashboard}`
      : `disconnect the app at ${dashboard}, connect it again and check the set on the consent screen`;
  return `which this ${credential === 'api_key' ? 'API key' : 'connection'} does not enable; to use it, ${where}`;
}
