import type { sheets_v4 } from 'googleapis';
import { part, type RestoreContext, type RestorePart } from './restore-context.ts';
import { type DimensionChange, type DimensionDiff, type DimensionField, sizeFields } from './state-diff.ts';
import { a1Dimension, counted } from './state-words.ts';

/** Consecutive changes that one request can put back: the same fields to the same values. */
function runs(changes: DimensionChange[], fieldsOf: (change: DimensionChange) => DimensionField[]) {
  const signature = (change: DimensionChange) =>
    JSON.stringify(fieldsOf(change).map((field) => [field, change.before?.[field] ?? null]));
  const found: Array<{ start: number; end: number; first: DimensionChange; fields: DimensionField[] }> = [];
  for (const change of changes) {
    const last = found.at(-1);
    if (last && last.end === change.index && signature(last.first) === signature(change)) last.end++;
    else found.push({ start: change.index, end: change.index + 1, first: change, fields: fieldsOf(change) });
  }
  return found.filter((run) => run.fields.length > 0);
}

/** A size or visibility undo finds changed since: `the height of Sheet1!3:5`. */
const NOUNS: Record<DimensionField, (dimension: 'ROWS' | 'COLUMNS') => string> = {
  pixelSize: (dimension) => (dimension === 'ROWS' ? 'the height of' : 'the width of'),
  hiddenByUser: () => 'the visibility of',
};

/** What undo does to a run: `put back the height of 3 rows of Sheet1!3:5`, `show 2 rows of … again`. */
function undoWords(
  field: DimensionField,
  run: { start: number; end: number; first: DimensionChange },
  dimension: 'ROWS' | 'COLUMNS',
  where: string,
): string {
  const spans = `${counted(run.end - run.start, dimension === 'ROWS' ? 'row' : 'column')} of ${where}`;
  if (field === 'pixelSize') return `put back ${NOUNS.pixelSize(dimension)} ${spans}`;
  return run.first.before?.hiddenByUser ? `hide ${spans} again` : `show ${spans} again`;
}

/**
 * Sizes and visibility the change set come back per run of equal values; only the fields it
 * altered are written, so a later resize of a row the change only hid stays.
 */
export function restoreDimensions(diffs: DimensionDiff[], context: RestoreContext): RestorePart[] {
  const parts: RestorePart[] = [];
  for (const diff of diffs) {
    if (!context.writable(diff.sheetId)) continue;
    const title = context.titles(diff.sheetId);
    const now = context.nowDimension(diff);
    const where = (start: number, end: number) => a1Dimension(title, diff.dimension, start, end);
    const nouns = (fields: DimensionField[], start: number, end: number) =>
      fields.map((field) => `${NOUNS[field](diff.dimension)} ${where(start, end)}`);
    // A size that was never known (no pixelSize read) cannot be written back.
    const restorable = (change: DimensionChange) =>
      change.fields.filter((field) => field !== 'pixelSize' || change.before?.pixelSize != null);
    const requests: sheets_v4.Schema$Request[] = [];
    const restored: string[] = [];
    for (const run of runs(diff.changes, restorable)) {
      const properties: sheets_v4.Schema$DimensionProperties = {};
      if (run.fields.includes('pixelSize')) properties.pixelSize = run.first.before?.pixelSize ?? null;
      if (run.fields.includes('hiddenByUser'))
        properties.hiddenByUser = run.first.before?.hiddenByUser ?? false;
      requests.push({
        updateDimensionProperties: {
          range: {
            sheetId: diff.sheetId,
            dimension: diff.dimension,
            startIndex: run.start,
            endIndex: run.end,
          },
          properties,
          fields: run.fields.join(','),
        },
      });
      restored.push(
        ...run.fields.map((field) => undoWords(field, run, diff.dimension, where(run.start, run.end))),
      );
    }
    const changedSince: string[] = [];
    if (now) {
      const moved = diff.changes.filter((change) => {
        const current = now.sizes[change.index - now.start];
        return sizeFields(current, change.after).some((field) => change.fields.includes(field));
      });
      for (const run of runs(moved, (change) => change.fields))
        changedSince.push(...nouns(run.fields, run.start, run.end));
    }
    parts.push(part('restoreObjects', requests, restored, [...new Set(changedSince)]));
  }
  return parts;
}
