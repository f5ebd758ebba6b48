import type { sheets_v4 } from 'googleapis';
import { columnLetters, rangeOnSheet } from '../../tools/kit/a1.ts';
import type { ToolDeps } from '../../tools/kit/tool-deps.ts';
import type { CellField, Footprint, SheetAspect, StateImage } from './state-image.ts';
import { imageOf } from './state-image-of.ts';

/**
 * Reading what a footprint covers (docs/design.md §11.8): the before-image in one read — a
 * `spreadsheets.getByDataFilter` of the footprint's grid ranges (batchUpdate names tabs by sheetId,
 * and data filters take sheetIds where `spreadsheets.get` wants titles), or a `spreadsheets.get`
 * when there are no ranges — each with a field mask of the footprint's parts only; the after-image
 * from the batchUpdate's own response (`includeSpreadsheetInResponse` with the same mask and the
 * same ranges in A1, built from the titles the before-read gave).
 */

/** A tab as the before-read saw it: what A1 ranges of the after-image are built from. */
export interface TabGrid {
  sheetId: number;
  title: string;
  rowCount: number;
  columnCount: number;
}

/** How a footprint is read: its grid ranges in order, and the field mask of the parts. */
export interface StatePlan {
  footprint: Footprint;
  /**
   * The grid ranges read: the cell areas', then the dimensions' strips, then one cell of each tab
   * whose aspects only are read. Google answers a tab's grid data in the order of its ranges.
   */
  ranges: sheets_v4.Schema$GridRange[];
  /** Every tab must be read: objects named by id only, or cells of every tab. */
  allTabs: boolean;
  /** The spreadsheet resource's field mask, with grid data when `gridData`. */
  mask: string;
  /** The same without grid data. */
  outlineMask: string;
  gridData: boolean;
}

const DIMENSION_FIELDS = 'pixelSize,hiddenByUser';

export function planState(footprint: Footprint): StatePlan {
  const ranges: sheets_v4.Schema$GridRange[] = footprint.cells.map((area) => ({
    sheetId: area.sheetId,
    startRowIndex: area.startRow,
    startColumnIndex: area.startColumn,
    ...(area.endRow === undefined ? {} : { endRowIndex: area.endRow }),
    ...(area.endColumn === undefined ? {} : { endColumnIndex: area.endColumn }),
  }));
  // A strip one cell wide carries the rows' (or columns') metadata without their cells.
  for (const span of footprint.dimensions)
    ranges.push(
      span.dimension === 'ROWS'
        ? {
            sheetId: span.sheetId,
            startRowIndex: span.start,
            endRowIndex: span.end,
            startColumnIndex: 0,
            endColumnIndex: 1,
          }
        : {
            sheetId: span.sheetId,
            startRowIndex: 0,
            endRowIndex: 1,
            startColumnIndex: span.start,
            endColumnIndex: span.end,
          },
    );
  for (const { sheetId } of footprint.sheets)
    if (sheetId !== 'any' && !ranges.some((range) => range.sheetId === sheetId))
      ranges.push(oneCell(sheetId));
  const allTabs =
    footprint.allTabsCells !== undefined || footprint.sheets.some((tab) => tab.sheetId === 'any');
  const fields = new Set<CellField>([
    ...footprint.cells.flatMap((area) => area.fields),
    ...(footprint.allTabsCells ?? []),
  ]);
  const aspects = new Set<SheetAspect>(footprint.sheets.flatMap((tab) => tab.aspects));
  const gridData = fields.size > 0 || footprint.dimensions.length > 0;
  const sheetParts = [
    aspects.has('properties')
      ? 'properties'
      : 'properties(sheetId,title,gridProperties(rowCount,columnCount))',
    ...[...aspects].filter((aspect) => aspect !== 'properties'),
  ];
  const metadata =
    footprint.dimensions.length > 0
      ? `,rowMetadata(${DIMENSION_FIELDS}),columnMetadata(${DIMENSION_FIELDS})`
      : '';
  const grid = `data(startRow,startColumn,rowData.values(${[...fields].join(',') || 'note'})${metadata})`;
  const masked = (parts: string[]) =>
    `sheets(${parts.join(',')})${footprint.namedRanges ? ',namedRanges' : ''}`;
  return {
    footprint,
    ranges,
    allTabs,
    mask: masked(gridData ? [...sheetParts, grid] : sheetParts),
    outlineMask: masked(sheetParts),
    gridData,
  };
}

/** Whether a footprint reads nothing before the write: it only adds tabs, which the reply names. */
export function onlyAddsTabs(footprint: Footprint): boolean {
  return (
    footprint.addsTabs &&
    footprint.cells.length === 0 &&
    !footprint.allTabsCells &&
    footprint.dimensions.length === 0 &&
    footprint.sheets.length === 0 &&
    !footprint.namedRanges
  );
}

const oneCell = (sheetId: number): sheets_v4.Schema$GridRange => ({
  sheetId,
  startRowIndex: 0,
  endRowIndex: 1,
  startColumnIndex: 0,
  endColumnIndex: 1,
});

/**
 * The before-image: one read, or two when a footprint holds both grid ranges and objects of an
 * unknown tab (a batch_update changing cells and a chart by id): a `spreadsheets.get` of every
 * tab's aspects, then the ranges' grid data by data filter — one read cannot give both, since
 * ranges limit the tabs answered. Also the tabs as read, for the after-image's ranges.
 */
export async function readState(
  { sheets, callGoogle }: Pick<ToolDeps, 'sheets' | 'callGoogle'>,
  userId: string,
  signal: AbortSignal,
  spreadsheetId: string,
  plan: StatePlan,
): Promise<{ image: StateImage; tabs: TabGrid[] }> {
  const get = (fields: string) =>
    callGoogle(userId, signal, (request) => sheets.spreadsheets.get({ spreadsheetId, fields }, request));
  const byFilter = (fields: string) =>
    callGoogle(userId, signal, (request) =>
      sheets.spreadsheets.getByDataFilter(
        {
          spreadsheetId,
          fields,
          requestBody: {
            dataFilters: plan.ranges.map((gridRange) => ({ gridRange })),
            includeGridData: plan.gridData,
          },
        },
        request,
      ),
    );
  let read: sheets_v4.Schema$Spreadsheet;
  let wholeTabs = false;
  if (plan.allTabs && (plan.footprint.allTabsCells || plan.ranges.length === 0)) {
    // Every tab whole: grid data (of every tab) only when cells of every tab are asked for.
    read = (await get(plan.footprint.allTabsCells ? plan.mask : plan.outlineMask)).data;
    wholeTabs = true;
  } else if (!plan.allTabs) {
    read = (plan.ranges.length > 0 ? await byFilter(plan.mask) : await get(plan.mask)).data;
  } else {
    const [outline, grids] = [(await get(plan.outlineMask)).data, (await byFilter(plan.mask)).data];
    read = mergeReads(outline, grids);
  }
  return { image: imageOf(plan, read, wholeTabs), tabs: tabGrids(read) };
}

/** The outline's tabs, each with the grid data the data-filter read gave it. */
function mergeReads(
  outline: sheets_v4.Schema$Spreadsheet,
  grids: sheets_v4.Schema$Spreadsheet,
): sheets_v4.Schema$Spreadsheet {
  const data = new Map((grids.sheets ?? []).map((sheet) => [sheet.properties?.sheetId ?? 0, sheet.data]));
  return {
    ...outline,
    sheets: (outline.sheets ?? []).map((sheet) => {
      const own = data.get(sheet.properties?.sheetId ?? 0);
      return own ? { ...sheet, data: own } : sheet;
    }),
  };
}

export function tabGrids(spreadsheet: sheets_v4.Schema$Spreadsheet): TabGrid[] {
  return (spreadsheet.sheets ?? []).map((sheet) => ({
    sheetId: sheet.properties?.sheetId ?? 0,
    title: sheet.properties?.title ?? '',
    rowCount: sheet.properties?.gridProperties?.rowCount ?? 0,
    columnCount: sheet.properties?.gridProperties?.columnCount ?? 0,
  }));
}

/**
 * What to add to a batchUpdate so that its response is the after-image: the same mask and ranges
 * (A1, on the titles the before-read gave; a tab renamed in the same batch by its new title), and
 * the `fields` system parameter keeping the replies and that image only.
 */
export function responseImage(
  plan: StatePlan,
  tabs: readonly TabGrid[],
  renamed: ReadonlyMap<number, string>,
): { body: sheets_v4.Schema$BatchUpdateSpreadsheetRequest; fields: string } {
  const fields = `replies,updatedSpreadsheet(${plan.mask})`;
  // Every tab whole, or (without ranges) every tab's aspects: no ranges limit the answer.
  if (plan.footprint.allTabsCells || plan.ranges.length === 0)
    return {
      body: {
        includeSpreadsheetInResponse: true,
        responseIncludeGridData: plan.footprint.allTabsCells !== undefined,
      },
      fields,
    };
  const byId = new Map(tabs.map((tab) => [tab.sheetId, tab]));
  const a1 = (range: sheets_v4.Schema$GridRange) => {
    const tab = byId.get(range.sheetId ?? 0);
    if (!tab) return undefined;
    return a1OnGrid(renamed.get(tab.sheetId) ?? tab.title, range, tab);
  };
  const ranges = plan.ranges.map(a1).filter((range): range is string => range !== undefined);
  // Objects named by id may be on any tab, and tabs that come or go move the others: one cell of
  // each other tab brings its aspects (and its place) back.
  if (plan.allTabs || plan.footprint.addsTabs)
    for (const tab of tabs)
      if (!plan.ranges.some((range) => range.sheetId === tab.sheetId)) ranges.push(a1(oneCell(tab.sheetId))!);
  return {
    body: {
      includeSpreadsheetInResponse: true,
      responseRanges: ranges,
      responseIncludeGridData: plan.gridData,
    },
    fields,
  };
}

/** A grid range in A1, kept on the tab's grid (at least its corner cell): Google refuses ranges past it. */
function a1OnGrid(title: string, range: sheets_v4.Schema$GridRange, grid: TabGrid): string {
  // A chart's own tab has no grid: it is named whole.
  if (grid.rowCount === 0 || grid.columnCount === 0) return rangeOnSheet(title);
  const rows = Math.max(1, grid.rowCount);
  const columns = Math.max(1, grid.columnCount);
  const top = Math.min(range.startRowIndex ?? 0, rows - 1);
  const left = Math.min(range.startColumnIndex ?? 0, columns - 1);
  const bottom = Math.max(top + 1, Math.min(range.endRowIndex ?? rows, rows));
  const right = Math.max(left + 1, Math.min(range.endColumnIndex ?? columns, columns));
  return rangeOnSheet(title, `${columnLetters(left)}${top + 1}:${columnLetters(right - 1)}${bottom}`);
}
