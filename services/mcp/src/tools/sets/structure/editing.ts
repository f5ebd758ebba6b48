import type { sheets_v4 } from 'googleapis';
import { z } from 'zod';
import { ToolError } from '../../../errors/tool-error.ts';
import { amount, cellsOf, nonEmptyCount, tabName } from '../../guards/loss-phrases.ts';
import { lossReads } from '../../guards/loss-reads.ts';
import { columnLetters, gridBounds, rangeOnSheet, splitRange } from '../../kit/a1.ts';
import { CHANGE } from '../../kit/annotations.ts';
import { a1Range, dryRun, dryRunOutput, sheetId, spreadsheetId } from '../../kit/common-schemas.ts';
import { firstVisibleTab, TAB_PROPERTY_FIELDS } from '../../kit/first-visible-tab.ts';
import { spreadsheetBatchUpdate } from '../../kit/spreadsheet-batch-update.ts';
import { defineTool, type ToolContext } from '../../kit/tool-definition.ts';
import type { ToolDeps } from '../../kit/tool-deps.ts';

/**
 * Editing that keeps formulas and formats (docs/design.md §11): copy or cut a range, fill a series,
 * sort, find and replace, merge, freeze, size or hide rows and columns, and copy a tab into another
 * spreadsheet. Each reads the tabs first (one spreadsheets.get: titles, ids, grid sizes, merges),
 * so that an unknown tab or a range outside the grid is refused before Google sees a write — and a
 * dry run makes no write at all — then sends one batchUpdate.
 */

const DESTRUCTIVE = { ...CHANGE, destructiveHint: true };

interface Tab {
  sheetId: number;
  title: string;
  rows: number;
  columns: number;
  hidden: boolean;
  merges: Area[];
}

/** A rectangle on a tab, as a GridRange (zero-based, end-exclusive), every bound set. */
interface Area {
  sheetId: number;
  startRowIndex: number;
  endRowIndex: number;
  startColumnIndex: number;
  endColumnIndex: number;
}

const heightOf = (area: Area) => area.endRowIndex - area.startRowIndex;
const widthOf = (area: Area) => area.endColumnIndex - area.startColumnIndex;
const cellCount = (area: Area) => heightOf(area) * widthOf(area);

/** `'My tab'!B2:C9` for an area of a tab. */
function a1Of(tab: Tab, area: Area): string {
  const start = `${columnLetters(area.startColumnIndex)}${area.startRowIndex + 1}`;
  const end = `${columnLetters(area.endColumnIndex - 1)}${area.endRowIndex}`;
  return rangeOnSheet(tab.title, start === end ? start : `${start}:${end}`);
}

const sizeOf = (tab: Tab) => `${amount(tab.rows, 'row')} × ${amount(tab.columns, 'column')}`;

const overlaps = (a: Area, b: Area) =>
  a.sheetId === b.sheetId &&
  a.startRowIndex < b.endRowIndex &&
  b.startRowIndex < a.endRowIndex &&
  a.startColumnIndex < b.endColumnIndex &&
  b.startColumnIndex < a.endColumnIndex;
const inside = (inner: Area, outer: Area) =>
  inner.sheetId === outer.sheetId &&
  inner.startRowIndex >= outer.startRowIndex &&
  inner.endRowIndex <= outer.endRowIndex &&
  inner.startColumnIndex >= outer.startColumnIndex &&
  inner.endColumnIndex <= outer.endColumnIndex;

const PASTE_TYPES = {
  all: 'PASTE_NORMAL',
  values: 'PASTE_VALUES',
  formulas: 'PASTE_FORMULA',
  formats: 'PASTE_FORMAT',
} as const;

const MERGE_TYPES = { all: 'MERGE_ALL', columns: 'MERGE_COLUMNS', rows: 'MERGE_ROWS' } as const;

export function editingTools(deps: ToolDeps) {
  const { sheets, callGoogle } = deps;
  const batchUpdate = spreadsheetBatchUpdate(deps);
  const reads = lossReads(deps);

  /** The tabs' ids, titles, grid sizes and merges: one spreadsheets.get. */
  async function readTabs(userId: string, signal: AbortSignal, id: string): Promise<Tab[]> {
    const { data } = await callGoogle(userId, signal, (request) =>
      sheets.spreadsheets.get(
        {
          spreadsheetId: id,
          fields: `sheets(properties(${TAB_PROPERTY_FIELDS}),merges)`,
        },
        request,
      ),
    );
    return (data.sheets ?? []).map((sheet) => {
      const sheetId = sheet.properties?.sheetId ?? 0;
      return {
        sheetId,
        title: sheet.properties?.title ?? '',
        rows: sheet.properties?.gridProperties?.rowCount ?? 0,
        columns: sheet.properties?.gridProperties?.columnCount ?? 0,
        hidden: sheet.properties?.hidden === true,
        merges: (sheet.merges ?? []).map((merge) => ({
          sheetId,
          startRowIndex: merge.startRowIndex ?? 0,
          endRowIndex: merge.endRowIndex ?? 0,
          startColumnIndex: merge.startColumnIndex ?? 0,
          endColumnIndex: merge.endColumnIndex ?? 0,
        })),
      };
    });
  }

  function tabWithId(tabs: Tab[], id: number): Tab {
    const tab = tabs.find((each) => each.sheetId === id);
    if (!tab) throw new ToolError(`there is no tab with sheetId ${id}; get_spreadsheet lists the tabs`);
    return tab;
  }

  /** The tab and the area an A1 range names, refused clearly when it is not on the grid. */
  function resolve(tabs: Tab[], range: string, what = 'range'): { tab: Tab; area: Area } {
    const { sheetTitle, cells } = splitRange(range);
    // Sheets matches a range's tab name exactly first, then ignoring case.
    const tab =
      sheetTitle === undefined
        ? firstVisibleTab(tabs)
        : (tabs.find((each) => each.title === sheetTitle) ??
          tabs.find((each) => each.title.toLowerCase() === sheetTitle.toLowerCase()));
    if (!tab)
      throw new ToolError(
        `the ${what} ${JSON.stringify(range)} names no tab of this spreadsheet (${JSON.stringify(sheetTitle)}); get_spreadsheet lists the tabs`,
      );
    const bounds = gridBounds(cells);
    if (!bounds)
      throw new ToolError(`cannot read the cells of the ${what} ${JSON.stringify(range)} as A1 notation`);
    const area: Area = {
      sheetId: tab.sheetId,
      startRowIndex: bounds.startRowIndex ?? 0,
      endRowIndex: bounds.endRowIndex ?? tab.rows,
      startColumnIndex: bounds.startColumnIndex ?? 0,
      endColumnIndex: bounds.endColumnIndex ?? tab.columns,
    };
    if (heightOf(area) <= 0 || widthOf(area) <= 0)
      throw new ToolError(
        `the ${what} ${JSON.stringify(range)} holds no cells: write its start before its end`,
      );
    checkOnGrid(tab, area, `the ${what} ${JSON.stringify(range)}`);
    return { tab, area };
  }

  function checkOnGrid(tab: Tab, area: Area, what: string): void {
    if (area.endRowIndex > tab.rows || area.endColumnIndex > tab.columns)
      throw new ToolError(
        `${what} reaches past the tab ${JSON.stringify(tab.title)}, which has ${sizeOf(tab)}; insert_dimension adds rows or columns`,
      );
  }

  function dimensionArea(
    tab: Tab,
    dimension: 'ROWS' | 'COLUMNS',
    startIndex: number,
    endIndex: number,
  ): sheets_v4.Schema$DimensionRange {
    if (endIndex <= startIndex) throw new ToolError('endIndex must be greater than startIndex');
    const count = dimension === 'ROWS' ? tab.rows : tab.columns;
    if (endIndex > count)
      throw new ToolError(
        `endIndex ${endIndex} is past the tab ${JSON.stringify(tab.title)}, which has ${amount(count, dimension === 'ROWS' ? 'row' : 'column')}`,
      );
    return { sheetId: tab.sheetId, dimension, startIndex, endIndex };
  }

  /**
   * The cells a paste writes (written-area.ts's rule for pastes): a cell or a range that is not a
   * multiple of the source takes the source once from its top-left cell; a multiple repeats it.
   */
  function pasteArea(
    tabs: Tab[],
    input: { source: string; destination: string; mode: 'copy' | 'cut' },
  ): { source: { tab: Tab; area: Area }; destination: { tab: Tab; area: Area }; written: Area } {
    const source = resolve(tabs, input.source, 'source');
    // A tab's name alone is its top-left cell: the whole tab would repeat the source all over it.
    const destination = resolve(
      tabs,
      splitRange(input.destination).cells === '' ? `${input.destination}!A1` : input.destination,
      'destination',
    );
    const rows = heightOf(source.area);
    const columns = widthOf(source.area);
    const singleCell = cellCount(destination.area) === 1;
    if (
      input.mode === 'cut' &&
      !singleCell &&
      (heightOf(destination.area) !== rows || widthOf(destination.area) !== columns)
    )
      throw new ToolError(
        `a cut moves ${input.source} (${amount(rows, 'row')} × ${amount(columns, 'column')}) as it is: give its destination as one cell or a range of that size, not ${input.destination}`,
      );
    // As Sheets pastes: a multiple of the source's height (width) repeats it, else it is pasted once.
    const repeat = (span: number, unit: number) =>
      input.mode === 'copy' && span > unit && span % unit === 0 ? span / unit : 1;
    const written: Area = {
      sheetId: destination.tab.sheetId,
      startRowIndex: destination.area.startRowIndex,
      endRowIndex: destination.area.startRowIndex + rows * repeat(heightOf(destination.area), rows),
      startColumnIndex: destination.area.startColumnIndex,
      endColumnIndex:
        destination.area.startColumnIndex + columns * repeat(widthOf(destination.area), columns),
    };
    checkOnGrid(destination.tab, written, `pasting ${input.source} at ${input.destination}`);
    return { source, destination, written };
  }

  /** The cells an autofill writes: `count` rows or columns beside the source, in its direction. */
  function fillArea(
    tabs: Tab[],
    input: { source: string; direction: 'down' | 'up' | 'right' | 'left'; count: number },
  ): { tab: Tab; area: Area; filled: Area } {
    const { tab, area } = resolve(tabs, input.source, 'source');
    const filled = { ...area };
    if (input.direction === 'down') {
      filled.startRowIndex = area.endRowIndex;
      filled.endRowIndex = area.endRowIndex + input.count;
    } else if (input.direction === 'up') {
      filled.startRowIndex = area.startRowIndex - input.count;
      filled.endRowIndex = area.startRowIndex;
    } else if (input.direction === 'right') {
      filled.startColumnIndex = area.endColumnIndex;
      filled.endColumnIndex = area.endColumnIndex + input.count;
    } else {
      filled.startColumnIndex = area.startColumnIndex - input.count;
      filled.endColumnIndex = area.startColumnIndex;
    }
    if (filled.startRowIndex < 0 || filled.startColumnIndex < 0)
      throw new ToolError(
        `filling ${input.count} ${input.direction} from ${input.source} would go before the first row or column`,
      );
    checkOnGrid(tab, filled, `filling ${input.count} ${input.direction} from ${input.source}`);
    return { tab, area, filled };
  }

  /** `Overwrites B2:D5 of the tab "Q3": 12 non-empty cells.`, or null when they hold nothing. */
  async function overwriteLoss(spreadsheetId: string, tab: Tab, area: Area, context: ToolContext) {
    const lossArea = {
      tab: { sheetId: tab.sheetId, title: tab.title, rows: tab.rows, columns: tab.columns },
      rowStart: area.startRowIndex,
      rowEnd: area.endRowIndex,
      columnStart: area.startColumnIndex,
      columnEnd: area.endColumnIndex,
    };
    const [count] = await reads.count(spreadsheetId, [lossArea], context);
    if (count!.complete && count!.nonEmpty === 0) return null;
    return `Overwrites ${cellsOf(lossArea)} of ${tabName(lossArea.tab)}: ${nonEmptyCount(count!)}.`;
  }

  const dryRunText = (sentence: string) => `Dry run: would ${sentence}. Nothing was changed.`;

  return [
    defineTool({
      name: 'copy_range',
      toolset: 'structure',
      title: 'Copy or move a range',
      description:
        'Copies (or, with mode "cut", moves) a range to another place, in the same tab or another one, keeping formulas and formats: copied formulas shift their relative references as in Sheets, moved ones keep them. `paste` picks what is copied: all, values (formula results), formulas, or formats. A copy to a destination that is a multiple of the source repeats it. The cells written are overwritten.',
      scope: 'sheets:write',
      annotations: DESTRUCTIVE,
      inputSchema: z.object({
        spreadsheetId,
        source: a1Range.describe("The range to copy, e.g. 'Q1'!A1:C9."),
        destination: a1Range.describe(
          "Where to paste: a top-left cell (e.g. 'Q2'!A1) or a range; for a cut, a cell or a range of the source's size.",
        ),
        mode: z.enum(['copy', 'cut']).default('copy'),
        paste: z.enum(['all', 'values', 'formulas', 'formats']).default('all'),
        dryRun,
      }),
      outputSchema: z.object({
        source: z.string(),
        destination: z.string().describe('Every cell written.'),
        mode: z.enum(['copy', 'cut']),
        paste: z.string(),
        cells: z.number(),
        dryRun: dryRunOutput,
      }),
      async run(input, { auth, signal }) {
        const tabs = await readTabs(auth.userId, signal, input.spreadsheetId);
        const { source, destination, written } = pasteArea(tabs, input);
        const result = {
          source: a1Of(source.tab, source.area),
          destination: a1Of(destination.tab, written),
          mode: input.mode,
          paste: input.paste,
          cells: cellCount(written),
        };
        const sentence = `${input.mode} ${result.source} to ${result.destination} (${input.paste === 'all' ? 'values, formulas and formats' : input.paste}; ${amount(result.cells, 'cell')} overwritten)`;
        if (input.dryRun)
          return { structuredContent: { ...result, dryRun: true }, text: dryRunText(sentence) };
        const pasteType = PASTE_TYPES[input.paste];
        await batchUpdate(auth.userId, signal, input.spreadsheetId, [
          input.mode === 'cut'
            ? {
                cutPaste: {
                  source: source.area,
                  destination: {
                    sheetId: written.sheetId,
                    rowIndex: written.startRowIndex,
                    columnIndex: written.startColumnIndex,
                  },
                  pasteType,
                },
              }
            : { copyPaste: { source: source.area, destination: written, pasteType } },
        ]);
        return {
          structuredContent: result,
          text: `${input.mode === 'cut' ? 'Moved' : 'Copied'} ${result.source} to ${result.destination} (${amount(result.cells, 'cell')}).`,
        };
      },
      async describeLoss(input, context) {
        const tabs = await readTabs(context.auth.userId, context.signal, input.spreadsheetId);
        const { destination, written } = pasteArea(tabs, input);
        return overwriteLoss(input.spreadsheetId, destination.tab, written, context);
      },
    }),

    defineTool({
      name: 'autofill',
      toolset: 'structure',
      title: 'Fill a series or formula',
      description:
        'Extends the cells of a range down, up, right or left by `count` rows or columns, as dragging the fill handle does: numbers (and text ending in a number) continue their series, formulas are copied with their relative references shifted, formats come along. The cells filled are overwritten.',
      scope: 'sheets:write',
      annotations: DESTRUCTIVE,
      inputSchema: z.object({
        spreadsheetId,
        source: a1Range.describe('The cells to extend, e.g. Sheet1!A2:C3 (two rows give a series its step).'),
        direction: z.enum(['down', 'up', 'right', 'left']).default('down'),
        count: z.number().int().min(1).max(100_000).describe('How many rows (or columns) to fill.'),
        dryRun,
      }),
      outputSchema: z.object({
        source: z.string(),
        filled: z.string(),
        cells: z.number(),
        dryRun: dryRunOutput,
      }),
      async run(input, { auth, signal }) {
        const tabs = await readTabs(auth.userId, signal, input.spreadsheetId);
        const { tab, area, filled } = fillArea(tabs, input);
        const result = { source: a1Of(tab, area), filled: a1Of(tab, filled), cells: cellCount(filled) };
        if (input.dryRun)
          return {
            structuredContent: { ...result, dryRun: true },
            text: dryRunText(`fill ${result.filled} from ${result.source}`),
          };
        const rows = input.direction === 'down' || input.direction === 'up';
        await batchUpdate(auth.userId, signal, input.spreadsheetId, [
          {
            autoFill: {
              sourceAndDestination: {
                source: area,
                dimension: rows ? 'ROWS' : 'COLUMNS',
                fillLength:
                  input.direction === 'down' || input.direction === 'right' ? input.count : -input.count,
              },
            },
          },
        ]);
        return {
          structuredContent: result,
          text: `Filled ${result.filled} from ${result.source} (${amount(result.cells, 'cell')}).`,
        };
      },
      async describeLoss(input, context) {
        const tabs = await readTabs(context.auth.userId, context.signal, input.spreadsheetId);
        const { tab, filled } = fillArea(tabs, input);
        return overwriteLoss(input.spreadsheetId, tab, filled, context);
      },
    }),

    defineTool({
      name: 'sort_range',
      toolset: 'structure',
      title: 'Sort a range',
      description:
        'Sorts the rows of a range by one or more of its columns, ascending or descending (numbers before text, blank cells last), moving whole rows with their formats; formulas move with their rows. With headerRow the first row stays in place.',
      scope: 'sheets:write',
      annotations: DESTRUCTIVE,
      inputSchema: z.object({
        spreadsheetId,
        range: a1Range.describe("The rows to sort, e.g. 'Orders'!A1:F200."),
        sortBy: z
          .array(
            z.object({
              column: z
                .string()
                .regex(/^[A-Za-z]{1,3}$/, 'a column letter such as B')
                .describe('A column letter inside the range.'),
              order: z.enum(['ascending', 'descending']).default('ascending'),
            }),
          )
          .min(1)
          .max(10)
          .describe('The columns to sort by, the first deciding most.'),
        headerRow: z
          .boolean()
          .default(false)
          .describe('The range starts with a header row that stays first.'),
        dryRun,
      }),
      outputSchema: z.object({
        range: z.string(),
        rows: z.number(),
        sortBy: z.string(),
        dryRun: dryRunOutput,
      }),
      async run(input, { auth, signal }) {
        const tabs = await readTabs(auth.userId, signal, input.spreadsheetId);
        const { tab, area } = resolve(tabs, input.range);
        const sorted = { ...area, startRowIndex: area.startRowIndex + (input.headerRow ? 1 : 0) };
        if (heightOf(sorted) < 1) throw new ToolError(`${input.range} has no rows below its header to sort`);
        const sortSpecs = input.sortBy.map(({ column, order }) => {
          const index = gridBounds(`${column}:${column}`)?.startColumnIndex ?? -1;
          if (index < area.startColumnIndex || index >= area.endColumnIndex)
            throw new ToolError(`column ${column.toUpperCase()} is not inside ${input.range}`);
          return { dimensionIndex: index, sortOrder: order === 'ascending' ? 'ASCENDING' : 'DESCENDING' };
        });
        const sortBy = input.sortBy.map(({ column, order }) => `${column.toUpperCase()} ${order}`).join(', ');
        const result = { range: a1Of(tab, sorted), rows: heightOf(sorted), sortBy };
        if (input.dryRun)
          return {
            structuredContent: { ...result, dryRun: true },
            text: dryRunText(`sort ${amount(result.rows, 'row')} of ${result.range} by ${sortBy}`),
          };
        await batchUpdate(auth.userId, signal, input.spreadsheetId, [
          { sortRange: { range: sorted, sortSpecs } },
        ]);
        return { structuredContent: result, text: `Sorted ${result.range} by ${sortBy}.` };
      },
    }),

    defineTool({
      name: 'find_replace',
      toolset: 'structure',
      title: 'Find and replace',
      description:
        'Replaces text in a range, a tab (its name alone as range), or every tab (no range), as Edit > Find and replace does. Formulas are searched only with includeFormulas; searchByRegex uses RE2 syntax, with $1 for groups in the replacement.',
      scope: 'sheets:write',
      annotations: DESTRUCTIVE,
      inputSchema: z.object({
        spreadsheetId,
        find: z.string().min(1).max(1_000),
        replacement: z.string().max(50_000).default(''),
        range: a1Range.optional().describe('A range or a tab name; every tab when left out.'),
        matchCase: z.boolean().default(false),
        matchEntireCell: z.boolean().default(false),
        searchByRegex: z.boolean().default(false),
        includeFormulas: z.boolean().default(false),
        dryRun,
      }),
      outputSchema: z.object({
        scope: z.string(),
        // Google's counts; null in a dry run (Google counts only by replacing).
        occurrencesChanged: z.number().nullable(),
        valuesChanged: z.number().nullable(),
        formulasChanged: z.number().nullable(),
        rowsChanged: z.number().nullable(),
        sheetsChanged: z.number().nullable(),
        dryRun: dryRunOutput,
      }),
      async run(input, { auth, signal }) {
        if (input.searchByRegex) {
          try {
            new RegExp(input.find);
          } catch (error) {
            throw new ToolError(`find is not a regular expression: ${(error as Error).message}`);
          }
        }
        let where: Pick<sheets_v4.Schema$FindReplaceRequest, 'range' | 'sheetId' | 'allSheets'> = {
          allSheets: true,
        };
        let scope = 'every tab';
        if (input.range !== undefined) {
          const tabs = await readTabs(auth.userId, signal, input.spreadsheetId);
          const { tab, area } = resolve(tabs, input.range);
          const wholeTab = splitRange(input.range).cells === '';
          where = wholeTab ? { sheetId: tab.sheetId } : { range: area };
          scope = wholeTab ? `the tab ${JSON.stringify(tab.title)}` : a1Of(tab, area);
        }
        const sentence = `replace ${JSON.stringify(input.find)} with ${JSON.stringify(input.replacement)} in ${scope}`;
        if (input.dryRun)
          return {
            structuredContent: {
              scope,
              occurrencesChanged: null,
              valuesChanged: null,
              formulasChanged: null,
              rowsChanged: null,
              sheetsChanged: null,
              dryRun: true,
            },
            text: `${dryRunText(sentence)} find_in_spreadsheet shows where it occurs.`,
          };
        const reply = await batchUpdate(auth.userId, signal, input.spreadsheetId, [
          {
            findReplace: {
              find: input.find,
              replacement: input.replacement,
              ...where,
              matchCase: input.matchCase,
              matchEntireCell: input.matchEntireCell,
              searchByRegex: input.searchByRegex,
              includeFormulas: input.includeFormulas,
            },
          },
        ]);
        const counts = reply.replies?.[0]?.findReplace ?? {};
        const result = {
          scope,
          occurrencesChanged: counts.occurrencesChanged ?? 0,
          valuesChanged: counts.valuesChanged ?? 0,
          formulasChanged: counts.formulasChanged ?? 0,
          rowsChanged: counts.rowsChanged ?? 0,
          sheetsChanged: counts.sheetsChanged ?? 0,
        };
        return {
          structuredContent: result,
          text:
            result.occurrencesChanged === 0
              ? `Found no ${JSON.stringify(input.find)} to replace in ${scope}.`
              : `Replaced ${amount(result.occurrencesChanged, 'occurrence')} of ${JSON.stringify(input.find)} in ${scope}: ${amount(result.valuesChanged, 'value')} and ${amount(result.formulasChanged, 'formula')} in ${amount(result.rowsChanged, 'row')} of ${amount(result.sheetsChanged, 'tab')}.`,
        };
      },
    }),

    defineTool({
      name: 'merge_cells',
      toolset: 'structure',
      title: 'Merge cells',
      description:
        'Merges the cells of a range into one (all), one per column (columns) or one per row (rows). A merged area keeps only its top-left value; the others are lost. Merges inside the range are replaced; one that sticks out of it is refused.',
      scope: 'sheets:write',
      annotations: DESTRUCTIVE,
      inputSchema: z.object({
        spreadsheetId,
        range: a1Range,
        mergeType: z.enum(['all', 'columns', 'rows']).default('all'),
        dryRun,
      }),
      outputSchema: z.object({
        range: z.string(),
        mergeType: z.string(),
        merges: z.number(),
        dryRun: dryRunOutput,
      }),
      async run(input, { auth, signal }) {
        const tabs = await readTabs(auth.userId, signal, input.spreadsheetId);
        const { tab, area } = resolve(tabs, input.range);
        const merges =
          input.mergeType === 'all' ? 1 : input.mergeType === 'columns' ? widthOf(area) : heightOf(area);
        const each =
          input.mergeType === 'all'
            ? cellCount(area)
            : input.mergeType === 'columns'
              ? heightOf(area)
              : widthOf(area);
        if (each < 2)
          throw new ToolError(
            `merging ${input.range} by ${input.mergeType} would merge single cells: a merge needs at least two`,
          );
        const clash = tab.merges.find((merge) => overlaps(merge, area) && !inside(merge, area));
        if (clash)
          throw new ToolError(
            `${input.range} overlaps the merged cells ${a1Of(tab, clash)} without covering them; unmerge_cells them first or merge a range that covers them`,
          );
        const result = { range: a1Of(tab, area), mergeType: input.mergeType, merges };
        const sentence = `merge ${result.range} (${amount(merges, 'merged area')}; only each area's top-left value is kept)`;
        if (input.dryRun)
          return { structuredContent: { ...result, dryRun: true }, text: dryRunText(sentence) };
        await batchUpdate(auth.userId, signal, input.spreadsheetId, [
          { mergeCells: { range: area, mergeType: MERGE_TYPES[input.mergeType] } },
        ]);
        return {
          structuredContent: result,
          text: `Merged ${result.range} (${amount(merges, 'merged area')}).`,
        };
      },
    }),

    defineTool({
      name: 'unmerge_cells',
      toolset: 'structure',
      title: 'Unmerge cells',
      description: 'Splits every merged area that touches the range back into single cells.',
      scope: 'sheets:write',
      annotations: { ...CHANGE, idempotentHint: true },
      inputSchema: z.object({ spreadsheetId, range: a1Range, dryRun }),
      outputSchema: z.object({ range: z.string(), unmerged: z.array(z.string()), dryRun: dryRunOutput }),
      async run(input, { auth, signal }) {
        const tabs = await readTabs(auth.userId, signal, input.spreadsheetId);
        const { tab, area } = resolve(tabs, input.range);
        const unmerged = tab.merges.filter((merge) => overlaps(merge, area)).map((merge) => a1Of(tab, merge));
        const result = { range: a1Of(tab, area), unmerged };
        const what = unmerged.length === 0 ? 'no merged cells' : unmerged.join(', ');
        if (input.dryRun)
          return { structuredContent: { ...result, dryRun: true }, text: dryRunText(`unmerge ${what}`) };
        if (unmerged.length > 0)
          await batchUpdate(auth.userId, signal, input.spreadsheetId, [{ unmergeCells: { range: area } }]);
        return {
          structuredContent: result,
          text: unmerged.length === 0 ? `${result.range} has no merged cells.` : `Unmerged ${what}.`,
        };
      },
    }),

    defineTool({
      name: 'freeze',
      toolset: 'structure',
      title: 'Freeze rows or columns',
      description:
        'Freezes the first rows and/or columns of a tab so that they stay in view while scrolling; 0 unfreezes.',
      scope: 'sheets:write',
      annotations: { ...CHANGE, idempotentHint: true },
      inputSchema: z.object({
        spreadsheetId,
        sheetId,
        rows: z
          .number()
          .int()
          .min(0)
          .max(10_000)
          .optional()
          .describe('Rows to freeze from the top; 0 unfreezes.'),
        columns: z.number().int().min(0).max(1_000).optional().describe('Columns to freeze from the left.'),
        dryRun,
      }),
      outputSchema: z.object({
        sheetId: z.number(),
        frozenRows: z.number().nullable(),
        frozenColumns: z.number().nullable(),
        dryRun: dryRunOutput,
      }),
      async run(input, { auth, signal }) {
        if (input.rows === undefined && input.columns === undefined)
          throw new ToolError('name rows, columns or both to freeze (0 unfreezes)');
        const tab = tabWithId(await readTabs(auth.userId, signal, input.spreadsheetId), input.sheetId);
        if ((input.rows ?? 0) >= tab.rows || (input.columns ?? 0) >= tab.columns)
          throw new ToolError(
            `the tab ${JSON.stringify(tab.title)} has ${sizeOf(tab)}: at least one row and one column must stay unfrozen`,
          );
        // As Sheets refuses to: a frozen edge may not cut through merged cells.
        const cut = tab.merges.find(
          (merge) =>
            (input.rows !== undefined &&
              merge.startRowIndex < input.rows &&
              input.rows < merge.endRowIndex) ||
            (input.columns !== undefined &&
              merge.startColumnIndex < input.columns &&
              input.columns < merge.endColumnIndex),
        );
        if (cut)
          throw new ToolError(
            `freezing there would cut through the merged cells ${a1Of(tab, cut)}; unmerge_cells them first or freeze past them`,
          );
        const fields = [
          ...(input.rows === undefined ? [] : ['gridProperties.frozenRowCount']),
          ...(input.columns === undefined ? [] : ['gridProperties.frozenColumnCount']),
        ];
        const result = {
          sheetId: tab.sheetId,
          frozenRows: input.rows ?? null,
          frozenColumns: input.columns ?? null,
        };
        const parts = [
          ...(input.rows === undefined ? [] : [amount(input.rows, 'row')]),
          ...(input.columns === undefined ? [] : [amount(input.columns, 'column')]),
        ].join(' and ');
        const sentence = `freeze ${parts} of the tab ${JSON.stringify(tab.title)}`;
        if (input.dryRun)
          return { structuredContent: { ...result, dryRun: true }, text: dryRunText(sentence) };
        await batchUpdate(auth.userId, signal, input.spreadsheetId, [
          {
            updateSheetProperties: {
              properties: {
                sheetId: tab.sheetId,
                gridProperties: {
                  ...(input.rows === undefined ? {} : { frozenRowCount: input.rows }),
                  ...(input.columns === undefined ? {} : { frozenColumnCount: input.columns }),
                },
              },
              fields: fields.join(','),
            },
          },
        ]);
        return { structuredContent: result, text: `Froze ${parts} of the tab ${JSON.stringify(tab.title)}.` };
      },
    }),

    defineTool({
      name: 'set_dimension_properties',
      toolset: 'structure',
      title: 'Size or hide rows or columns',
      description:
        'Sets the height of rows or the width of columns in pixels, or fits them to their contents (fitToData), and hides or shows them.',
      scope: 'sheets:write',
      annotations: { ...CHANGE, idempotentHint: true },
      inputSchema: z.object({
        spreadsheetId,
        sheetId,
        dimension: z.enum(['ROWS', 'COLUMNS']),
        startIndex: z.number().int().min(0).describe('Zero-based, inclusive.'),
        endIndex: z.number().int().min(1).describe('Zero-based, exclusive.'),
        pixelSize: z.number().int().min(0).max(10_000).optional(),
        fitToData: z.boolean().optional().describe('Fit the size to the contents (instead of pixelSize).'),
        hidden: z.boolean().optional().describe('true hides, false shows.'),
        dryRun,
      }),
      outputSchema: z.object({
        sheetId: z.number(),
        dimension: z.string(),
        startIndex: z.number(),
        endIndex: z.number(),
        changed: z.array(z.string()),
        dryRun: dryRunOutput,
      }),
      async run(input, { auth, signal }) {
        if (input.pixelSize !== undefined && input.fitToData)
          throw new ToolError('give pixelSize or fitToData, not both');
        if (input.pixelSize === undefined && !input.fitToData && input.hidden === undefined)
          throw new ToolError('name pixelSize, fitToData or hidden');
        const tab = tabWithId(await readTabs(auth.userId, signal, input.spreadsheetId), input.sheetId);
        const range = dimensionArea(tab, input.dimension, input.startIndex, input.endIndex);
        const properties: sheets_v4.Schema$DimensionProperties = {};
        const fields: string[] = [];
        if (input.pixelSize !== undefined) {
          properties.pixelSize = input.pixelSize;
          fields.push('pixelSize');
        }
        if (input.hidden !== undefined) {
          properties.hiddenByUser = input.hidden;
          fields.push('hiddenByUser');
        }
        const requests: sheets_v4.Schema$Request[] = [];
        if (fields.length > 0)
          requests.push({ updateDimensionProperties: { range, properties, fields: fields.join(',') } });
        if (input.fitToData) requests.push({ autoResizeDimensions: { dimensions: range } });
        const changed = [
          ...(input.pixelSize === undefined ? [] : [`${input.pixelSize} px`]),
          ...(input.fitToData ? ['fitted to data'] : []),
          ...(input.hidden === undefined ? [] : [input.hidden ? 'hidden' : 'shown']),
        ];
        const span = `${input.dimension.toLowerCase()} ${input.startIndex}–${input.endIndex - 1} (zero-based) of the tab ${JSON.stringify(tab.title)}`;
        const result = {
          sheetId: tab.sheetId,
          dimension: input.dimension,
          startIndex: input.startIndex,
          endIndex: input.endIndex,
          changed,
        };
        if (input.dryRun)
          return {
            structuredContent: { ...result, dryRun: true },
            text: dryRunText(`set ${span}: ${changed.join(', ')}`),
          };
        await batchUpdate(auth.userId, signal, input.spreadsheetId, requests);
        return { structuredContent: result, text: `Set ${span}: ${changed.join(', ')}.` };
      },
    }),
    defineTool({
      name: 'copy_sheet_to',
      toolset: 'structure',
      title: 'Copy a tab to another spreadsheet',
      description:
        'Copies a tab, with its values, formulas, formats and merges, to the end of another spreadsheet (or the same one), where it is named "Copy of <title>".',
      scope: 'sheets:write',
      annotations: CHANGE,
      inputSchema: z.object({
        spreadsheetId,
        sheetId,
        destinationSpreadsheetId: spreadsheetId.describe('The spreadsheet to copy the tab into.'),
        dryRun,
      }),
      // The new tab's id and title are null in a dry run: Google picks them when it copies.
      outputSchema: z.object({
        sheetId: z.number().nullable(),
        title: z.string().nullable(),
        destinationSpreadsheetId: z.string(),
        dryRun: dryRunOutput,
      }),
      async run(input, { auth, signal }) {
        if (input.dryRun) {
          // Reads only: the tab must exist, and the destination must be one the person can open.
          const tab = tabWithId(await readTabs(auth.userId, signal, input.spreadsheetId), input.sheetId);
          const { data } = await callGoogle(auth.userId, signal, (request) =>
            sheets.spreadsheets.get(
              { spreadsheetId: input.destinationSpreadsheetId, fields: 'properties.title' },
              request,
            ),
          );
          return {
            structuredContent: {
              sheetId: null,
              title: null,
              destinationSpreadsheetId: input.destinationSpreadsheetId,
              dryRun: true,
            },
            text: dryRunText(
              `copy the tab ${JSON.stringify(tab.title)} to the end of ${JSON.stringify(data.properties?.title ?? '')}`,
            ),
          };
        }
        // One request: copyTo names the tab by sheetId, and Google's refusal of an unknown one is clear.
        const { data } = await callGoogle(auth.userId, signal, (request) =>
          sheets.spreadsheets.sheets.copyTo(
            {
              spreadsheetId: input.spreadsheetId,
              sheetId: input.sheetId,
              requestBody: { destinationSpreadsheetId: input.destinationSpreadsheetId },
            },
            request,
          ),
        );
        const result = {
          sheetId: data.sheetId ?? 0,
          title: data.title ?? '',
          destinationSpreadsheetId: input.destinationSpreadsheetId,
        };
        return {
          structuredContent: result,
          text: `Copied the tab to ${JSON.stringify(result.title)} (sheetId ${result.sheetId}) in spreadsheet ${result.destinationSpreadsheetId}.`,
        };
      },
    }),
  ];
}
