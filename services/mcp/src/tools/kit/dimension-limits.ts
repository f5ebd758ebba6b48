import { ToolError } from '../../errors/tool-error.ts';

/**
 * Refuses, in Google's words, inserting rows or columns past a tab's end or deleting a span that
 * starts past it or would leave the tab with none (Google deletes up to the end of a span that runs
 * past the tab). So a dry run, which reads the tab's grid, says what the real call's Google would;
 * kit/range-refusals.ts gives the real call's refusal in the same words.
 */
export function checkDimensionSpan(
  tab: { rows: number; columns: number },
  change: { dimension: 'ROWS' | 'COLUMNS'; startIndex: number; endIndex: number },
  kind: 'insert' | 'delete',
): void {
  const rows = change.dimension === 'ROWS';
  const what = rows ? 'rows' : 'columns';
  const count = rows ? tab.rows : tab.columns;
  const start = change.startIndex;
  if (kind === 'insert') {
    if (start > count)
      throw new ToolError(`Cannot insert ${what} at index ${start}: the sheet has only ${count}.`);
    return;
  }
  if (start >= count)
    throw new ToolError(`Cannot delete ${what} from index ${start}: the sheet has only ${count}.`);
  if (start === 0 && Math.min(change.endIndex, count) >= count)
    throw new ToolError(`You can't delete all the ${what} on the sheet.`);
}
