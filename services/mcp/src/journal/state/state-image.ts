import type { sheets_v4 } from 'googleapis';

/**
 * The undo of a structure change (docs/design.md §11.8): which parts of a spreadsheet a
 * `spreadsheets.batchUpdate` touches (its footprint, derived from the requests alone), and what
 * those parts held before and after it (two images of the same shape). Undo compares the parts as
 * they are now with `after` (refusing, naming what changed since), and writes `before` back for
 * what the change altered only, leaving the rest of the spreadsheet as it is now.
 *
 * Written by footprint.ts (requests → footprint), state-read.ts (footprint → image, one read before
 * the write; the after-image from the batchUpdate's own `includeSpreadsheetInResponse`), and read
 * by state-restore.ts (before, after, now → requests, changed since).
 */

/** Parts of a cell a change may write: Google's `CellData` field names. */
export type CellField =
  | 'userEnteredValue'
  | 'userEnteredFormat'
  | 'note'
  | 'dataValidation'
  | 'textFormatRuns'
  /** Kept at its anchor cell; what it shows is Google's to compute, never written back. */
  | 'pivotTable';

export const ALL_CELL_FIELDS: readonly CellField[] = [
  'userEnteredValue',
  'userEnteredFormat',
  'note',
  'dataValidation',
  'textFormatRuns',
  'pivotTable',
];

/**
 * A rectangle of one tab whose cells a change writes: zero-based, end-exclusive; an absent end runs
 * to the grid's edge (a whole column, a whole tab).
 */
export interface CellAreaFootprint {
  sheetId: number;
  startRow: number;
  endRow?: number | undefined;
  startColumn: number;
  endColumn?: number | undefined;
  fields: CellField[];
}

/** Rows or columns whose size or visibility a change sets. */
export interface DimensionFootprint {
  sheetId: number;
  dimension: 'ROWS' | 'COLUMNS';
  start: number;
  end: number;
}

/** Parts of a tab a change may alter, each kept whole (a list keyed by its objects' ids). */
export type SheetAspect =
  /** title, index, hidden, tab colour, right-to-left, frozen rows and columns, gridlines. */
  | 'properties'
  | 'merges'
  /** The rule list in order. */
  | 'conditionalFormats'
  | 'basicFilter'
  | 'filterViews'
  | 'protectedRanges'
  | 'charts'
  | 'bandedRanges'
  | 'tables';

export interface Footprint {
  cells: CellAreaFootprint[];
  /** Parts of every cell of every tab (a find and replace in all tabs); absent when none. */
  allTabsCells?: CellField[] | undefined;
  dimensions: DimensionFootprint[];
  /** Aspects by tab; `'any'` when a request names an object by id only (its tab is read from all). */
  sheets: Array<{ sheetId: number | 'any'; aspects: SheetAspect[] }>;
  namedRanges: boolean;
  /** A request adds tabs (addSheet, duplicateSheet): undo deletes those absent before. */
  addsTabs: boolean;
}

/** A tab's cells as read: the rectangle's corner and `CellData` masked to the footprint's fields. */
export interface CellAreaImage {
  sheetId: number;
  sheet: string;
  top: number;
  left: number;
  /** Rows as Google gives them (trailing empty rows and cells left out); `{}` is an empty cell. */
  rows: sheets_v4.Schema$CellData[][];
  fields: CellField[];
}

/**
 * The cells of an area a change altered, and those only, as a journal entry keeps them: the
 * area's corner and fields as read (so it pairs with the area read now), and runs of altered cells
 * along a row, each `[row, column, cells]` zero-based on the tab. The before and after images of
 * one change list the same cells; a cell listed as `{}` was empty.
 */
export interface CellRunsImage {
  sheetId: number;
  sheet: string;
  top: number;
  left: number;
  runs: Array<[row: number, column: number, cells: sheets_v4.Schema$CellData[]]>;
  fields: CellField[];
}

/** Cells as read (whole areas) or as an entry keeps them (the altered cells). */
export type CellsImage = CellAreaImage | CellRunsImage;

export const isRuns = (area: CellsImage): area is CellRunsImage => 'runs' in area;

export interface DimensionImage {
  sheetId: number;
  dimension: 'ROWS' | 'COLUMNS';
  start: number;
  /** Per row or column from `start`: its pixel size and whether the person hid it. */
  sizes: Array<{ pixelSize?: number | null; hiddenByUser?: boolean | null }>;
}

/** The aspects of one tab; a tab absent from the image did not exist (or was not read). */
export interface SheetStateImage {
  sheetId: number;
  /** The tab's title when read, for the words undo and the log use (naming a tab by id otherwise). */
  title?: string;
  properties?: sheets_v4.Schema$SheetProperties;
  merges?: sheets_v4.Schema$GridRange[];
  conditionalFormats?: sheets_v4.Schema$ConditionalFormatRule[];
  basicFilter?: sheets_v4.Schema$BasicFilter | null;
  filterViews?: sheets_v4.Schema$FilterView[];
  protectedRanges?: sheets_v4.Schema$ProtectedRange[];
  charts?: sheets_v4.Schema$EmbeddedChart[];
  bandedRanges?: sheets_v4.Schema$BandedRange[];
  tables?: sheets_v4.Schema$Table[];
}

export interface StateImage {
  cells: CellsImage[];
  dimensions: DimensionImage[];
  sheets: SheetStateImage[];
  namedRanges?: sheets_v4.Schema$NamedRange[];
  /** Every tab's sheetId and title, when the footprint adds tabs. */
  tabs?: Array<{ sheetId: number; title: string }>;
}
