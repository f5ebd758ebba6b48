import type { sheets_v4 } from 'googleapis';
import { ToolError } from '../../errors/tool-error.ts';
import { columnLetters, rangeOnSheet } from './a1.ts';
import { TAB_PROPERTY_FIELDS } from './first-visible-tab.ts';
import { isPastGridError, isUnknownRangeError } from './page-window.ts';
import { rangeOnTabs } from './range-on-tabs.ts';
import type { ToolDeps } from './tool-deps.ts';

/** A rectangle of one tab, zero-based and end-exclusive, within the tab's grid. */
export interface TabArea {
  title: string;
  sheetId: number;
  rowStart: number;
  rowEnd: number;
  columnStart: number;
  columnEnd: number;
}

export interface TabGrid {
  title: string;
  sheetId: number;
  rows: number;
  columns: number;
  hidden: boolean;
}

/** One spreadsheets.get of the tabs' ids, titles, visibility and grid sizes. */
export async function readTabGrids(
  { sheets, callGoogle }: ToolDeps,
  userId: string,
  signal: AbortSignal,
  spreadsheetId: string,
): Promise<TabGrid[]> {
  const { data } = await callGoogle(userId, signal, (request) =>
    sheets.spreadsheets.get({ spreadsheetId, fields: `sheets.properties(${TAB_PROPERTY_FIELDS})` }, request),
  );
  return (data.sheets ?? []).map(tabGridOf);
}

function tabGridOf(sheet: sheets_v4.Schema$Sheet): TabGrid {
  return {
    title: sheet.properties?.title ?? '',
    sheetId: sheet.properties?.sheetId ?? 0,
    rows: sheet.properties?.gridProperties?.rowCount ?? 0,
    columns: sheet.properties?.gridProperties?.columnCount ?? 0,
    hidden: sheet.properties?.hidden === true,
  };
}

/** The tabs' grids and, per tab title, the grid data of the ranges asked on it, in the order asked. */
export interface TabGridsWithData {
  tabs: TabGrid[];
  data: Map<string, sheets_v4.Schema$GridData[]>;
}

/**
 * One spreadsheets.get of `ranges` (A1 as the caller wrote them, not yet clipped to a grid) that
 * answers both the sizes of their tabs and the cells' `cellFields`, so a tool that needs a tab's
 * size and then its cells asks Google once. Undefined when Google refuses a range as naming no
 * tab or as starting outside its tab's grid: the caller then reads the sizes (readTabGrids) and
 * goes on, or says what is wrong, exactly as it would have.
 */
export async function readTabGridsWithData(
  { sheets, callGoogle }: ToolDeps,
  userId: string,
  signal: AbortSignal,
  spreadsheetId: string,
  ranges: string[],
  cellFields: string,
): Promise<TabGridsWithData | undefined> {
  let answer: sheets_v4.Schema$Spreadsheet;
  try {
    ({ data: answer } = await callGoogle(userId, signal, (request) =>
      sheets.spreadsheets.get(
        {
          spreadsheetId,
          ranges,
          includeGridData: true,
          fields: `sheets(properties(${TAB_PROPERTY_FIELDS}),data(startRow,startColumn,rowData(values(${cellFields}))))`,
        },
        request,
      ),
    ));
  } catch (error) {
    if (isUnknownRangeError(error) || isPastGridError(error)) return undefined;
    throw error;
  }
  const sheetsAnswered = answer.sheets ?? [];
  return {
    tabs: sheetsAnswered.map(tabGridOf),
    data: new Map(sheetsAnswered.map((sheet) => [sheet.properties?.title ?? '', [...(sheet.data ?? [])]])),
  };
}

/**
 * The area an A1 range names, clipped to its tab's grid, after one call for the tabs' sizes: an
 * unknown tab or a range that is not A1 notation (a named range) is a tool error saying so.
 */
export async function resolveTabArea(
  deps: ToolDeps,
  userId: string,
  signal: AbortSignal,
  spreadsheetId: string,
  range: string,
): Promise<TabArea> {
  return tabAreaOf(range, await readTabGrids(deps, userId, signal, spreadsheetId));
}

export function tabAreaOf(range: string, tabs: readonly TabGrid[]): TabArea {
  const { sheetTitle, tab, bounds } = rangeOnTabs(tabs, range);
  if (!tab)
    throw new ToolError(
      sheetTitle === undefined
        ? 'the spreadsheet has no tabs'
        : `there is no tab named ${JSON.stringify(sheetTitle)}; get_spreadsheet lists the tabs`,
    );
  if (!bounds)
    throw new ToolError(
      `cannot read the cells of ${JSON.stringify(range)} as A1 notation (named ranges are not accepted here)`,
    );
  return {
    title: tab.title,
    sheetId: tab.sheetId,
    rowStart: Math.min(bounds.startRowIndex ?? 0, tab.rows),
    rowEnd: Math.min(bounds.endRowIndex ?? tab.rows, tab.rows),
    columnStart: Math.min(bounds.startColumnIndex ?? 0, tab.columns),
    columnEnd: Math.min(bounds.endColumnIndex ?? tab.columns, tab.columns),
  };
}

/** `'Tab'!B3:F9` for rows [rowStart, rowEnd) of the area's columns. */
export function areaRows(area: TabArea, rowStart: number, rowEnd: number): string {
  return rangeOnSheet(
    area.title,
    `${columnLetters(area.columnStart)}${rowStart + 1}:${columnLetters(area.columnEnd - 1)}${rowEnd}`,
  );
}

/** The A1 address of a cell, `C7`. */
export function cellAddress(row: number, column: number): string {
  return `${columnLetters(column)}${row + 1}`;
}
