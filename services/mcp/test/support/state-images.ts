import type { sheets_v4 } from 'googleapis';
import type {
  CellAreaImage,
  CellField,
  DimensionImage,
  SheetStateImage,
  StateImage,
} from '../../src/journal/state/state-image.ts';

/** Small builders for state images, so a test reads as the spreadsheet it describes. */

export const image = (parts: Partial<StateImage> = {}): StateImage => ({
  cells: [],
  dimensions: [],
  sheets: [],
  ...parts,
});

/** An area of `Sheet1` (sheetId 0) at A1 unless told, with rows of values (null: an empty cell). */
export function area(
  rows: Array<Array<sheets_v4.Schema$CellData | string | number | null>>,
  options: { sheetId?: number; sheet?: string; top?: number; left?: number; fields?: CellField[] } = {},
): CellAreaImage {
  return {
    sheetId: options.sheetId ?? 0,
    sheet: options.sheet ?? 'Sheet1',
    top: options.top ?? 0,
    left: options.left ?? 0,
    fields: options.fields ?? ['userEnteredValue'],
    rows: rows.map((row) =>
      row.map((cell) =>
        cell === null
          ? {}
          : typeof cell === 'string'
            ? { userEnteredValue: { stringValue: cell } }
            : typeof cell === 'number'
              ? { userEnteredValue: { numberValue: cell } }
              : cell,
      ),
    ),
  };
}

export const bold = (text: string): sheets_v4.Schema$CellData => ({
  userEnteredValue: { stringValue: text },
  userEnteredFormat: { textFormat: { bold: true } },
});

export const sheet = (sheetId: number, parts: Omit<SheetStateImage, 'sheetId'> = {}): SheetStateImage => ({
  sheetId,
  ...parts,
});

export const properties = (
  sheetId: number,
  title: string,
  parts: sheets_v4.Schema$SheetProperties = {},
): sheets_v4.Schema$SheetProperties => ({
  sheetId,
  title,
  index: 0,
  sheetType: 'GRID',
  gridProperties: { rowCount: 1000, columnCount: 26 },
  ...parts,
});

export const grid = (
  sheetId: number,
  startRowIndex: number,
  endRowIndex: number,
  startColumnIndex: number,
  endColumnIndex: number,
): sheets_v4.Schema$GridRange => ({ sheetId, startRowIndex, endRowIndex, startColumnIndex, endColumnIndex });

export const sizes = (
  dimension: 'ROWS' | 'COLUMNS',
  start: number,
  values: Array<number | 'hidden' | [number, boolean]>,
  sheetId = 0,
): DimensionImage => ({
  sheetId,
  dimension,
  start,
  sizes: values.map((value) =>
    value === 'hidden'
      ? { pixelSize: dimension === 'ROWS' ? 21 : 100, hiddenByUser: true }
      : Array.isArray(value)
        ? { pixelSize: value[0], hiddenByUser: value[1] }
        : { pixelSize: value },
  ),
});

export const rule = (
  range: sheets_v4.Schema$GridRange,
  color: number,
): sheets_v4.Schema$ConditionalFormatRule => ({
  ranges: [range],
  booleanRule: {
    condition: { type: 'NUMBER_GREATER', values: [{ userEnteredValue: String(color) }] },
    format: { backgroundColor: { red: color / 10 } },
  },
});

export const chart = (
  chartId: number,
  title: string,
  anchor: { sheetId: number; rowIndex?: number; columnIndex?: number },
  source: sheets_v4.Schema$GridRange,
): sheets_v4.Schema$EmbeddedChart => ({
  chartId,
  spec: {
    title,
    basicChart: {
      chartType: 'COLUMN',
      domains: [
        {
          domain: {
            sourceRange: { sources: [{ ...source, endColumnIndex: (source.startColumnIndex ?? 0) + 1 }] },
          },
        },
      ],
      series: [
        {
          series: {
            sourceRange: {
              sources: [
                {
                  ...source,
                  startColumnIndex: (source.startColumnIndex ?? 0) + 1,
                  endColumnIndex: (source.startColumnIndex ?? 0) + 2,
                },
              ],
            },
          },
        },
      ],
    },
  },
  position: { overlayPosition: { anchorCell: anchor, widthPixels: 600, heightPixels: 371 } },
});
