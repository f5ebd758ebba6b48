import type { sheets_v4 } from 'googleapis';
import type { AuthInfo } from '../auth/auth-info.ts';
import { ToolError } from '../errors/tool-error.ts';
import { amount } from '../tools/guards/loss-phrases.ts';
import type { ToolDeps } from '../tools/kit/tool-deps.ts';
import type { ChangeJournal, ListedChange } from './change-journal.ts';
import type { InsertedDimension } from './change-payloads.ts';
import { deletedDimensionSummary } from './change-summaries.ts';
import { captureDimension } from './sheet-image.ts';
import { plainBatchUpdate } from './state/state-capture.ts';
import { UndoRefusal } from './undo-refusal.ts';

/**
 * The undo of inserted rows or columns (insert_dimension, or an undo that inserted deleted ones
 * again): deletes them. Refused as changed since when their values or notes are not those they
 * were inserted with (none, for insert_dimension; `force` deletes anyway); what is deleted is kept in the undo's entry (sheet-image.ts captureDimension,
 * two reads), so undoing the undo inserts them again with their cells.
 */
export async function undoInserted(
  deps: ToolDeps & { journal: ChangeJournal },
  auth: AuthInfo,
  signal: AbortSignal,
  change: ListedChange,
  inserted: InsertedDimension,
  options: { force: boolean; dryRun: boolean },
): Promise<{
  restored: string[];
  changedSince: string[];
  text: string;
  undoId?: string;
  undoUnavailable?: string;
}> {
  const captured = await captureDimension(deps, auth, signal, {
    spreadsheetId: change.spreadsheetId,
    sheetId: inserted.sheetId,
    dimension: inserted.dimension,
    startIndex: inserted.startIndex,
    endIndex: inserted.endIndex,
  }).catch((error: unknown) => {
    if (!(error instanceof ToolError) || !/there is no tab/.test(error.message)) throw error;
    throw new UndoRefusal({
      kind: 'target_gone',
      change,
      message: `Not undone: the tab "${inserted.sheet}" the ${inserted.dimension.toLowerCase()} were inserted into is gone.`,
    });
  });
  const span = deletedDimensionSummary({ ...inserted, title: captured.title }).replace(/^deleted /, '');
  const filled = contents(captured.image?.rows ?? []);
  const changed =
    captured.undoUnavailableReason !== undefined ||
    JSON.stringify(filled) !== JSON.stringify(contents(inserted.rows ?? []));
  const changedSince = changed ? [`${span} (${amount(filled.length, 'cell')} with values or notes now)`] : [];
  if (changedSince.length > 0 && !options.force)
    throw new UndoRefusal({ kind: 'changed_since', change, cells: changedSince });
  if (options.dryRun)
    return {
      restored: [span],
      changedSince,
      text: `Dry run: would delete ${span}, which change ${change.id} inserted. Nothing was changed.`,
    };
  await plainBatchUpdate(deps, auth.userId, signal, change.spreadsheetId, [
    {
      deleteDimension: {
        range: {
          sheetId: inserted.sheetId,
          dimension: inserted.dimension,
          startIndex: inserted.startIndex,
          endIndex: inserted.endIndex,
        },
      },
    },
  ]);
  const undoId = deps.journal.record(auth, {
    tool: 'undo_change',
    spreadsheetId: change.spreadsheetId,
    ranges: change.ranges,
    cells: filled.length,
    rows: inserted.dimension === 'ROWS' ? inserted.endIndex - inserted.startIndex : 0,
    summary: `deleted ${span}, which change ${change.id} inserted`,
    undoesChangeId: change.id,
    ...(captured.image
      ? { payload: { v: 1 as const, kind: 'dimension' as const, dimension: captured.image } }
      : { undoUnavailableReason: captured.undoUnavailableReason ?? '' }),
  });
  return {
    restored: [span],
    changedSince,
    undoId,
    ...(captured.image ? {} : { undoUnavailable: captured.undoUnavailableReason }),
    text: `Undid change ${change.id}: deleted ${span}.`,
  };
}

/** The values and notes of a span's cells, by position: what a person put there. */
function contents(rows: readonly sheets_v4.Schema$RowData[]): Array<[number, number, unknown, unknown]> {
  const cells: Array<[number, number, unknown, unknown]> = [];
  for (const [r, row] of rows.entries())
    for (const [c, cell] of (row.values ?? []).entries())
      if (cell.userEnteredValue || cell.note)
        cells.push([r, c, cell.userEnteredValue ?? null, cell.note ?? null]);
  return cells;
}
