import type { AuthInfo } from '../auth/auth-info.ts';
import type { ChangeJournal } from './change-journal.ts';
import { areaCells, areaRange, bounded, type InsertedRows, type ValueArea } from './change-payloads.ts';
import { valueWriteSummary } from './change-summaries.ts';

/**
 * The sentence a tool's answer ends with when its change was journaled: that undo_change can undo
 * it, or (`undoUnavailable`) why it cannot.
 */
export function changeNote(changeId: string | undefined, undoUnavailable?: string): string {
  if (!changeId) return '';
  return undoUnavailable
    ? ` Change ${changeId}. ${undoUnavailable}`
    : ` Change ${changeId} (undo_change can undo it).`;
}

/**
 * Journals a value write: its areas' before- and after-images, bounded (change-payloads.ts), and
 * what it did in words (change-summaries.ts).
 */
export function recordValueChange(
  journal: ChangeJournal,
  auth: AuthInfo,
  change: {
    tool: string;
    spreadsheetId: string;
    areas: ValueArea[];
    insertedRows?: InsertedRows;
    /** The ranges to list, when not the areas' own. */
    ranges?: string[];
    /** Written with valueInputOption RAW: a leading `=` stored text, not a formula. */
    raw?: boolean;
    undoesChangeId?: string;
  },
): string {
  const ranges = change.ranges ?? change.areas.map(areaRange);
  const cells = change.areas.reduce((sum, area) => sum + areaCells(area), 0);
  const rows = change.areas.reduce((sum, area) => sum + area.after.length, 0);
  const payload = {
    v: 1 as const,
    kind: 'values' as const,
    areas: change.areas,
    ...(change.insertedRows ? { insertedRows: change.insertedRows } : {}),
  };
  return journal.record(auth, {
    tool: change.tool,
    spreadsheetId: change.spreadsheetId,
    ranges,
    cells,
    rows,
    summary: valueWriteSummary({ ...change, ranges }),
    ...bounded(payload, cells),
    ...(change.undoesChangeId ? { undoesChangeId: change.undoesChangeId } : {}),
  });
}
