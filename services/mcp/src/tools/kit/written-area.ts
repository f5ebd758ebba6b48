import type { sheets_v4 } from 'googleapis';
import { columnLetters, gridBounds, rangeOnSheet, splitRange } from './a1.ts';

/**
 * The cells a write changes, worked out once and used by every check that guards the write (the
 * formula guard, `ifRevision`, the change journal's before-image, loss descriptions and
 * confirmations). Google writes a block of values from the top-left cell of its range, row by
 * row, as far as each row goes: a one-cell range, a tab name or a whole column is only where the
 * values start (Sheets API, spreadsheets.values.update: "the range … of the values to update";
 * values beyond a one-cell range are written, beyond a larger range refused). So the cells
 * changed are the values' extent — rows × widest row — from that corner, not the range as written.
 */
export interface WrittenArea {
  /** The tab as the range names it; undefined when it names none (Google's first visible tab). */
  sheet: string | undefined;
  /** Zero-based top-left cell. */
  top: number;
  left: number;
  rows: number;
  columns: number;
}

/** Rows × widest row of a block of values (rows of cells). */
export function valuesExtent(values: readonly (readonly unknown[])[]): { rows: number; columns: number } {
  let columns = 0;
  for (const row of values) columns = Math.max(columns, row.length);
  return { rows: columns === 0 ? 0 : values.length, columns };
}

/**
 * The area a write of `values` to `range` changes, or undefined when where the values start is
 * not in the range's text: a bare name without `!` may be a tab or a named range, which only
 * Google can resolve (its answer to a read of the range says; `areaFrom`).
 */
export function writtenArea(range: string, values: readonly (readonly unknown[])[]): WrittenArea | undefined {
  const { sheetTitle, cells } = splitRange(range);
  if (cells === '' && !range.includes('!')) return undefined;
  const bounds = gridBounds(cells);
  if (!bounds) return undefined;
  return {
    sheet: sheetTitle,
    top: bounds.startRowIndex ?? 0,
    left: bounds.startColumnIndex ?? 0,
    ...valuesExtent(values),
  };
}

/** The area a write of `values` changes when its range starts where Google's answered range does. */
export function areaFrom(answeredRange: string, values: readonly (readonly unknown[])[]): WrittenArea {
  const { sheetTitle, cells } = splitRange(answeredRange);
  const bounds = gridBounds(cells) ?? {};
  return {
    sheet: sheetTitle,
    top: bounds.startRowIndex ?? 0,
    left: bounds.startColumnIndex ?? 0,
    ...valuesExtent(values),
  };
}

/** An updateCells request's area: its `range`, or its rows' extent from its `start` cell. */
export function updateCellsArea(
  request: sheets_v4.Schema$UpdateCellsRequest,
): { sheetId: number | null | undefined; range: sheets_v4.Schema$GridRange } | undefined {
  if (request.range) return { sheetId: request.range.sheetId, range: request.range };
  if (!request.start) return undefined;
  const rows = request.rows ?? [];
  const extent = valuesExtent(rows.map((row) => row.values ?? []));
  const top = Number(request.start.rowIndex ?? 0);
  const left = Number(request.start.columnIndex ?? 0);
  return {
    sheetId: request.start.sheetId,
    range: {
      sheetId: request.start.sheetId,
      startRowIndex: top,
      endRowIndex: top + extent.rows,
      startColumnIndex: left,
      endColumnIndex: left + extent.columns,
    },
  };
}

/** The area in A1 (`'My tab'!B2:D5`, or `B2:D5` on the first visible tab); a one-cell area when empty. */
export function areaRange(area: WrittenArea): string {
  const bottom = area.top + Math.max(1, area.rows);
  const right = area.left + Math.max(1, area.columns);
  const cells = `${columnLetters(area.left)}${area.top + 1}:${columnLetters(right - 1)}${bottom}`;
  return area.sheet === undefined ? cells : rangeOnSheet(area.sheet, cells);
}

/**
 * Whether every cell of `area` lies inside `range` (A1; open sides reach the grid's edge). A bare
 * name is not known here (a named range), so it contains nothing.
 */
export function rangeContains(range: string, area: WrittenArea): boolean {
  const { sheetTitle, cells } = splitRange(range);
  if (cells === '' && !range.includes('!')) return false;
  const bounds = gridBounds(cells);
  if (!bounds || sheetTitle !== area.sheet) return false;
  const inside = (start: number | undefined, end: number | undefined, first: number, count: number) =>
    (start ?? 0) <= first && (end === undefined || first + Math.max(1, count) <= end);
  return (
    inside(bounds.startRowIndex, bounds.endRowIndex, area.top, area.rows) &&
    inside(bounds.startColumnIndex, bounds.endColumnIndex, area.left, area.columns)
  );
}
