import { runsOf } from './state-cells.ts';
import {
  aspectDiffers,
  dimensionKey,
  propertyDiffs,
  type StateDiff,
  sheetPairs,
  stateDiff,
} from './state-diff.ts';
import type { CellRunsImage, SheetStateImage, StateImage } from './state-image.ts';
import { OBJECT_KINDS, objectKey } from './state-objects.ts';
import { knownTitle } from './state-words.ts';

type SheetAspects = Omit<SheetStateImage, 'sheetId' | 'title'>;

/**
 * The two images without what the change left as it was, so the journal keeps only what undo and
 * the log need: the altered cells of each area (runs, the same cells on both sides; an area only
 * on the side that read it), rows and columns images with an altered size, the aspects of a tab
 * that differ (lists of objects by id keep the objects that differ), the named ranges that differ,
 * and the tab lists. restoreState and describeStateChange answer the same for the result as for
 * the whole images. `diff` is the images' stateDiff when the caller has it already.
 */
export function changedParts(
  before: StateImage,
  after: StateImage,
  diff: StateDiff = stateDiff(before, after),
): { before: StateImage; after: StateImage } {
  const dimensions = new Set(diff.dimensions.map(dimensionKey));
  const objects = new Set(diff.objects.map((each) => each.key));
  const cells = (side: 'before' | 'after'): CellRunsImage[] =>
    diff.cells.flatMap((area) => {
      const read = area[side];
      if (!read) return [];
      const { sheetId, sheet, top, left, fields } = read;
      return [{ sheetId, sheet, top, left, fields, runs: runsOf(area.changes, side) }];
    });
  const keep = (image: StateImage, side: 'before' | 'after'): StateImage => {
    const sheets: SheetStateImage[] = [];
    for (const pair of sheetPairs(before, after)) {
      const sheet = pair[side];
      const aspects: SheetAspects = {};
      const propertiesDiffer =
        (pair.before.properties === undefined) !== (pair.after.properties === undefined) ||
        propertyDiffs(before, after, pair.before, pair.after).length > 0;
      if (propertiesDiffer && sheet.properties) aspects.properties = sheet.properties;
      for (const aspect of ['merges', 'conditionalFormats', 'basicFilter'] as const)
        if (aspectDiffers(aspect, pair.before, pair.after) && sheet[aspect] !== undefined)
          Object.assign(aspects, { [aspect]: sheet[aspect] });
      for (const kind of OBJECT_KINDS) {
        if (kind === 'namedRanges') continue;
        const kept = (sheet[kind] ?? []).filter((value: object) => objects.has(objectKey(kind, value)));
        if (kept.length > 0) Object.assign(aspects, { [kind]: kept });
      }
      if (Object.keys(aspects).length === 0) continue;
      const title = knownTitle(image, sheet.sheetId);
      sheets.push({ sheetId: sheet.sheetId, ...(title ? { title } : {}), ...aspects });
    }
    const namedRanges = (image.namedRanges ?? []).filter((range) =>
      objects.has(objectKey('namedRanges', range)),
    );
    return {
      cells: cells(side),
      dimensions: image.dimensions.filter((each) => dimensions.has(dimensionKey(each))),
      sheets,
      ...(namedRanges.length > 0 ? { namedRanges } : {}),
      ...(image.tabs ? { tabs: image.tabs } : {}),
    };
  };
  return { before: keep(before, 'before'), after: keep(after, 'after') };
}
