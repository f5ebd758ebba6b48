import type { sheets_v4 } from 'googleapis';
import { CellKeys } from './state-compare.ts';
import type { CellRunsImage, CellsImage } from './state-image.ts';
import { isRuns } from './state-image.ts';

/**
 * The cells of an area by position, each with its key (`cellKey`: the canonical JSON of the cell
 * masked to the area's fields), worked out once per area however often the area is compared: the
 * diff, the log's words, the entry kept and undo's comparison with now all read the same keys.
 */

/** Wider than any tab Google allows (18,278 columns), so a position is one number. */
const WIDTH = 32_768;
const position = (row: number, column: number) => row * WIDTH + column;

interface Keyed {
  /** A read area: keys by row and column from its corner. */
  rows?: string[][];
  /** An entry's runs: cell and key by position. */
  cells?: Map<number, { cell: sheets_v4.Schema$CellData; key: string }>;
}

const keyed = new WeakMap<CellsImage, Keyed>();

/** `keys` are shared by the two images of one area compared, when neither was keyed before. */
function keysOf(area: CellsImage, keys: CellKeys = new CellKeys(area.fields)): Keyed {
  const found = keyed.get(area);
  if (found) return found;
  let made: Keyed;
  if (isRuns(area)) {
    const cells = new Map<number, { cell: sheets_v4.Schema$CellData; key: string }>();
    for (const [row, column, run] of area.runs)
      for (const [offset, cell] of run.entries())
        cells.set(position(row, column + offset), { cell, key: keys.of(cell) });
    made = { cells };
  } else made = { rows: area.rows.map((row) => row.map((cell) => keys.of(cell))) };
  keyed.set(area, made);
  return made;
}

/** The key of the cell at a position on the tab (zero-based); `''` for one empty or not held. */
export function keyAt(area: CellsImage | undefined, row: number, column: number): string {
  if (!area) return '';
  const keys = keysOf(area);
  if (keys.cells) return keys.cells.get(position(row, column))?.key ?? '';
  return keys.rows?.[row - area.top]?.[column - area.left] ?? '';
}

/** The cell at a position on the tab as the area holds it (not masked), or undefined. */
export function cellAt(
  area: CellsImage | undefined,
  row: number,
  column: number,
): sheets_v4.Schema$CellData | undefined {
  if (!area) return undefined;
  if (isRuns(area)) return keysOf(area).cells?.get(position(row, column))?.cell;
  return area.rows[row - area.top]?.[column - area.left];
}

/**
 * A cell that differs between the two images, by its keys. `before` and `after` are the cells
 * masked to the area's fields and normalized, made only when asked for (the keys are their JSON).
 */
export class CellChange {
  /** Zero-based on the tab. */
  readonly row: number;
  readonly column: number;
  readonly beforeKey: string;
  readonly afterKey: string;
  readonly #cells: CellsOfKeys;
  constructor(row: number, column: number, beforeKey: string, afterKey: string, cells: CellsOfKeys) {
    this.row = row;
    this.column = column;
    this.beforeKey = beforeKey;
    this.afterKey = afterKey;
    this.#cells = cells;
  }
  get before(): sheets_v4.Schema$CellData {
    return this.#cells.of(this.beforeKey);
  }
  get after(): sheets_v4.Schema$CellData {
    return this.#cells.of(this.afterKey);
  }
}

/**
 * The cells of keys, one object per key for the changes of an area: a format set on many cells
 * is one cell many times. Shared, so never changed by those who read it.
 */
export class CellsOfKeys {
  readonly #cells = new Map<string, sheets_v4.Schema$CellData>();
  of(key: string): sheets_v4.Schema$CellData {
    let cell = this.#cells.get(key);
    if (!cell) {
      cell = key ? (JSON.parse(key) as sheets_v4.Schema$CellData) : {};
      this.#cells.set(key, cell);
    }
    return cell;
  }
}

/**
 * The cells that differ between two images of one area (either may be absent: empty). Read areas
 * are compared cell by cell over what either holds; an entry's runs list the cells the change
 * altered, so where one side is runs only those cells are compared. In row order.
 */
export function cellChanges(before: CellsImage | undefined, after: CellsImage | undefined): CellChange[] {
  const changes: CellChange[] = [];
  const cells = new CellsOfKeys();
  const corner = (before ?? after) as CellsImage | undefined;
  if (!corner) return changes;
  const keys = new CellKeys(corner.fields);
  if (before) keysOf(before, keys);
  if (after) keysOf(after, keys);
  const sparse = [before, after].filter((area): area is CellRunsImage => area !== undefined && isRuns(area));
  if (sparse.length > 0) {
    const positions = new Set<number>();
    for (const area of sparse) for (const at of keysOf(area).cells?.keys() ?? []) positions.add(at);
    for (const at of [...positions].sort((a, b) => a - b)) {
      const row = Math.floor(at / WIDTH);
      const column = at % WIDTH;
      const was = keyAt(before, row, column);
      const is = keyAt(after, row, column);
      if (was !== is) changes.push(new CellChange(row, column, was, is, cells));
    }
    return changes;
  }
  const was = before ? (keysOf(before).rows ?? []) : [];
  const is = after ? (keysOf(after).rows ?? []) : [];
  const height = Math.max(was.length, is.length);
  for (let row = 0; row < height; row++) {
    const a = was[row] ?? [];
    const b = is[row] ?? [];
    const width = Math.max(a.length, b.length);
    for (let column = 0; column < width; column++) {
      const x = a[column] ?? '';
      const y = b[column] ?? '';
      if (x !== y) changes.push(new CellChange(corner.top + row, corner.left + column, x, y, cells));
    }
  }
  return changes;
}

/** The runs of altered cells along rows, each side's cells as `side` gives them. */
export function runsOf(changes: readonly CellChange[], side: 'before' | 'after'): CellRunsImage['runs'] {
  const runs: CellRunsImage['runs'] = [];
  let last: CellRunsImage['runs'][number] | undefined;
  for (const change of changes) {
    const cell = change[side];
    if (last && last[0] === change.row && last[1] + last[2].length === change.column) last[2].push(cell);
    else {
      last = [change.row, change.column, [cell]];
      runs.push(last);
    }
  }
  return runs;
}

/** Cells an area holds: each cell of its rows, or of its runs. */
export function areaCellCount(area: CellsImage): number {
  if (isRuns(area)) return area.runs.reduce((sum, [, , cells]) => sum + cells.length, 0);
  return area.rows.reduce((sum, row) => sum + row.length, 0);
}
