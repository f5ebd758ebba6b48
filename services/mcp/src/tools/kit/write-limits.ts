import { MAX_WRITE_CELLS } from '../../settings.ts';

const count = (n: number) => n.toLocaleString('en-US');

/** Cells in rows of values (each row as long as it is). */
export function cellsIn(values: readonly (readonly unknown[])[]): number {
  let cells = 0;
  for (const row of values) cells += row.length;
  return cells;
}

/**
 * Why a block of values is too many for one call, and how many of its rows fit at its widest row:
 * the refusal the write tools' schemas give past MAX_WRITE_CELLS.
 */
export function tooManyCells(values: readonly (readonly unknown[])[]): string {
  let widest = 1;
  for (const row of values) widest = Math.max(widest, row.length);
  const fit = Math.floor(MAX_WRITE_CELLS / widest);
  return `${count(cellsIn(values))} cells in ${count(values.length)} rows: one call writes at most ${count(MAX_WRITE_CELLS)}. At ${count(widest)} column${widest === 1 ? '' : 's'}, ${count(fit)} rows fit per call: send the rest in further calls (write_range from the next row, or append_rows).`;
}

/** The refusal of write_ranges' ranges holding more than MAX_WRITE_CELLS between them. */
export function tooManyCellsInAll(cells: number): string {
  return `the ranges hold ${count(cells)} cells in all: one call writes at most ${count(MAX_WRITE_CELLS)}. Send some of them in another call.`;
}
