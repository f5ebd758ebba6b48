import { ToolError } from '../../../errors/tool-error.ts';
import { amount, cellsOf, nonEmptyCount, tabName } from '../../guards/loss-phrases.ts';
import { lossReads } from '../../guards/loss-reads.ts';
import { columnLetters, rangeOnSheet } from '../../kit/a1.ts';
import { CHANGE } from '../../kit/annotations.ts';
import { TAB_PROPERTY_FIELDS } from '../../kit/first-visible-tab.ts';
import { rangeOnTabs } from '../../kit/range-on-tabs.ts';
import type { ToolContext } from '../../kit/tool-definition.ts';
import type { ToolDeps } from '../../kit/tool-deps.ts';

/**
 * What the editing tools share (docs/design.md §11): editing that keeps formulas and formats. Each
 * reads the tabs first (one spreadsheets.get: titles, ids, grid sizes, merges), so that an unknown
 * tab or a range outside the grid is refused before Google sees a write — and a dry run makes no
 * write at all — then sends one batchUpdate.
 */

export const DESTRUCTIVE = { ...CHANGE, destructiveHint: true };

export interface Tab {
  sheetId: number;
  title: string;
  rows: number;
  columns: number;
  hidden: boolean;
  merges: Area[];
}

/** A rectangle on a tab, as a GridRange (zero-based, end-exclusive), every bound set. */
export interface Area {
  sheetId: number;
  startRowIndex: number;
  endRowIndex: number;
  startColumnIndex: number;
  endColumnIndex: number;
}

export const heightOf = (area: Area) => area.endRowIndex - area.startRowIndex;
export const widthOf = (area: Area) => area.endColumnIndex - area.startColumnIndex;
export const cellCount = (area: Area) => heightOf(area) * widthOf(area);

/** `'My tab'!B2:C9` for an area of a tab. */
export function a1Of(tab: Tab, area: Area): string {
  const start = `${columnLetters(area.startColumnIndex)}${area.startRowIndex + 1}`;
  const end = `${columnLetters(area.endColumnIndex - 1)}${area.endRowIndex}`;
  return rangeOnSheet(tab.title, start === end ? start : `${start}:${end}`);
}

export const sizeOf = (tab: Tab) => `${amount(tab.rows, 'row')} × ${amount(tab.columns, 'column')}`;

export const overlaps = (a: Area, b: Area) =>
  a.sheetId === b.sheetId &&
  a.startRowIndex < b.endRowIndex &&
  b.startRowIndex < a.endRowIndex &&
  a.startColumnIndex < b.endColumnIndex &&
  b.startColumnIndex < a.endColumnIndex;
export const inside = (inner: Area, outer: Area) =>
  inner.sheetId === outer.sheetId &&
  inner.startRowIndex >= outer.startRowIndex &&
  inner.endRowIndex <= outer.endRowIndex &&
  inner.startColumnIndex >= outer.startColumnIndex &&
  inner.endColumnIndex <= outer.endColumnIndex;

/** The tabs' ids, titles, grid sizes and merges: one spreadsheets.get. */
export async function readEditTabs(
  { sheets, callGoogle }: ToolDeps,
  userId: string,
  signal: AbortSignal,
  id: string,
): Promise<Tab[]> {
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

/** The tab and the area an A1 range names, refused clearly when it is not on the grid. */
export function resolveArea(tabs: Tab[], range: string, what = 'range'): { tab: Tab; area: Area } {
  const { sheetTitle, tab, bounds } = rangeOnTabs(tabs, range);
  if (!tab)
    throw new ToolError(
      `the ${what} ${JSON.stringify(range)} names no tab of this spreadsheet (${JSON.stringify(sheetTitle)}); get_spreadsheet lists the tabs`,
    );
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

export function checkOnGrid(tab: Tab, area: Area, what: string): void {
  if (area.endRowIndex > tab.rows || area.endColumnIndex > tab.columns)
    throw new ToolError(
      `${what} reaches past the tab ${JSON.stringify(tab.title)}, which has ${sizeOf(tab)}; insert_dimension adds rows or columns`,
    );
}

/**
 * The describeLoss of an editing tool that overwrites an area: the tabs read, the area found as the
 * tool's `run` finds it, and `Overwrites B2:D5 of the tab "Q3": 12 non-empty cells.` — or null
 * when the cells hold nothing.
 */
export function describeOverwrite<Input extends { spreadsheetId: string }>(
  deps: ToolDeps,
  locate: (tabs: Tab[], input: Input) => { tab: Tab; area: Area },
): (input: Input, context: ToolContext) => Promise<string | null> {
  const reads = lossReads(deps);
  return async (input, context) => {
    const tabs = await readEditTabs(deps, context.auth.userId, context.signal, input.spreadsheetId);
    const { tab, area } = locate(tabs, input);
    const lossArea = {
      tab: { sheetId: tab.sheetId, title: tab.title, rows: tab.rows, columns: tab.columns },
      rowStart: area.startRowIndex,
      rowEnd: area.endRowIndex,
      columnStart: area.startColumnIndex,
      columnEnd: area.endColumnIndex,
    };
    const [count] = await reads.count(input.spreadsheetId, [lossArea], context);
    if (count!.complete && count!.nonEmpty === 0) return null;
    return `Overwrites ${cellsOf(lossArea)} of ${tabName(lossArea.tab)}: ${nonEmptyCount(count!)}.`;
  };
}

export const dryRunText = (sentence: string) => `Dry run: would ${sentence}. Nothing was changed.`;
