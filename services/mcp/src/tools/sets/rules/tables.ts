/**
 * Structured tables (docs/design.md §11): a named range of rows with a header row of column names
 * and a type per column. Each change is one `spreadsheets.batchUpdate`, after one
 * `spreadsheets.get` with a field mask of the tabs and their tables, so that a name, a range that
 * would overlap another table, or a column is checked before Google sees it.
 */
import type { sheets_v4 } from 'googleapis';
import { z } from 'zod';
import { ToolError } from '../../../errors/tool-error.ts';
import { amount, quotedName } from '../../guards/loss-phrases.ts';
import { columnLetters } from '../../kit/a1.ts';
import { CHANGE, READ } from '../../kit/annotations.ts';
import { a1Range, dryRun, dryRunOutput, perTabListInput, spreadsheetId } from '../../kit/common-schemas.ts';
import { deleteFound } from '../../kit/delete-found.ts';
import { TAB_PROPERTY_FIELDS } from '../../kit/first-visible-tab.ts';
import { a1Of, gridRangeOf, type Tab, tabsOf } from '../../kit/rule-grid.ts';
import { spreadsheetBatchUpdate } from '../../kit/spreadsheet-batch-update.ts';
import { spreadsheetRead } from '../../kit/spreadsheet-read.ts';
import { listedTabs } from '../../kit/tab-ref.ts';
import { defineTool } from '../../kit/tool-definition.ts';
import type { ToolDeps } from '../../kit/tool-deps.ts';

const TABLE_FIELDS = `sheets(properties(${TAB_PROPERTY_FIELDS}),tables),namedRanges(namedRangeId,name,range)`;

/** The column types a tool sets (Sheets API ColumnType; BOOLEAN is a checkbox column). */
const COLUMN_TYPES = [
  'TEXT',
  'DOUBLE',
  'CURRENCY',
  'PERCENT',
  'DATE',
  'TIME',
  'DATE_TIME',
  'BOOLEAN',
  'DROPDOWN',
] as const;

const plainName = (what: string) =>
  z
    .string()
    .max(255)
    .refine((text) => text.trim() !== '', `a ${what} must not be empty`)
    .refine(
      (text) => !/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u.test(text),
      `a ${what} has no control or format characters`,
    );

const tableName = plainName('table name').describe('Unique in the spreadsheet.');
const columnName = plainName('column name');

const columnFields = {
  name: columnName.optional(),
  type: z.enum(COLUMN_TYPES).optional().describe('DROPDOWN takes dropdownValues.'),
  dropdownValues: z.array(z.string().min(1).max(1_000)).min(1).max(500).optional(),
};

const tableRef = z.string().min(1).max(255).describe('Its name or tableId.');

const columnOutput = z.object({
  index: z.number(),
  name: z.string().nullable(),
  type: z.string().nullable(),
  dropdownValues: z.array(z.string()),
});
const tableOutput = z.object({
  tableId: z.string().nullable(),
  name: z.string(),
  sheetId: z.number(),
  range: z.string(),
  columns: z.array(columnOutput),
});
type TableView = z.infer<typeof tableOutput>;
type ColumnView = z.infer<typeof columnOutput>;

function tableView(table: sheets_v4.Schema$Table, tabs: readonly Tab[]): TableView {
  return {
    tableId: table.tableId ?? null,
    name: table.name ?? '',
    sheetId: table.range?.sheetId ?? 0,
    range: a1Of(table.range, tabs),
    columns: (table.columnProperties ?? []).map((column) => ({
      index: column.columnIndex ?? 0,
      name: column.columnName ?? null,
      type: column.columnType ?? null,
      dropdownValues: (column.dataValidationRule?.condition?.values ?? []).map(
        (value) => value.userEnteredValue ?? '',
      ),
    })),
  };
}

function columnProperties(columns: readonly ColumnView[]): sheets_v4.Schema$TableColumnProperties[] {
  return columns.map((column) => ({
    columnIndex: column.index,
    ...(column.name === null ? {} : { columnName: column.name }),
    ...(column.type === null ? {} : { columnType: column.type }),
    ...(column.type === 'DROPDOWN'
      ? {
          dataValidationRule: {
            condition: {
              type: 'ONE_OF_LIST',
              values: column.dropdownValues.map((value) => ({ userEnteredValue: value })),
            },
          },
        }
      : {}),
  }));
}

/** The columns a GridRange spans, and its rows, with open sides at the tab's edges. */
function extent(range: sheets_v4.Schema$GridRange, tab: Tab) {
  return {
    rows: [range.startRowIndex ?? 0, range.endRowIndex ?? tab.rowCount] as const,
    columns: [range.startColumnIndex ?? 0, range.endColumnIndex ?? tab.columnCount] as const,
  };
}

function describeTable(table: TableView): string {
  const columns = table.columns
    .map(
      (column) =>
        `${column.name ?? `(header of column ${column.index + 1})`}${column.type ? ` ${column.type}` : ''}`,
    )
    .join(', ');
  return `${JSON.stringify(table.name)} on ${table.range} (${columns})`;
}

export function tableTools(deps: ToolDeps) {
  const { sheets, callGoogle } = deps;
  const batchUpdate = spreadsheetBatchUpdate(deps);
  const readSpreadsheet = spreadsheetRead(deps);

  async function readTables(userId: string, signal: AbortSignal, id: string) {
    const data = await readSpreadsheet(userId, signal, id, TABLE_FIELDS);
    const tabs = tabsOf(data);
    const tables = (data.sheets ?? []).flatMap((sheet) =>
      (sheet.tables ?? []).map((each) => tableView(each, tabs)),
    );
    const raw = (data.sheets ?? []).flatMap((sheet) => sheet.tables ?? []);
    return { tabs, tables, raw, namedRanges: data.namedRanges ?? [] };
  }
  type Read = Awaited<ReturnType<typeof readTables>>;

  function tableCalled(read: Read, ref: string): TableView {
    const found =
      read.tables.find((each) => each.tableId === ref) ??
      read.tables.find((each) => each.name.toLowerCase() === ref.toLowerCase());
    if (!found) {
      const known = read.tables.map((each) => JSON.stringify(each.name)).join(', ');
      throw new ToolError(
        `there is no table ${JSON.stringify(ref)}; ${known ? `the tables are ${known}` : 'the spreadsheet has none'}`,
      );
    }
    return found;
  }

  /** Refuses a name another table has, and a range over another table on the tab. */
  function checkPlace(
    read: Read,
    name: string,
    range: sheets_v4.Schema$GridRange,
    tab: Tab,
    except?: TableView,
  ) {
    const clash = read.tables.find(
      (each) => each !== except && each.name.toLowerCase() === name.toLowerCase(),
    );
    if (clash)
      throw new ToolError(`a table named ${JSON.stringify(clash.name)} already exists (${clash.range})`);
    const wanted = extent(range, tab);
    for (const other of read.raw) {
      if (other.tableId === except?.tableId || (other.range?.sheetId ?? 0) !== tab.sheetId) continue;
      const there = extent(other.range ?? {}, tab);
      const meets = (a: readonly [number, number], b: readonly [number, number]) =>
        a[0] < b[1] && b[0] < a[1];
      if (meets(wanted.rows, there.rows) && meets(wanted.columns, there.columns))
        throw new ToolError(
          `${a1Of(range, read.tabs)} overlaps the table ${JSON.stringify(other.name)} (${a1Of(other.range, read.tabs)}); tables cannot overlap`,
        );
    }
    const [start, end] = wanted.columns;
    return end - start;
  }

  /**
   * The header cells a given column name would replace (`B1: "Qty" → "Amount"`), read in FORMULA
   * rendering only when a name is given; a header cell holding a formula is refused, as writes
   * refuse to replace formulas silently.
   */
  async function replacedHeaders(
    userId: string,
    signal: AbortSignal,
    id: string,
    range: sheets_v4.Schema$GridRange,
    tab: Tab,
    columns: readonly ColumnView[],
  ): Promise<string[]> {
    if (!columns.some((column) => column.name !== null)) return [];
    const row = range.startRowIndex ?? 0;
    const first = range.startColumnIndex ?? 0;
    const header = a1Of(
      {
        sheetId: tab.sheetId,
        startRowIndex: row,
        endRowIndex: row + 1,
        startColumnIndex: first,
        endColumnIndex: first + columns.length,
      },
      [tab],
    );
    const { data } = await callGoogle(userId, signal, (request) =>
      sheets.spreadsheets.values.get(
        { spreadsheetId: id, range: header, valueRenderOption: 'FORMULA' },
        request,
      ),
    );
    const cells = data.values?.[0] ?? [];
    const replaced: string[] = [];
    for (const column of columns) {
      const now = cells[column.index];
      if (column.name === null || now === undefined || now === '' || String(now) === column.name) continue;
      const cell = `${columnLetters(first + column.index)}${row + 1}`;
      if (typeof now === 'string' && now.startsWith('='))
        throw new ToolError(
          `the header cell ${cell} holds a formula (${now}); give no name for column ${column.index + 1} to keep it`,
        );
      replaced.push(`${cell}: ${JSON.stringify(String(now))} → ${JSON.stringify(column.name)}`);
    }
    return replaced;
  }

  /** Column views from the tool's column arguments, checked: unique names, dropdown values where they belong. */
  function checkColumns(columns: readonly ColumnView[]): void {
    const names = new Set<string>();
    for (const column of columns) {
      if (column.name !== null) {
        if (names.has(column.name.toLowerCase()))
          throw new ToolError(
            `two columns are named ${JSON.stringify(column.name)}: column names are unique`,
          );
        names.add(column.name.toLowerCase());
      }
      if (column.type === 'DROPDOWN' && column.dropdownValues.length === 0)
        throw new ToolError(`column ${column.index + 1} is a DROPDOWN: give its dropdownValues`);
      if (column.type !== 'DROPDOWN' && column.dropdownValues.length > 0)
        throw new ToolError(`dropdownValues are for a DROPDOWN column (column ${column.index + 1})`);
    }
  }

  return [
    defineTool({
      name: 'add_table',
      toolset: 'rules',
      title: 'Add a table',
      description: 'Turns a range into a table, its first row the header; tables cannot overlap.',
      scope: 'sheets:write',
      annotations: CHANGE,
      inputSchema: z.object({
        spreadsheetId,
        name: tableName,
        range: a1Range.describe('Header row first.'),
        columns: z
          .array(z.object(columnFields))
          .max(200)
          .optional()
          .describe('The first columns, left to right.'),
        dryRun,
      }),
      outputSchema: tableOutput.extend({ replacedHeaders: z.array(z.string()), dryRun: dryRunOutput }),
      async run(input, { auth, signal }) {
        const read = await readTables(auth.userId, signal, input.spreadsheetId);
        const { range, tab } = gridRangeOf(input.range, read.tabs, read.namedRanges);
        const width = checkPlace(read, input.name, range, tab);
        const given = input.columns ?? [];
        if (given.length > width)
          throw new ToolError(
            `${amount(given.length, 'column')} given, but ${a1Of(range, read.tabs)} has ${width}`,
          );
        const columns: ColumnView[] = Array.from({ length: width }, (_, index) => ({
          index,
          name: given[index]?.name ?? null,
          type: given[index]?.type ?? null,
          dropdownValues: given[index]?.dropdownValues ?? [],
        }));
        checkColumns(columns);
        const replaced = await replacedHeaders(auth.userId, signal, input.spreadsheetId, range, tab, columns);
        const replacing = replaced.length ? `, replacing the header ${replaced.join(', ')}` : '';
        const view: TableView = {
          tableId: null,
          name: input.name,
          sheetId: tab.sheetId,
          range: a1Of(range, read.tabs),
          columns,
        };
        if (input.dryRun)
          return {
            structuredContent: { ...view, replacedHeaders: replaced, dryRun: true },
            text: `Dry run: would add the table ${describeTable(view)}${replacing}. Nothing was changed.`,
          };
        const reply = await batchUpdate(auth.userId, signal, input.spreadsheetId, [
          {
            addTable: {
              table: {
                name: input.name,
                range,
                columnProperties: columnProperties(columns.filter((column) => column.name || column.type)),
              },
            },
          },
        ]);
        const table = reply.replies?.[0]?.addTable?.table;
        const added = table ? tableView(table, read.tabs) : view;
        return {
          structuredContent: { ...added, replacedHeaders: replaced },
          text: `Added the table ${describeTable(added)} (tableId ${added.tableId})${replacing}.`,
        };
      },
    }),

    defineTool({
      name: 'list_tables',
      toolset: 'rules',
      title: 'List tables',
      description: 'Lists the tables: name, tableId, range and typed columns.',
      scope: 'sheets:read',
      annotations: READ,
      inputSchema: perTabListInput('tables'),
      outputSchema: z.object({ tables: z.array(tableOutput) }),
      async run(input, { auth, signal }) {
        const read = await readTables(auth.userId, signal, input.spreadsheetId);
        const listed = listedTabs(read.tabs, input.sheetId);
        const tables = read.tables.filter((each) => listed(each.sheetId));
        const text = tables.length
          ? tables.map((each) => `${each.tableId}: ${describeTable(each)}`).join('\n')
          : 'No tables.';
        return { structuredContent: { tables }, text };
      },
    }),

    defineTool({
      name: 'update_table',
      toolset: 'rules',
      title: 'Change a table',
      description: 'Renames, resizes (same tab) or retypes a table; columns by index from 0.',
      scope: 'sheets:write',
      annotations: { ...CHANGE, idempotentHint: true },
      inputSchema: z.object({
        spreadsheetId,
        table: tableRef,
        newName: tableName.optional(),
        range: a1Range.optional(),
        columns: z
          .array(z.object({ index: z.number().int().min(0).max(17_999), ...columnFields }))
          .min(1)
          .max(200)
          .optional(),
        dryRun,
      }),
      outputSchema: tableOutput.extend({ previous: tableOutput, dryRun: dryRunOutput }),
      async run(input, { auth, signal }) {
        if (input.newName === undefined && input.range === undefined && input.columns === undefined)
          throw new ToolError('give newName, range or columns');
        const read = await readTables(auth.userId, signal, input.spreadsheetId);
        const previous = tableCalled(read, input.table);
        const { range, tab } = gridRangeOf(input.range ?? previous.range, read.tabs, read.namedRanges);
        if (tab.sheetId !== previous.sheetId)
          throw new ToolError('a table stays on its tab: give a range on the same tab');
        const width = checkPlace(read, input.newName ?? previous.name, range, tab, previous);
        const columns: ColumnView[] = Array.from({ length: width }, (_, index) => {
          const before = previous.columns.find((column) => column.index === index);
          return before ? { ...before } : { index, name: null, type: null, dropdownValues: [] };
        });
        for (const change of input.columns ?? []) {
          const column = columns[change.index];
          if (!column)
            throw new ToolError(
              `the table has ${amount(width, 'column')} (index 0 to ${width - 1}), so none at index ${change.index}`,
            );
          if (change.name !== undefined) column.name = change.name;
          if (change.type !== undefined) column.type = change.type;
          if (change.dropdownValues !== undefined) column.dropdownValues = change.dropdownValues;
          else if (change.type !== undefined && change.type !== 'DROPDOWN') column.dropdownValues = [];
        }
        checkColumns(columns);
        const view: TableView = {
          ...previous,
          name: input.newName ?? previous.name,
          range: a1Of(range, read.tabs),
          columns,
        };
        const change = `the table ${describeTable(previous)} → ${describeTable(view)}`;
        if (input.dryRun)
          return {
            structuredContent: { ...view, previous, dryRun: true },
            text: `Dry run: would change ${change}. Nothing was changed.`,
          };
        const fields = [
          input.newName === undefined ? '' : 'name',
          input.range === undefined ? '' : 'range',
          input.columns === undefined ? '' : 'columnProperties',
        ].filter(Boolean);
        await batchUpdate(auth.userId, signal, input.spreadsheetId, [
          {
            updateTable: {
              table: {
                tableId: previous.tableId,
                name: view.name,
                range,
                columnProperties: columnProperties(columns.filter((column) => column.name || column.type)),
              },
              fields: fields.join(','),
            },
          },
        ]);
        return { structuredContent: { ...view, previous }, text: `Changed ${change}.` };
      },
    }),

    defineTool({
      name: 'delete_table',
      toolset: 'rules',
      title: 'Delete a table',
      description: 'Removes a table; its values stay.',
      scope: 'sheets:write',
      annotations: { ...CHANGE, destructiveHint: true },
      inputSchema: z.object({ spreadsheetId, table: tableRef, dryRun }),
      outputSchema: z.object({ deleted: tableOutput, dryRun: dryRunOutput }),
      async run(input, { auth, signal }) {
        const read = await readTables(auth.userId, signal, input.spreadsheetId);
        const deleted = tableCalled(read, input.table);
        return deleteFound(batchUpdate, { auth, signal }, input, {
          deleted,
          request: { deleteTable: { tableId: deleted.tableId } },
          would: `delete the table ${describeTable(deleted)}`,
          did: `Deleted the table ${describeTable(deleted)}; its cells keep their values.`,
        });
      },
      async describeLoss(input, { auth, signal }) {
        const read = await readTables(auth.userId, signal, input.spreadsheetId);
        const table = tableCalled(read, input.table);
        // Names are written by anyone the file is shared with: quoted and escaped.
        return `the table ${quotedName(table.name)} (on ${quotedName(table.range)}, ${amount(table.columns.length, 'column')}; its cells keep their values)`;
      },
    }),
  ];
}
