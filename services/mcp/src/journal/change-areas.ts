import type { sheets_v4 } from 'googleapis';
import { type Cell, type ChangePayload, sameCell } from './change-payloads.ts';
import { isDrivePayload } from './drive-payloads.ts';
import { type CellAreaDiff, cellAreaDiffs, changesSpan } from './state/state-diff.ts';
import type { CellField } from './state/state-image.ts';

/**
 * The rectangles of a tab a journaled change's cells lie in, as the change view shows them
 * (docs/design.md §11.11): each cell's content before the change and what the change left, from
 * the entry's payload (§11.8). Positions are zero-based, `row` and `column` from the area's corner.
 */
export interface ChangeArea {
  sheet: string;
  top: number;
  left: number;
  height: number;
  width: number;
  /** What the cell held before; null where the change left it alone. */
  before(row: number, column: number): Cell | null;
  /**
   * What the change left in the cell; null where it left it alone. Absent when the change took
   * the cells away (a deleted tab, rows or columns): nothing of them is in the spreadsheet now.
   */
  after?: (row: number, column: number) => Cell | null;
  /** Whether the change altered the cell (a value, or for a structure change any part it wrote). */
  changed(row: number, column: number): boolean;
  /**
   * The parts of cells the change wrote, when not their values (formats, notes, validation): the
   * payload keeps no values then, and a cell's value before is its value now.
   */
  wrote?: string;
}

/** A cell's content as a FORMULA-rendered read gives it: its formula as text, a number, text. */
export function cellValue(cell: sheets_v4.Schema$CellData | undefined): Cell {
  const value = cell?.userEnteredValue;
  if (!value) return '';
  if (value.formulaValue != null) return value.formulaValue;
  if (value.numberValue != null) return value.numberValue;
  if (value.boolValue != null) return value.boolValue;
  if (value.stringValue != null) return value.stringValue;
  return value.errorValue ? '#ERROR!' : '';
}

const FIELD_WORDS: Record<CellField, string> = {
  userEnteredValue: 'values',
  userEnteredFormat: 'formats',
  note: 'notes',
  dataValidation: 'validation',
  textFormatRuns: 'text formats',
  pivotTable: 'a pivot table',
};

/** The areas of a change's cells; none for a change of no cells (a chart, a share, a file). */
export function changeAreas(payload: ChangePayload): ChangeArea[] {
  if (isDrivePayload(payload)) return [];
  switch (payload.kind) {
    case 'values':
      return payload.areas.map((area) => ({
        sheet: area.sheet,
        top: area.top,
        left: area.left,
        height: area.after.length,
        width: Math.max(0, ...area.after.map((row) => row.length)),
        before: (row, column) => area.before[row]?.[column] ?? null,
        after: (row, column) => area.after[row]?.[column] ?? null,
        changed: (row, column) => {
          const [was, is] = [area.before[row]?.[column] ?? null, area.after[row]?.[column] ?? null];
          return was !== null && is !== null && !sameCell(is, was);
        },
      }));
    case 'sheet':
      return [
        rowsArea(payload.sheet.properties.title ?? '', 0, 0, payload.sheet.rows, payload.sheet.rows.length),
      ];
    case 'dimension': {
      const { dimension: image } = payload;
      const rows = image.dimension === 'ROWS';
      return [
        rowsArea(
          image.sheet,
          rows ? image.startIndex : 0,
          rows ? 0 : image.startIndex,
          image.rows,
          rows ? image.endIndex - image.startIndex : image.rows.length,
        ),
      ];
    }
    case 'state':
      return cellAreaDiffs(payload.before, payload.after).map(stateArea);
    default:
      // Notes (their text is not a cell's value) and inserted rows or columns (empty when made).
      return [];
  }
}

/** Cells a deleted tab, rows or columns held: gone from the spreadsheet since. */
function rowsArea(
  sheet: string,
  top: number,
  left: number,
  rows: sheets_v4.Schema$RowData[],
  height: number,
): ChangeArea {
  const before = (row: number, column: number) => cellValue(rows[row]?.values?.[column]);
  return {
    sheet,
    top,
    left,
    height,
    width: Math.max(0, ...rows.map((row) => row.values?.length ?? 0)),
    before,
    changed: (row, column) => before(row, column) !== '',
  };
}

/** The cells a structure change altered, over the span they lie in. */
function stateArea(diff: CellAreaDiff): ChangeArea {
  const span = changesSpan(diff);
  const top = span.startRowIndex ?? 0;
  const left = span.startColumnIndex ?? 0;
  const altered = new Map(
    diff.changes.map((change) => [`${change.row - top},${change.column - left}`, change]),
  );
  const values = diff.fields.includes('userEnteredValue');
  const side = (which: 'before' | 'after') => (row: number, column: number) => {
    const change = altered.get(`${row},${column}`);
    return change ? cellValue(change[which]) : null;
  };
  return {
    sheet: (diff.before ?? diff.after)?.sheet ?? '',
    top,
    left,
    height: (span.endRowIndex ?? top) - top,
    width: (span.endColumnIndex ?? left) - left,
    before: side('before'),
    after: side('after'),
    changed: (row, column) => altered.has(`${row},${column}`),
    ...(values ? {} : { wrote: diff.fields.map((field) => FIELD_WORDS[field]).join(', ') }),
  };
}
