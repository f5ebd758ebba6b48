import type { sheets_v4 } from 'googleapis';
import { cellsUndoWords } from './describe-cells.ts';
import { part, type RestoreContext, type RestorePart } from './restore-context.ts';
import { type CellChange, cellAt, keyAt } from './state-cells.ts';
import { maskedCell } from './state-compare.ts';
import type { CellAreaDiff } from './state-diff.ts';
import type { CellsImage } from './state-image.ts';
import { a1Cell } from './state-words.ts';

/**
 * The cells a change altered get their before back; every other cell keeps what it holds now.
 * One `updateCells` per block of rows with altered cells, over the columns its altered cells
 * span: a cell of the block the change left alone is written as it is now (as read with the
 * footprint), and one the rows leave empty is cleared for the area's fields, as Google's `range`
 * form does. Without an image of the area now (its tab added back by undo), a cell the change
 * left alone holds what the after-image says of it (nothing, when the entry kept only the cells
 * the change altered: the tab is new).
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
    if (now)
      for (const change of diff.changes)
        if (keyAt(now, change.row, change.column) !== change.afterKey)
          changedCells.push(a1Cell(title, change.row, change.column));
    const keep = now ?? diff.after;
    const requests = blocksOf(diff.changes).map((block) =>
      blockRequest(block, diff.sheetId, diff.fields, keep),
    );
    parts.push(part('cells', requests, [cellsUndoWords(diff, () => title)]));
  }
  return { parts, changedCells };
}

interface Block {
  top: number;
  bottom: number;
  left: number;
  right: number;
  altered: Map<string, CellChange>;
}

/** Rows with altered cells, one after another, as blocks (changes come in row order). */
function blocksOf(changes: readonly CellChange[]): Block[] {
  const blocks: Block[] = [];
  let block: Block | undefined;
  for (const change of changes) {
    if (!block || change.row > block.bottom + 1) {
      block = {
        top: change.row,
        bottom: change.row,
        left: change.column,
        right: change.column,
        altered: new Map(),
      };
      blocks.push(block);
    }
    block.bottom = change.row;
    block.left = Math.min(block.left, change.column);
    block.right = Math.max(block.right, change.column);
    block.altered.set(`${change.row}:${change.column}`, change);
  }
  return blocks;
}

function blockRequest(
  block: Block,
  sheetId: number,
  fields: CellAreaDiff['fields'],
  keep: CellsImage | undefined,
): sheets_v4.Schema$Request {
  const rows: sheets_v4.Schema$RowData[] = [];
  for (let row = block.top; row <= block.bottom; row++) {
    const values: sheets_v4.Schema$CellData[] = [];
    for (let column = block.left; column <= block.right; column++) {
      const change = block.altered.get(`${row}:${column}`);
      values.push(change ? change.before : maskedCell(cellAt(keep, row, column), fields));
    }
    rows.push({ values });
  }
  const range = {
    sheetId,
    startRowIndex: block.top,
    endRowIndex: block.bottom + 1,
    startColumnIndex: block.left,
    endColumnIndex: block.right + 1,
  };
  return { updateCells: { range, rows, fields: fields.join(',') } };
}
