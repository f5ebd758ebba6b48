import type { sheets_v4 } from 'googleapis';
import type { CellAreaImage, CellField } from './state-image.ts';

/**
 * A value with what Google's JSON leaves out or writes either way removed: `null`, `undefined`,
 * `''`, `{}` and `[]`, at any depth. Two reads of the same thing compare equal once normalized.
 */
export function normalized(value: unknown): unknown {
  if (value === null || value === undefined || value === '') return undefined;
  if (Array.isArray(value)) {
    const items = value.map((item) => normalized(item) ?? null);
    return items.length === 0 ? undefined : items;
  }
  if (typeof value !== 'object') return value;
  const entries = Object.entries(value as Record<string, unknown>)
    .map(([key, field]) => [key, normalized(field)] as const)
    .filter(([, field]) => field !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return entries.length === 0 ? undefined : Object.fromEntries(entries);
}

/** Structural equality ignoring key order and empty parts (`normalized`). */
export function sameContent(a: unknown, b: unknown): boolean {
  return JSON.stringify(normalized(a)) === JSON.stringify(normalized(b));
}

/** The cell's fields the area was read for, nothing else. */
export function maskedCell(
  cell: sheets_v4.Schema$CellData | undefined,
  fields: readonly CellField[],
): sheets_v4.Schema$CellData {
  const masked: Record<string, unknown> = {};
  for (const field of fields) {
    const value = normalized(cell?.[field]);
    if (value !== undefined) masked[field] = value;
  }
  return masked as sheets_v4.Schema$CellData;
}

/** The cell at a position relative to the area's corner; `undefined` past what was read. */
export function cellOf(
  area: CellAreaImage | undefined,
  row: number,
  column: number,
): sheets_v4.Schema$CellData | undefined {
  return area?.rows[row]?.[column];
}

/** A grid range's corners with Google's defaults (an absent index is 0, an absent end open). */
export function gridCorners(range: sheets_v4.Schema$GridRange) {
  return {
    sheetId: range.sheetId ?? 0,
    startRow: range.startRowIndex ?? 0,
    endRow: range.endRowIndex ?? Number.POSITIVE_INFINITY,
    startColumn: range.startColumnIndex ?? 0,
    endColumn: range.endColumnIndex ?? Number.POSITIVE_INFINITY,
  };
}

export function gridRangeKey(range: sheets_v4.Schema$GridRange): string {
  const corners = gridCorners(range);
  return [corners.sheetId, corners.startRow, corners.endRow, corners.startColumn, corners.endColumn].join(
    ':',
  );
}

export function rangesOverlap(a: sheets_v4.Schema$GridRange, b: sheets_v4.Schema$GridRange): boolean {
  const x = gridCorners(a);
  const y = gridCorners(b);
  return (
    x.sheetId === y.sheetId &&
    x.startRow < y.endRow &&
    y.startRow < x.endRow &&
    x.startColumn < y.endColumn &&
    y.startColumn < x.endColumn
  );
}
