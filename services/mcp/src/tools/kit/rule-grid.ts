/**
 * What the rule and range-object tools share: the tabs read once (`spreadsheets.get` with a field
 * mask), an A1 range turned into the GridRange batchUpdate wants — refused clearly when it names
 * no tab or leaves the tab's grid — and a GridRange written back as A1 for a listing.
 */
import type { sheets_v4 } from 'googleapis';
import { ToolError } from '../../errors/tool-error.ts';
import { columnLetters, rangeOnSheet } from './a1.ts';
import { TAB_PROPERTY_FIELDS } from './first-visible-tab.ts';
import { rangeOnTabs } from './range-on-tabs.ts';
import { tabOf } from './tab-ref.ts';

export interface Tab {
  sheetId: number;
  title: string;
  rowCount: number;
  columnCount: number;
  hidden: boolean;
}

/** The mask that reads what `tabsOf` and `gridRangeOf` need; tools add what they list beside it. */
export const TAB_FIELDS = `sheets.properties(${TAB_PROPERTY_FIELDS}),namedRanges(namedRangeId,name,range)`;

export function tabsOf(spreadsheet: sheets_v4.Schema$Spreadsheet): Tab[] {
  return (spreadsheet.sheets ?? []).map((sheet) => ({
    sheetId: sheet.properties?.sheetId ?? 0,
    title: sheet.properties?.title ?? '',
    rowCount: sheet.properties?.gridProperties?.rowCount ?? 0,
    columnCount: sheet.properties?.gridProperties?.columnCount ?? 0,
    hidden: sheet.properties?.hidden === true,
  }));
}

/** The tab of a sheetId Google gave (a rule's, a chart's anchor): tab-ref.ts's tabOf. */
export function tabById<T extends { sheetId: number; title: string }>(
  tabs: readonly T[],
  sheetId: number,
): T {
  return tabOf(tabs, sheetId);
}

/**
 * The GridRange of an A1 range (`'My tab'!B2:C9`, `Sheet1!A:A`, a tab name alone for the whole tab,
 * bare cells on the first visible tab, or a named range's name — after the tabs', as Google reads it),
 * checked against the tab's grid before Google sees it.
 */
export function gridRangeOf(
  range: string,
  tabs: readonly Tab[],
  namedRanges: readonly sheets_v4.Schema$NamedRange[] = [],
): { range: sheets_v4.Schema$GridRange; tab: Tab } {
  // Exact tab names only: a rule's range may be a named range, looked up when no tab matches.
  const { sheetTitle, cells, tab, bounds } = rangeOnTabs(tabs, range);
  const named =
    tab || cells !== '' || range.includes('!')
      ? undefined
      : namedRanges.find((each) => each.name?.toLowerCase() === range.trim().toLowerCase());
  if (named?.range)
    return { range: structuredClone(named.range), tab: tabById(tabs, named.range.sheetId ?? 0) };
  if (!tab) {
    throw new ToolError(
      `there is no tab named ${JSON.stringify(sheetTitle)}; get_spreadsheet lists the tabs (${tabs.map((each) => JSON.stringify(each.title)).join(', ')})`,
    );
  }
  if (!bounds) throw new ToolError(`cannot read the cells of ${JSON.stringify(range)} as A1 notation`);
  const outside = (start: number | undefined, end: number | undefined, count: number) =>
    (end !== undefined && end > count) || (start !== undefined && start >= count);
  if (
    outside(bounds.startRowIndex, bounds.endRowIndex, tab.rowCount) ||
    outside(bounds.startColumnIndex, bounds.endColumnIndex, tab.columnCount)
  ) {
    throw new ToolError(
      `${range} reaches outside the tab ${JSON.stringify(tab.title)}, which has ${tab.rowCount} rows and ${tab.columnCount} columns (A1:${columnLetters(tab.columnCount - 1)}${tab.rowCount}); insert_dimension adds more`,
    );
  }
  return { range: { sheetId: tab.sheetId, ...bounds }, tab };
}

/** A GridRange as A1 on its tab: `'My tab'!B2:C9`, `Data!A:A`, `Data!2:5`, or the tab alone. */
export function a1Of(range: sheets_v4.Schema$GridRange | undefined, tabs: readonly Tab[]): string {
  const title =
    tabs.find((each) => each.sheetId === (range?.sheetId ?? 0))?.title ?? `sheetId ${range?.sheetId}`;
  const startRow = range?.startRowIndex ?? undefined;
  const endRow = range?.endRowIndex ?? undefined;
  const startColumn = range?.startColumnIndex ?? undefined;
  const endColumn = range?.endColumnIndex ?? undefined;
  if (startRow === undefined && endRow === undefined && startColumn === undefined && endColumn === undefined)
    return rangeOnSheet(title);
  const start = `${columnLetters(startColumn ?? 0)}${(startRow ?? 0) + 1}`;
  const columnsOnly = startRow === undefined && endRow === undefined;
  const rowsOnly = startColumn === undefined && endColumn === undefined;
  if (columnsOnly)
    return rangeOnSheet(title, `${columnLetters(startColumn ?? 0)}:${columnLetters((endColumn ?? 1) - 1)}`);
  if (rowsOnly) return rangeOnSheet(title, `${(startRow ?? 0) + 1}:${endRow ?? (startRow ?? 0) + 1}`);
  if (endRow === (startRow ?? 0) + 1 && endColumn === (startColumn ?? 0) + 1)
    return rangeOnSheet(title, start);
  const endCells = `${endColumn === undefined ? '' : columnLetters(endColumn - 1)}${endRow ?? ''}`;
  return rangeOnSheet(title, `${start}:${endCells}`);
}

/** `#1a73e8` ↔ Google's Color (components 0–1, a missing one is 0). */
export function colorOf(hex: string): sheets_v4.Schema$Color {
  return {
    red: Number.parseInt(hex.slice(1, 3), 16) / 255,
    green: Number.parseInt(hex.slice(3, 5), 16) / 255,
    blue: Number.parseInt(hex.slice(5, 7), 16) / 255,
  };
}

export function hexOf(color: sheets_v4.Schema$Color | undefined | null): string | undefined {
  if (!color) return undefined;
  const part = (value: number | null | undefined) =>
    Math.round((value ?? 0) * 255)
      .toString(16)
      .padStart(2, '0');
  return `#${part(color.red)}${part(color.green)}${part(color.blue)}`;
}
