import type { sheets_v4 } from 'googleapis';
import { updateCellsArea } from '../kit/written-area.ts';
import type { Area } from './loss-reads.ts';

/**
 * What the earlier requests of a batch_update change, so that a later request's loss is not
 * counted against cells that will no longer be as they are now: the content of a range (values
 * written, sorted, replaced or merged away), or of every tab for a kind this list does not know.
 * Formats, borders, filters, filter views, sizes and tab properties change no content (a table's
 * column names may write its header row, so tables are not among them); the kinds that change a
 * tab's shape are refused by batch_update before this is asked (journal/state/footprint.ts).
 */
interface Change {
  sheetId: number | 'every tab';
  /** The cells whose content changes; absent when every cell of the tab may. */
  range?: sheets_v4.Schema$GridRange;
}

export function batchChanges() {
  const changes: Change[] = [];
  const added = new Set<number>();
  return {
    record(request: sheets_v4.Schema$Request) {
      changes.push(...changesOf(request));
      const ids = [request.addSheet?.properties?.sheetId, request.duplicateSheet?.newSheetId];
      for (const id of ids) if (typeof id === 'number') added.add(id);
    },
    /** Whether the batch has made this tab itself, so it held nothing before. */
    added: (sheetId: number) => added.has(sheetId),
    /** Whether an earlier request changed the tab's structure or any content of `area`. */
    touches: (area: Area) =>
      changes.some(
        (change) =>
          (change.sheetId === 'every tab' || change.sheetId === area.tab.sheetId) &&
          (!change.range || overlaps(change.range, area)),
      ),
  };
}

function changesOf(request: sheets_v4.Schema$Request): Change[] {
  const content = (range: sheets_v4.Schema$GridRange | undefined): Change[] =>
    range ? [{ sheetId: range.sheetId ?? 0, range }] : [];
  const valueMask = (fields: string | null | undefined) => maskCovers(fields, 'userEnteredValue');

  if (request.repeatCell)
    return valueMask(request.repeatCell.fields) ? content(request.repeatCell.range ?? {}) : [];
  if (request.updateCells) {
    if (!valueMask(request.updateCells.fields)) return [];
    return content(updateCellsArea(request.updateCells)?.range ?? {});
  }
  if (request.findReplace) {
    const { range, sheetId, allSheets } = request.findReplace;
    if (allSheets) return [{ sheetId: 'every tab', range: {} }];
    return range ? content(range) : [{ sheetId: sheetId ?? 0, range: {} }];
  }
  if (request.sortRange) return content(request.sortRange.range ?? {});
  // Merging keeps only the top-left value of each merged block.
  if (request.mergeCells) return content(request.mergeCells.range ?? {});
  if (
    request.addSheet ||
    request.duplicateSheet ||
    request.updateSheetProperties ||
    request.unmergeCells ||
    request.autoResizeDimensions ||
    request.updateDimensionProperties ||
    request.setBasicFilter ||
    request.clearBasicFilter ||
    request.addFilterView ||
    request.updateFilterView ||
    request.deleteFilterView ||
    request.duplicateFilterView ||
    request.deleteTable ||
    request.updateBorders
  )
    return [];
  // A kind this list does not know: assume it changes everything.
  return [{ sheetId: 'every tab' }];
}

/**
 * Whether a field mask (`a,b.c`, `*`) sets any part of `field`: `*`, the field itself, a field it
 * is part of, or a part of it.
 */
export function maskCovers(mask: string | null | undefined, field: string): boolean {
  return (mask ?? '')
    .split(',')
    .map((each) => each.trim())
    .some(
      (each) =>
        each === '*' || each === field || field.startsWith(`${each}.`) || each.startsWith(`${field}.`),
    );
}

/** Whether a GridRange (open sides reach the grid's edges) shares a cell with an area. */
function overlaps(range: sheets_v4.Schema$GridRange, area: Area): boolean {
  const meets = (
    start: number | null | undefined,
    end: number | null | undefined,
    from: number,
    to: number,
  ) => (start ?? 0) < to && (end ?? Number.POSITIVE_INFINITY) > from;
  return (
    area.rowEnd > area.rowStart &&
    area.columnEnd > area.columnStart &&
    meets(range.startRowIndex, range.endRowIndex, area.rowStart, area.rowEnd) &&
    meets(range.startColumnIndex, range.endColumnIndex, area.columnStart, area.columnEnd)
  );
}
