import type { sheets_v4 } from 'googleapis';
import { amount, quotedName } from '../tools/guards/loss-phrases.ts';
import { columnLetters, quoteSheetName } from '../tools/kit/a1.ts';
import { areaCells, areaRange, type Cell, type InsertedRows, type ValueArea } from './change-payloads.ts';

/**
 * What a change did, in the words the activity log shows (`ChangeEntry.summary`, docs/design.md
 * §11.8): what was done, to which range or tab, with counts that mean something. Cell contents
 * never appear; tab names are quoted as the loss descriptions quote them.
 */

/** A range as a person writes it: one cell as `Sheet1!A5`, not `Sheet1!A5:A5`. */
const shortRange = (range: string) => range.replace(/(\$?[A-Z]+\$?\d+):\1$/, '$1');

/** One range, or how many with the first two: `3 ranges (Sheet1!A1:B2, Sheet1!D1:D4 and 1 more)`. */
function rangesPhrase(ranges: readonly string[]): string {
  const shown = ranges.map(shortRange);
  if (shown.length === 1) return shown[0]!;
  const more = shown.length > 2 ? ` and ${shown.length - 2} more` : '';
  return `${shown.length} ranges (${shown.slice(0, 2).join(', ')}${more})`;
}

const isFormula = (cell: Cell | null) => typeof cell === 'string' && cell.startsWith('=');

/**
 * A value write's summary, from the areas it journaled: "wrote 12 cells of Sheet1!A1:C4 (3
 * formulas)", "appended 4 rows to Orders!A10:F13", "cleared 30 cells of Sheet1!A2:C11",
 * "restored 12 cells of Sheet1!A1:C4" (an undo).
 */
export function valueWriteSummary(change: {
  tool: string;
  areas: readonly ValueArea[];
  insertedRows?: InsertedRows | undefined;
  ranges: readonly string[];
  /** RAW writes store text: a leading `=` is not a formula. */
  raw?: boolean | undefined;
}): string {
  const where = rangesPhrase(change.ranges.length ? change.ranges : change.areas.map(areaRange));
  const rows = change.areas.reduce((sum, area) => sum + area.after.length, 0);
  if (change.tool === 'clear_range') {
    // What was cleared: the cells that held something.
    const held = change.areas.reduce(
      (sum, area) => sum + area.before.flat().filter((cell) => cell !== null && cell !== '').length,
      0,
    );
    return held ? `cleared ${amount(held, 'cell')} of ${where}` : `cleared ${where} (it held no values)`;
  }
  if (change.tool === 'append_rows')
    return change.insertedRows
      ? `appended ${amount(rows, 'row')} to ${where}`
      : `appended ${amount(rows, 'row')} at ${where}, over the cells there`;
  const cells = change.areas.reduce((sum, area) => sum + areaCells(area), 0);
  if (change.tool === 'undo_change') return `restored ${amount(cells, 'cell')} of ${where}`;
  const formulas = change.raw
    ? 0
    : change.areas.reduce((sum, area) => sum + area.after.flat().filter(isFormula).length, 0);
  return `wrote ${amount(cells, 'cell')} of ${where}${formulas ? ` (${amount(formulas, 'formula')})` : ''}`;
}

/** set_notes: "set notes on 3 cells of Sheet1!A1:C1", "cleared the notes of …", or both. */
export function notesSummary(change: {
  set: number;
  cleared: number;
  cells: number;
  ranges: readonly string[];
}): string {
  const verb =
    change.cleared === 0
      ? 'set notes on'
      : change.set === 0
        ? 'cleared the notes of'
        : 'set or cleared notes on';
  return `${verb} ${amount(change.cells, 'cell')} of ${rangesPhrase(change.ranges)}`;
}

/**
 * delete_sheet: "deleted the tab "Q3" (1,200 rows, 4,312 cells)": the tab's rows, and its cells
 * that held a value when its grid was read (not when it was too large to keep).
 */
export function deletedTabSummary(
  title: string,
  rows: number,
  grid: readonly sheets_v4.Schema$RowData[] | undefined,
): string {
  const filled = grid?.reduce(
    (sum, row) => sum + (row.values ?? []).filter((cell) => cell.userEnteredValue).length,
    0,
  );
  const counts = [amount(rows, 'row'), ...(filled !== undefined ? [amount(filled, 'cell')] : [])];
  return `deleted the tab ${quotedName(title)} (${counts.join(', ')})`;
}

/** delete_dimension: "deleted rows 5–9 of Sheet1", "deleted column C of 'My tab'" (one-based, inclusive). */
export function deletedDimensionSummary(change: {
  title: string;
  dimension: 'ROWS' | 'COLUMNS';
  startIndex: number;
  endIndex: number;
}): string {
  const rows = change.dimension === 'ROWS';
  const name = (index: number) => (rows ? String(index + 1) : columnLetters(index));
  const single = change.endIndex - change.startIndex === 1;
  const span = single
    ? `${rows ? 'row' : 'column'} ${name(change.startIndex)}`
    : `${rows ? 'rows' : 'columns'} ${name(change.startIndex)}–${name(change.endIndex - 1)}`;
  return `deleted ${span} of ${quoteSheetName(change.title)}`;
}

/** insert_dimension (and an undo inserting again): "inserted rows 5–9 of Sheet1". */
export function insertedDimensionSummary(change: {
  title: string;
  dimension: 'ROWS' | 'COLUMNS';
  startIndex: number;
  endIndex: number;
}): string {
  return deletedDimensionSummary(change).replace(/^deleted/, 'inserted');
}
