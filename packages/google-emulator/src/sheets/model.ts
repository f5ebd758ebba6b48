/**
 * The emulator's own state for a native spreadsheet. Cells are stored in Google's `CellData` shape
 * (only `userEnteredValue`, `userEnteredFormat`, `note` and `dataValidation`); everything effective or formatted is
 * computed when read.
 */
import type { sheets_v4 } from 'googleapis';
import type { GridBounds } from './a1-notation.ts';

export type CellData = sheets_v4.Schema$CellData;
export type CellFormat = sheets_v4.Schema$CellFormat;
export type ExtendedValue = sheets_v4.Schema$ExtendedValue;
export type NumberFormat = sheets_v4.Schema$NumberFormat;

/** Rows of cells, sparse: a missing row or cell is an empty cell. */
export type CellRows = Array<Array<CellData | undefined> | undefined>;

export interface GridSize {
  rowCount: number;
  columnCount: number;
}

export interface SheetProperties {
  sheetId: number;
  title: string;
  index: number;
  /** OBJECT: a sheet that holds one chart and no cells (its grid is 0 × 0 and not returned). */
  sheetType: 'GRID' | 'OBJECT';
  gridProperties: GridSize & { frozenRowCount?: number; frozenColumnCount?: number; hideGridlines?: boolean };
  hidden?: boolean;
  rightToLeft?: boolean;
  tabColor?: sheets_v4.Schema$Color;
  tabColorStyle?: sheets_v4.Schema$ColorStyle;
}

export interface SheetModel {
  properties: SheetProperties;
  rows: CellRows;
  /** In priority order, as `sheets[].conditionalFormats`; absent when there are none. */
  conditionalFormats?: sheets_v4.Schema$ConditionalFormatRule[];
  protectedRanges?: sheets_v4.Schema$ProtectedRange[];
  /** The charts shown on this sheet (over its grid, or the one chart of an OBJECT sheet). */
  charts?: sheets_v4.Schema$EmbeddedChart[];
  /** The sheet's one basic filter, and its filter views; absent when there are none. */
  basicFilter?: sheets_v4.Schema$BasicFilter;
  filterViews?: sheets_v4.Schema$FilterView[];
  /** Structured tables, none overlapping another. */
  tables?: sheets_v4.Schema$Table[];
  /** Alternating colours over ranges of the sheet. */
  bandedRanges?: sheets_v4.Schema$BandedRange[];
  /** Merged areas (zero-based, end-exclusive), none overlapping. */
  merges?: GridBounds[];
  /** Sparse, by index: what a row or column has apart from the default size. */
  rowMetadata?: DimensionMetadata[];
  columnMetadata?: DimensionMetadata[];
}

export interface DimensionMetadata {
  pixelSize?: number;
  hiddenByUser?: boolean;
}

export interface SpreadsheetModel {
  spreadsheetId: string;
  properties: {
    title: string;
    locale: string;
    autoRecalc: string;
    timeZone: string;
  };
  /** In tab order: `sheets[i].properties.index === i`. */
  sheets: SheetModel[];
  /** The spreadsheet's named ranges (`namedRanges`); absent when there are none. */
  namedRanges?: sheets_v4.Schema$NamedRange[];
  /** Incremented on every write, so that formula results can be cached between writes. */
  revision: number;
}

/** What a spreadsheet holds, independent of ids: what import produces and copies carry. */
export interface SpreadsheetContents {
  title: string;
  /** As spreadsheets.create was given them; else DEFAULT_TIME_ZONE and DEFAULT_LOCALE. */
  timeZone?: string;
  locale?: string;
  sheets: Array<{ title: string; rows: CellRows; rowCount?: number; columnCount?: number; sheetId?: number }>;
}

export const DEFAULT_GRID: GridSize = { rowCount: 1000, columnCount: 26 };
