import type { sheets_v4 } from 'googleapis';
import { cellsUndoWords } from './describe-cells.ts';
import { part, type RestoreContext, type RestorePart } from './restore-context.ts';
import { cellOf, maskedCell, sameContent } from './state-compare.ts';
import { type CellAreaDiff, changesSpan } from './state-diff.ts';
import { a1Cell } from './state-words.ts';

/**
 * The cells a change altered get their before back; every other cell in the rectangle the
 * altered ones span keeps what it holds now. One `updateCells` per area over that rectangle: a
 * cell the rows leave empty is cleared for the area's fields, as Google's `range` form does.
 * Without an image of the area now (its tab added back by undo), a cell the change left alone
 * holds what both images say.
 */
export function restoreCells(
  diffs: CellAreaDiff[],
  context: RestoreContext,
): { parts: RestorePart[]; changedCells: string[] } {
  const parts: RestorePart[] = [];
  const changedCells: string[] = [];
  for (const diff of diffs) {
    if (!context.writable(diff.sheetId)) continue;
    const now = diff.after ? context.nowArea(diff.after) : undefined;
    const title = context.titles(diff.sheetId);
    const altered = new Map(diff.changes.map((change) => [`${change.row}:${change.column}`, change]));
    for (const change of diff.changes) {
      if (!now) continue;
      const current = maskedCell(cellOf(now, change.row - now.top, change.column - now.left), diff.fields);
      if (!sameContent(current, change.after)) changedCells.push(a1Cell(title, change.row, change.column));
    }
    const range = changesSpan(diff);
    const rowData: sheets_v4.Schema$RowData[] = [];
    for (let row = range.startRowIndex as number; row < (range.endRowIndex as number); row++) {
      const values: sheets_v4.Schema$CellData[] = [];
      for (
        let column = range.startColumnIndex as number;
        column < (range.endColumnIndex as number);
        column++
      ) {
        const change = altered.get(`${row}:${column}`);
        const keep = now ?? diff.after;
        values.push(
          change
            ? change.before
            : maskedCell(keep ? cellOf(keep, row - keep.top, column - keep.left) : undefined, diff.fields),
        );
      }
      rowData.push({ values });
    }
    const request = { updateCells: { range, rows: rowData, fields: diff.fields.join(',') } };
    parts.push(part('cells', [request], [cellsUndoWords(diff, () => title)]));
  }
  return { parts, changedCells };
}
