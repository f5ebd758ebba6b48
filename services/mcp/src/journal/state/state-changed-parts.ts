import {
  areaKey,
  aspectDiffers,
  cellAreaDiffs,
  dimensionDiffs,
  dimensionKey,
  objectDiffs,
  propertyDiffs,
  sheetPairs,
} from './state-diff.ts';
import type { SheetStateImage, StateImage } from './state-image.ts';
import { OBJECT_KINDS, objectKey } from './state-objects.ts';
import { knownTitle } from './state-words.ts';

type SheetAspects = Omit<SheetStateImage, 'sheetId' | 'title'>;

/**
 * The two images without what the change left as it was, so the journal keeps only what undo and
 * the log need: cell areas with an altered cell (whole), rows and columns images with an altered
 * size, the aspects of a tab that differ (lists of objects by id keep the objects that differ), the
 * named ranges that differ, and the tab lists. restoreState and describeStateChange answer the
 * same for the result as for the whole images.
 */
export function changedParts(
  before: StateImage,
  after: StateImage,
): { before: StateImage; after: StateImage } {
  const areas = new Set(cellAreaDiffs(before, after).map((diff) => diff.key));
  const dimensions = new Set(dimensionDiffs(before, after).map(dimensionKey));
  const objects = new Set(objectDiffs(before, after).map((diff) => diff.key));
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
      cells: image.cells.filter((area) => areas.has(areaKey(area))),
      dimensions: image.dimensions.filter((each) => dimensions.has(dimensionKey(each))),
      sheets,
      ...(namedRanges.length > 0 ? { namedRanges } : {}),
      ...(image.tabs ? { tabs: image.tabs } : {}),
    };
  };
  return { before: keep(before, 'before'), after: keep(after, 'after') };
}
