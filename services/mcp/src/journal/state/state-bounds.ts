import type { sheets_v4 } from 'googleapis';
import { MAX_PAYLOAD_BYTES, MAX_UNDO_CELLS, tooLargeReason } from '../change-payloads.ts';
import { areaCellCount } from './state-cells.ts';
import type { CellAreaDiff } from './state-diff.ts';
import { type Footprint, isRuns, type StateImage } from './state-image.ts';
import { imageCells } from './state-image-of.ts';
import type { TabGrid } from './state-read.ts';
import { a1Range, tabTitles } from './state-words.ts';

/**
 * The bounds of what undo keeps of a structure change (docs/design.md §11.8: MAX_UNDO_CELLS cells,
 * MAX_PAYLOAD_BYTES), told as early as it can be, so that a change past them is not read, compared
 * and serialised only to be dropped. The entry of such a change says why, naming the bound it
 * passed and the cells counted once, with the ranges its footprint covers.
 */
export interface TooLarge {
  reason: string;
  cells: number;
  ranges: string[];
}

/**
 * Before the batch is sent, from the before-image and the requests: the cells read, and what the
 * requests that write one cell over a range (`repeatCell`, `setDataValidation`) or given rows
 * (`updateCells`) leave in those cells — each such cell then holds at least that, so undo would
 * keep at least its bytes for every cell it alters — and for a sort, its cells twice (before and
 * after, as rows move). An estimate: cells that held it already, or rows already in order, are
 * counted too.
 */
export function tooLargeBeforeWrite(
  requests: readonly sheets_v4.Schema$Request[],
  footprint: Footprint,
  before: StateImage,
  tabs: readonly TabGrid[],
): TooLarge | undefined {
  const ranges = () => footprintRanges(footprint, before, tabs);
  const read = imageCells(before);
  if (read > MAX_UNDO_CELLS) return { reason: tooLargeReason(read), cells: read, ranges: ranges() };
  let cells = 0;
  let bytes = 0;
  for (const request of requests) {
    const written = request.sortRange?.range
      ? sortedCells(request.sortRange.range, before)
      : writtenCells(request, tabs);
    cells += written.cells;
    bytes += written.bytes;
  }
  if (cells > MAX_UNDO_CELLS || bytes > MAX_PAYLOAD_BYTES)
    return { reason: tooLargeReason(cells, bytes), cells, ranges: ranges() };
  return undefined;
}

/** After the batch, before comparing the images: the cells either image holds. */
export function tooLargeToCompare(
  footprint: Footprint,
  before: StateImage,
  after: StateImage,
): TooLarge | undefined {
  const cells = Math.max(imageCells(before), imageCells(after));
  if (cells <= MAX_UNDO_CELLS) return undefined;
  return { reason: tooLargeReason(cells), cells, ranges: footprintRanges(footprint, after, []) };
}

/**
 * About the bytes an entry spends on the cells that differ, from their keys (the JSON of each
 * cell): known once the images are compared, before the entry is built. A lower bound (the keys
 * count UTF-16 units): `bounded` measures the entry itself.
 */
export function keptCellBytes(diffs: readonly CellAreaDiff[]): number {
  let bytes = 0;
  for (const diff of diffs)
    for (const change of diff.changes) bytes += change.beforeKey.length + change.afterKey.length + 4;
  return bytes;
}

/** What one request leaves in the cells it writes the same way: how many, and their bytes. */
function writtenCells(
  request: sheets_v4.Schema$Request,
  tabs: readonly TabGrid[],
): { cells: number; bytes: number } {
  const each = (range: sheets_v4.Schema$GridRange | undefined, value: unknown) => {
    const cells = range ? cellsOn(range, tabs) : 0;
    return { cells, bytes: cells * Buffer.byteLength(JSON.stringify(value ?? {})) };
  };
  if (request.repeatCell) return each(request.repeatCell.range ?? undefined, request.repeatCell.cell);
  if (request.setDataValidation)
    return each(request.setDataValidation.range ?? undefined, {
      dataValidation: request.setDataValidation.rule,
    });
  const rows = request.updateCells?.rows;
  if (rows)
    return {
      cells: rows.reduce((sum, row) => sum + (row.values?.length ?? 0), 0),
      bytes: Buffer.byteLength(JSON.stringify(rows)),
    };
  return { cells: 0, bytes: 0 };
}

/** The cells a sort moves, as the before-image holds them: kept before and after the sort. */
function sortedCells(
  range: sheets_v4.Schema$GridRange,
  before: StateImage,
): { cells: number; bytes: number } {
  const area = before.cells.find(
    (each) =>
      each.sheetId === (range.sheetId ?? 0) &&
      each.top === (range.startRowIndex ?? 0) &&
      each.left === (range.startColumnIndex ?? 0),
  );
  if (!area || isRuns(area)) return { cells: 0, bytes: 0 };
  return { cells: areaCellCount(area), bytes: 2 * Buffer.byteLength(JSON.stringify(area.rows)) };
}

/** The cells of a grid range on its tab's grid (a side without an end runs to the grid's edge). */
function cellsOn(range: sheets_v4.Schema$GridRange, tabs: readonly TabGrid[]): number {
  const tab = tabs.find((each) => each.sheetId === (range.sheetId ?? 0));
  const side = (
    start: number | null | undefined,
    end: number | null | undefined,
    size: number | undefined,
  ) => {
    const last = Math.min(end ?? size ?? 0, size ?? Number.POSITIVE_INFINITY);
    return Math.max(0, last - (start ?? 0));
  };
  return (
    side(range.startRowIndex, range.endRowIndex, tab?.rowCount) *
    side(range.startColumnIndex, range.endColumnIndex, tab?.columnCount)
  );
}

/** The footprint's cell areas in A1, for the words of an entry whose images were not compared. */
function footprintRanges(footprint: Footprint, image: StateImage, tabs: readonly TabGrid[]): string[] {
  const titles = tabTitles(image, { cells: [], dimensions: [], sheets: [], tabs: [...tabs] });
  const side = (start: number, end: number | undefined, from: string, to: string) =>
    end === undefined && start === 0 ? {} : { [from]: start, ...(end === undefined ? {} : { [to]: end }) };
  return [
    ...new Set([
      ...footprint.cells.map((area) =>
        a1Range(titles, {
          sheetId: area.sheetId,
          ...side(area.startRow, area.endRow, 'startRowIndex', 'endRowIndex'),
          ...side(area.startColumn, area.endColumn, 'startColumnIndex', 'endColumnIndex'),
        }),
      ),
      ...(footprint.allTabsCells
        ? image.cells.map((area) => a1Range(titles, { sheetId: area.sheetId }))
        : []),
    ]),
  ];
}
