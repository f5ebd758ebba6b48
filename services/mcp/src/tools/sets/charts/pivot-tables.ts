/**
 * Pivot tables (docs/design.md §11): a pivot table is the `pivotTable` of the cell it is anchored
 * at (Sheets API CellData.pivotTable), so one tool adds, replaces or removes it with one
 * `updateCells` of that cell's `pivotTable` field, which the change journal keeps like any cell
 * field (journal/state). Columns are named as a person says them, by the source's header text, and
 * checked before Google sees them: the tabs are read, then the anchor's pivot table, then the
 * source's header row. What a pivot table shows is Google's to compute: read_range reads it;
 * read_cell_details says which cell holds one and what it is.
 */
import type { sheets_v4 } from 'googleapis';
import { z } from 'zod';
import { ToolError } from '../../../errors/tool-error.ts';
import { columnLetters } from '../../kit/a1.ts';
import { CHANGE } from '../../kit/annotations.ts';
import { a1Range, dryRun, dryRunOutput, spreadsheetId } from '../../kit/common-schemas.ts';
import { clip, describePivot, NAME_CHARACTERS, pivotSourceHeaders } from '../../kit/pivot-words.ts';
import { a1Of, gridRangeOf, TAB_FIELDS, type Tab, tabsOf } from '../../kit/rule-grid.ts';
import { spreadsheetBatchUpdate } from '../../kit/spreadsheet-batch-update.ts';
import { spreadsheetRead } from '../../kit/spreadsheet-read.ts';
import { defineTool, type ToolContext } from '../../kit/tool-definition.ts';
import type { ToolDeps } from '../../kit/tool-deps.ts';

type PivotTable = sheets_v4.Schema$PivotTable;

/** Sheets API PivotValueSummarizeFunction, without CUSTOM (a calculated field). */
const SUMMARIES = [
  'SUM',
  'COUNTA',
  'COUNT',
  'COUNTUNIQUE',
  'AVERAGE',
  'MAX',
  'MIN',
  'MEDIAN',
  'PRODUCT',
  'STDEV',
  'STDEVP',
  'VAR',
  'VARP',
] as const;

/** The BooleanCondition types a pivot filter takes here, and how many values each wants. */
const CONDITIONS = {
  NUMBER_GREATER: 1,
  NUMBER_GREATER_THAN_EQ: 1,
  NUMBER_LESS: 1,
  NUMBER_LESS_THAN_EQ: 1,
  NUMBER_EQ: 1,
  NUMBER_BETWEEN: 2,
  TEXT_CONTAINS: 1,
  TEXT_EQ: 1,
  NOT_BLANK: 0,
} as const;
type Condition = keyof typeof CONDITIONS;

/** The most header names an answer quotes when a column is not found. */
const NAMES_QUOTED = 30;

const column = z.string().min(1).max(255);
const group = z.object({
  column,
  descending: z.boolean().optional(),
  totals: z.boolean().optional(),
  byValue: z.boolean().optional().describe('Sort by the first value.'),
});
const groups = z.array(group).max(10).optional();

const pivotOutput = z.object({
  anchor: z.string(),
  pivotTable: z.string().nullable(),
  previous: z.string().nullable(),
  dryRun: dryRunOutput,
});

export function pivotTableTools(deps: ToolDeps) {
  const { sheets, callGoogle } = deps;
  const batchUpdate = spreadsheetBatchUpdate(deps);
  const readSpreadsheet = spreadsheetRead(deps);

  /** The tabs, the anchor cell, and the pivot table anchored there now (if any). */
  async function readAnchor(
    { auth, signal }: Pick<ToolContext, 'auth' | 'signal'>,
    id: string,
    anchorText: string,
  ) {
    const book = await readSpreadsheet(auth.userId, signal, id, TAB_FIELDS);
    const tabs = tabsOf(book);
    const { range, tab } = gridRangeOf(anchorText, tabs);
    const anchor: sheets_v4.Schema$GridRange = {
      sheetId: tab.sheetId,
      startRowIndex: range.startRowIndex ?? 0,
      endRowIndex: (range.startRowIndex ?? 0) + 1,
      startColumnIndex: range.startColumnIndex ?? 0,
      endColumnIndex: (range.startColumnIndex ?? 0) + 1,
    };
    const { data } = await callGoogle(auth.userId, signal, (request) =>
      sheets.spreadsheets.get(
        { spreadsheetId: id, ranges: [a1Of(anchor, tabs)], fields: 'sheets.data.rowData.values.pivotTable' },
        request,
      ),
    );
    const current = data.sheets?.[0]?.data?.[0]?.rowData?.[0]?.values?.[0]?.pivotTable ?? undefined;
    return { tabs, namedRanges: book.namedRanges ?? [], anchor, current };
  }

  /** Each source's header texts (kit/pivot-words.ts). */
  const headersOf = (
    { auth, signal }: Pick<ToolContext, 'auth' | 'signal'>,
    id: string,
    sources: readonly sheets_v4.Schema$GridRange[],
    tabs: readonly Tab[],
  ) => pivotSourceHeaders(deps, auth.userId, signal, id, sources, tabs);

  return [
    defineTool({
      name: 'set_pivot_table',
      toolset: 'charts',
      title: 'Set a pivot table',
      description:
        'Adds or replaces the pivot table at anchor (remove: true removes it). Columns by header name; groups total unless totals: false. read_range from anchor reads it.',
      scope: 'sheets:write',
      annotations: { ...CHANGE, destructiveHint: true },
      inputSchema: z.object({
        spreadsheetId,
        anchor: z.string().min(1).max(300).describe('Its top-left cell.'),
        source: a1Range.optional().describe('Header row first; default: the current.'),
        rows: groups,
        columns: z.array(column).max(10).optional().describe('Column names.'),
        values: z
          .array(
            z.object({ column, summary: z.enum(SUMMARIES).optional(), name: z.string().max(255).optional() }),
          )
          .max(20)
          .optional(),
        filters: z
          .array(
            z.object({
              column,
              show: z.array(z.string().max(1_000)).max(1_000).optional(),
              condition: z.enum(Object.keys(CONDITIONS) as [Condition, ...Condition[]]).optional(),
              values: z
                .array(z.union([z.string().max(1_000), z.number()]))
                .max(2)
                .optional(),
            }),
          )
          .max(20)
          .optional(),
        remove: z.boolean().default(false),
        dryRun,
      }),
      outputSchema: pivotOutput,
      async run(input, context) {
        const { tabs, namedRanges, anchor, current } = await readAnchor(
          context,
          input.spreadsheetId,
          input.anchor,
        );
        const where = a1Of(anchor, tabs);
        const given = [input.rows, input.columns, input.values, input.filters];
        if (input.remove) {
          if (given.some((list) => list !== undefined) || input.source !== undefined)
            throw new ToolError('remove takes the anchor only');
          if (!current?.source)
            throw new ToolError(`there is no pivot table at ${where}; read_cell_details finds them`);
          const [header] = await headersOf(context, input.spreadsheetId, [current.source], tabs);
          const previous = describePivot(current, header ?? [], tabs);
          if (input.dryRun)
            return {
              structuredContent: { anchor: where, pivotTable: null, previous, dryRun: true },
              text: `Dry run: would remove the pivot table at ${where} (${previous}). Nothing was changed.`,
            };
          await batchUpdate(context.auth.userId, context.signal, input.spreadsheetId, [
            pivotWrite(anchor, undefined),
          ]);
          return {
            structuredContent: { anchor: where, pivotTable: null, previous },
            text: `Removed the pivot table at ${where} (${previous}).`,
          };
        }
        if (!given.slice(0, 3).some((list) => list && list.length > 0))
          throw new ToolError('give rows, columns or values');
        const source = input.source
          ? wholeRange(gridRangeOf(input.source, tabs, namedRanges))
          : (current?.source ?? undefined);
        if (!source)
          throw new ToolError(`give the source: there is no pivot table at ${where} to keep it from`);
        const sourceText = a1Of(source, tabs);
        if ((source.endRowIndex ?? 0) - (source.startRowIndex ?? 0) < 2)
          throw new ToolError(`the source ${sourceText} needs a header row and at least one row of data`);
        if (inside(anchor, source))
          throw new ToolError(
            `the anchor ${where} is inside the source ${sourceText}: put the pivot table beside or away from its data`,
          );
        const sameSource = current?.source && sameRange(current.source, source);
        const [header = [], previousHeader = []] = await headersOf(
          context,
          input.spreadsheetId,
          current?.source && !sameSource ? [source, current.source] : [source],
          tabs,
        );
        const offsetOf = columnFinder(header, source, sourceText);
        const pivot: PivotTable = {
          source,
          ...(input.rows?.length ? { rows: input.rows.map((each) => groupOf(each, offsetOf)) } : {}),
          ...(input.columns?.length
            ? { columns: input.columns.map((each) => groupOf({ column: each }, offsetOf)) }
            : {}),
          ...(input.values?.length
            ? {
                values: input.values.map((each) => ({
                  sourceColumnOffset: offsetOf(each.column),
                  summarizeFunction: each.summary ?? 'SUM',
                  ...(each.name ? { name: each.name } : {}),
                })),
              }
            : {}),
          ...(input.filters?.length
            ? { filterSpecs: input.filters.map((each) => filterOf(each, offsetOf)) }
            : {}),
        };
        const described = describePivot(pivot, header, tabs);
        const previous = current?.source
          ? describePivot(current, sameSource ? header : previousHeader, tabs)
          : null;
        const verb = previous ? 'replace' : 'add';
        const replacing = previous ? ` (was ${previous})` : '';
        if (input.dryRun)
          return {
            structuredContent: { anchor: where, pivotTable: described, previous, dryRun: true },
            text: `Dry run: would ${verb} the pivot table at ${where}: ${described}${replacing}. Nothing was changed.`,
          };
        await batchUpdate(context.auth.userId, context.signal, input.spreadsheetId, [
          pivotWrite(anchor, pivot),
        ]);
        return {
          structuredContent: { anchor: where, pivotTable: described, previous },
          text: `${previous ? 'Replaced' : 'Added'} the pivot table at ${where}: ${described}${replacing}. read_range from ${where} shows it.`,
        };
      },
      async describeLoss(input, context) {
        const { tabs, anchor, current } = await readAnchor(context, input.spreadsheetId, input.anchor);
        if (!current?.source) return null;
        const [header] = await headersOf(context, input.spreadsheetId, [current.source], tabs);
        return `the pivot table at ${a1Of(anchor, tabs)} (${describePivot(current, header ?? [], tabs)})`;
      },
    }),
  ];
}

/** The one request: the anchor's `pivotTable` written, or written empty to remove it. */
function pivotWrite(
  anchor: sheets_v4.Schema$GridRange,
  pivot: PivotTable | undefined,
): sheets_v4.Schema$Request {
  return {
    updateCells: {
      range: anchor,
      rows: [{ values: [pivot ? { pivotTable: pivot } : {}] }],
      fields: 'pivotTable',
    },
  };
}

/** A range with every side closed at the tab's grid, as a pivot table's source is kept. */
function wholeRange({
  range,
  tab,
}: {
  range: sheets_v4.Schema$GridRange;
  tab: Tab;
}): sheets_v4.Schema$GridRange {
  return {
    sheetId: tab.sheetId,
    startRowIndex: range.startRowIndex ?? 0,
    endRowIndex: range.endRowIndex ?? tab.rowCount,
    startColumnIndex: range.startColumnIndex ?? 0,
    endColumnIndex: range.endColumnIndex ?? tab.columnCount,
  };
}

function inside(cell: sheets_v4.Schema$GridRange, area: sheets_v4.Schema$GridRange): boolean {
  const row = cell.startRowIndex ?? 0;
  const columnIndex = cell.startColumnIndex ?? 0;
  return (
    (cell.sheetId ?? 0) === (area.sheetId ?? 0) &&
    row >= (area.startRowIndex ?? 0) &&
    row < (area.endRowIndex ?? Number.POSITIVE_INFINITY) &&
    columnIndex >= (area.startColumnIndex ?? 0) &&
    columnIndex < (area.endColumnIndex ?? Number.POSITIVE_INFINITY)
  );
}

function sameRange(a: sheets_v4.Schema$GridRange, b: sheets_v4.Schema$GridRange): boolean {
  const keys = ['sheetId', 'startRowIndex', 'endRowIndex', 'startColumnIndex', 'endColumnIndex'] as const;
  return keys.every((key) => (a[key] ?? 0) === (b[key] ?? 0));
}

/**
 * A column of the source by its header text (trimmed, whatever the case), else by its letter on
 * the tab; refused naming the header's columns.
 */
function columnFinder(header: readonly string[], source: sheets_v4.Schema$GridRange, sourceText: string) {
  const first = source.startColumnIndex ?? 0;
  const names = header.map((name) => name.trim().toLowerCase());
  return (name: string): number => {
    const byName = names.indexOf(name.trim().toLowerCase());
    if (byName >= 0) return byName;
    const byLetter = header.findIndex(
      (_, offset) => columnLetters(first + offset) === name.trim().toUpperCase(),
    );
    if (byLetter >= 0) return byLetter;
    const quoted = header
      .filter((each) => each.trim() !== '')
      .slice(0, NAMES_QUOTED)
      .map((each) => JSON.stringify(clip(each, NAME_CHARACTERS)));
    const more = header.length > NAMES_QUOTED ? ', …' : '';
    throw new ToolError(
      `no column ${JSON.stringify(clip(name, NAME_CHARACTERS))} in the header row of ${sourceText}${quoted.length ? `; its columns are ${quoted.join(', ')}${more}` : ', which is empty'}`,
    );
  };
}

function groupOf(
  each: {
    column: string;
    descending?: boolean | undefined;
    totals?: boolean | undefined;
    byValue?: boolean | undefined;
  },
  offsetOf: (name: string) => number,
): sheets_v4.Schema$PivotGroup {
  return {
    sourceColumnOffset: offsetOf(each.column),
    showTotals: each.totals ?? true,
    sortOrder: each.descending ? 'DESCENDING' : 'ASCENDING',
    ...(each.byValue ? { valueBucket: { valuesIndex: 0 } } : {}),
  };
}

function filterOf(
  each: {
    column: string;
    show?: string[] | undefined;
    condition?: Condition | undefined;
    values?: Array<string | number> | undefined;
  },
  offsetOf: (name: string) => number,
): sheets_v4.Schema$PivotFilterSpec {
  const columnOffsetIndex = offsetOf(each.column);
  if (!each.show && !each.condition)
    throw new ToolError(
      `the filter on ${JSON.stringify(clip(each.column, NAME_CHARACTERS))} needs show or condition`,
    );
  const wanted = each.condition ? CONDITIONS[each.condition] : 0;
  if ((each.values?.length ?? 0) !== wanted)
    throw new ToolError(
      each.condition
        ? `${each.condition} takes ${wanted} value${wanted === 1 ? '' : 's'}`
        : 'values go with a condition',
    );
  return {
    columnOffsetIndex,
    filterCriteria: {
      ...(each.show ? { visibleValues: each.show } : {}),
      ...(each.condition
        ? {
            condition: {
              type: each.condition,
              ...(wanted
                ? { values: (each.values ?? []).map((value) => ({ userEnteredValue: String(value) })) }
                : {}),
            },
          }
        : {}),
    },
  };
}
