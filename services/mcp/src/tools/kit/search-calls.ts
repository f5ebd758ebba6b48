import { columnLetters, rangeOnSheet } from './a1.ts';

/** A rectangle of one tab to search: zero-based, end-exclusive rows and columns. */
export interface SearchArea {
  title: string;
  rowStart: number;
  rowEnd: number;
  columnStart: number;
  columnEnd: number;
}

/** Where a search goes on: a row of `areas[area]`. */
export interface SearchCursor {
  area: number;
  row: number;
}

/** Rows [top, bottom) of one area, as one A1 range of a values.batchGet call. */
export interface SearchPiece {
  area: SearchArea;
  top: number;
  bottom: number;
  range: string;
  cells: number;
}

/**
 * The most characters of URL-encoded ranges one values.batchGet may carry: the ranges travel in
 * the query string of a GET, and URLs have limits outside Sheets' control (Node's HTTP server, the
 * emulator's, refuses 16 KiB of request head).
 */
export const SEARCH_RANGE_CHARACTERS = 8_000;

/**
 * The first place at or after `cursor` that has cells to search, or null when none is left;
 * `{ area: 0, row: 0 }` is the start of a search.
 */
export function searchStart(areas: readonly SearchArea[], cursor: SearchCursor): SearchCursor | null {
  let { area, row } = cursor;
  while (area < areas.length) {
    const each = areas[area]!;
    row = Math.max(row, each.rowStart);
    if (each.columnEnd > each.columnStart && row < each.rowEnd) return { area, row };
    area++;
    row = 0;
  }
  return null;
}

/**
 * The ranges of the next Google call of a search: whole rows from `cursor` on, running across
 * areas (tabs), until the call holds `cellBudget` cells or `SEARCH_RANGE_CHARACTERS` of ranges.
 * A call always takes at least one row, so a search makes progress however wide a tab is. Packing
 * several tabs into one values.batchGet keeps a workbook of many small tabs to a few calls (each
 * counts once against the per-user read quota) instead of one call per tab.
 */
export function nextSearchCall(
  areas: readonly SearchArea[],
  cursor: SearchCursor,
  cellBudget: number,
): { pieces: SearchPiece[]; next: SearchCursor | null } {
  const pieces: SearchPiece[] = [];
  let cells = 0;
  let characters = 0;
  let at = searchStart(areas, cursor);
  while (at) {
    const area = areas[at.area]!;
    const width = area.columnEnd - area.columnStart;
    const fitting = Math.floor((cellBudget - cells) / width);
    const rows = pieces.length === 0 ? Math.max(1, fitting) : fitting;
    if (rows <= 0) break;
    const bottom = Math.min(at.row + rows, area.rowEnd);
    const range = rangeOnSheet(
      area.title,
      `${columnLetters(area.columnStart)}${at.row + 1}:${columnLetters(area.columnEnd - 1)}${bottom}`,
    );
    const length = encodeURIComponent(range).length + '&ranges='.length;
    if (pieces.length > 0 && characters + length > SEARCH_RANGE_CHARACTERS) break;
    pieces.push({ area, top: at.row, bottom, range, cells: (bottom - at.row) * width });
    cells += (bottom - at.row) * width;
    characters += length;
    at = searchStart(areas, { area: at.area, row: bottom });
  }
  return { pieces, next: at };
}
