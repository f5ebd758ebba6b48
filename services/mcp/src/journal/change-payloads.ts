import type { sheets_v4 } from 'googleapis';
import { columnLetters, rangeOnSheet } from '../tools/kit/a1.ts';
import { type CellAt, isAmbiguous, type StringKind } from '../tools/kit/cell-kinds.ts';
import { areaFrom } from '../tools/kit/written-area.ts';
import type { DrivePayload } from './drive-payloads.ts';
import type { NoteArea } from './note-images.ts';
import type { DimensionImage } from './sheet-image.ts';
import type { Footprint, StateImage } from './state/state-image.ts';

/**
 * What undo needs of a change (docs/design.md §11.8), JSON the MCP service writes and reads back;
 * auth seals it and never reads it. Cells are as a FORMULA-rendered read gives them: numbers,
 * booleans, text, and formulas as their text (`=SUM(A1:A3)`); `''` is an empty cell.
 */
export type Cell = string | number | boolean;

/** A rectangle of one tab a value write changed. */
export interface ValueArea {
  /** The tab's title. */
  sheet: string;
  /** Zero-based top-left cell of the written values. */
  top: number;
  left: number;
  /** What the change left in each cell, by row; null where the write left a cell as it was. */
  after: Array<Array<Cell | null>>;
  /** What each cell held before, the same shape (null where `after` is). */
  before: Array<Array<Cell | null>>;
  /**
   * Cells of `before` whose string is not the kind it reads as: text starting with `=` (not a
   * formula) or an error value (not text), so undo puts back the same kind (cell-kinds.ts).
   * Absent in entries made before kinds were kept, and where there are none.
   */
  kinds?: Array<[row: number, column: number, kind: 'text' | 'error']>;
}

/** What cells held before a write: their tab, top-left cell, FORMULA-rendered values and kinds. */
export interface CellsBefore {
  sheet: string;
  top: number;
  left: number;
  values: readonly (readonly unknown[])[];
  kindOf?(row: number, column: number): StringKind | undefined;
}

/** Rows an append inserted (INSERT_ROWS): undo deletes them again. */
export interface InsertedRows {
  sheet: string;
  /** Zero-based, end-exclusive. */
  start: number;
  end: number;
}

/** Rows or columns insert_dimension (or an undo) inserted; zero-based, end-exclusive. */
export interface InsertedDimension {
  sheet: string;
  sheetId: number;
  dimension: 'ROWS' | 'COLUMNS';
  startIndex: number;
  endIndex: number;
  /** The cells they were inserted with (an undo inserting deleted ones again); absent: empty. */
  rows?: sheets_v4.Schema$RowData[];
}

/** Enough of a deleted tab to recreate it: its properties and every cell's value, format and note. */
export interface SheetImage {
  properties: sheets_v4.Schema$SheetProperties;
  rows: sheets_v4.Schema$RowData[];
  merges: sheets_v4.Schema$GridRange[];
}

export type ChangePayload =
  | { v: 1; kind: 'values'; areas: ValueArea[]; insertedRows?: InsertedRows }
  | { v: 1; kind: 'sheet'; sheet: SheetImage }
  | { v: 1; kind: 'notes'; areas: NoteArea[] }
  | { v: 1; kind: 'dimension'; dimension: DimensionImage }
  /** Rows or columns a change inserted: undo deletes them (keeping their cells, for a redo). */
  | { v: 1; kind: 'inserted'; inserted: InsertedDimension }
  /**
   * A structure change: the parts its batchUpdate changed, as they were before and after. Version 2
   * keeps of cells only those the change altered (runs); version 1, made before, whole areas. Undo
   * reads both.
   */
  | { v: 1 | 2; kind: 'state'; footprint: Footprint; before: StateImage; after: StateImage }
  | DrivePayload;

/** Cells one change may replace and still be undoable. */
export const MAX_UNDO_CELLS = 50_000;
/** Bytes of one change's payload at most (auth takes 512 KiB). */
export const MAX_PAYLOAD_BYTES = 480 * 1024;

/**
 * The reason an entry too large to keep says, naming the bound it passed: the cells the change
 * replaced past MAX_UNDO_CELLS, else the bytes (`bytes`, the payload's UTF-8 size or an estimate
 * of it, when known).
 */
export function tooLargeReason(cells: number, bytes?: number): string {
  const count = cells.toLocaleString('en-US');
  if (cells > MAX_UNDO_CELLS)
    return `Undo is not available: the change replaced ${count} cells; Sheetgate keeps the replaced contents of at most ${MAX_UNDO_CELLS.toLocaleString('en-US')} cells per change.`;
  const what =
    cells > 0
      ? `what the change replaced (${count} ${cells === 1 ? 'cell' : 'cells'})`
      : 'what the change replaced';
  const size =
    bytes === undefined
      ? 'more than'
      : `about ${Math.ceil(bytes / 1024).toLocaleString('en-US')} KB, more than`;
  return `Undo is not available: ${what} takes ${size} the ${MAX_PAYLOAD_BYTES / 1024} KB Sheetgate keeps per change.`;
}

/** The payload, or the reason it cannot be kept: more cells than MAX_UNDO_CELLS, or UTF-8 bytes than MAX_PAYLOAD_BYTES. */
export function bounded(
  payload: ChangePayload,
  cells: number,
): { payload?: ChangePayload; undoUnavailableReason?: string } {
  if (cells > MAX_UNDO_CELLS) return { undoUnavailableReason: tooLargeReason(cells) };
  const bytes = Buffer.byteLength(JSON.stringify(payload));
  if (bytes > MAX_PAYLOAD_BYTES) return { undoUnavailableReason: tooLargeReason(cells, bytes) };
  return { payload };
}

const cellOf = (value: unknown): Cell =>
  typeof value === 'number' || typeof value === 'boolean' || typeof value === 'string' ? value : '';

/** Where a range Google answered with starts: its tab and zero-based top-left cell. */
export function cornerOf(answeredRange: string): { sheet: string; top: number; left: number } {
  const { sheet = '', top, left } = areaFrom(answeredRange, []);
  return { sheet, top, left };
}

/**
 * The area a write of `written` changed: `before` is what the cells held (a FORMULA read, from the
 * area's top-left cell), `afterRead` what Google answered they hold after (includeValuesInResponse,
 * FORMULA); a null in `written` leaves its cell alone.
 */
export function valueArea(
  before: CellsBefore,
  written: readonly (readonly unknown[])[],
  afterRead: readonly (readonly unknown[])[] | undefined,
): ValueArea {
  const kinds: Array<[number, number, 'text' | 'error']> = [];
  const beforeCells = written.map((row, r) =>
    row.map((value, c) => {
      if (value === null) return null;
      const cell = cellOf(before.values[r]?.[c]);
      const kind = isAmbiguous(cell) ? before.kindOf?.(r, c) : undefined;
      if (
        (kind === 'text' && cell.toString().startsWith('=')) ||
        (kind === 'error' && !cell.toString().startsWith('='))
      )
        kinds.push([r, c, kind]);
      return cell;
    }),
  );
  return {
    sheet: before.sheet,
    top: before.top,
    left: before.left,
    after: written.map((row, r) =>
      row.map((value, c) => (value === null ? null : afterRead ? cellOf(afterRead[r]?.[c]) : cellOf(value))),
    ),
    before: beforeCells,
    ...(kinds.length ? { kinds } : {}),
  };
}

/** The kind of each cell of an area's before-image that is not the kind it reads as. */
export function kindsOf(area: ValueArea): (row: number, column: number) => 'text' | 'error' | undefined {
  const kinds = new Map((area.kinds ?? []).map(([row, column, kind]) => [`${row},${column}`, kind]));
  return (row, column) => kinds.get(`${row},${column}`);
}

/** The cells of a FORMULA read from `corner` whose strings do not say their kind (cell-kinds.ts). */
export function ambiguousCells(
  corner: { sheet: string; top: number; left: number },
  values: readonly (readonly unknown[])[],
): CellAt[] {
  const cells: CellAt[] = [];
  for (const [row, line] of values.entries())
    for (const [column, value] of (line ?? []).entries())
      if (isAmbiguous(value))
        cells.push({ sheet: corner.sheet, row: corner.top + row, column: corner.left + column });
  return cells;
}

/** Cells an area covers that the change set (not null). */
export function areaCells(area: ValueArea): number {
  return area.after.reduce((sum, row) => sum + row.filter((cell) => cell !== null).length, 0);
}

/** The A1 range an area covers. */
export function areaRange(area: ValueArea): string {
  const width = Math.max(1, ...area.after.map((row) => row.length));
  const height = Math.max(1, area.after.length);
  return rangeOnSheet(
    area.sheet,
    `${columnLetters(area.left)}${area.top + 1}:${columnLetters(area.left + width - 1)}${area.top + height}`,
  );
}

/** Whether a cell read now still holds what the change left. */
export function sameCell(now: unknown, expected: Cell): boolean {
  const current = cellOf(now);
  if (current === expected) return true;
  if (typeof current === 'number' || typeof expected === 'number')
    return Number(current) === Number(expected) && current !== '' && expected !== '';
  return false;
}

/**
 * A cell's earlier content as a USER_ENTERED write restores it exactly: numbers, booleans,
 * formulas and error values as they are, other text behind an apostrophe (so `001` stays text and
 * `=1+1` that was text does not become a formula), empty as ''.
 */
export function restoredValue(cell: Cell | null, kind?: 'text' | 'error'): unknown {
  if (cell === null) return null;
  if (typeof cell !== 'string' || cell === '') return cell;
  if (kind === 'error' || (cell.startsWith('=') && kind !== 'text')) return cell;
  return `'${cell}`;
}
