import type { sheets_v4 } from 'googleapis';
import { type CellChange, cellChanges } from './state-cells.ts';
import { gridRangeKey, normalized, sameContent } from './state-compare.ts';
import {
  ALL_CELL_FIELDS,
  type CellField,
  type CellsImage,
  type DimensionImage,
  type SheetStateImage,
  type StateImage,
} from './state-image.ts';
import { type KeyedObject, keyedObjects } from './state-objects.ts';

/**
 * What differs between two images of the same footprint, part by part: the one reading of a
 * change that undo (with the parts as they are now) and the activity log's words are built on.
 */

export { CellChange } from './state-cells.ts';

export interface CellAreaDiff {
  key: string;
  sheetId: number;
  top: number;
  left: number;
  fields: CellField[];
  before: CellsImage | undefined;
  after: CellsImage | undefined;
  changes: CellChange[];
}

export const areaKey = (area: Pick<CellsImage, 'sheetId' | 'top' | 'left' | 'fields'>) =>
  `${area.sheetId}:${area.top}:${area.left}:${[...area.fields].sort().join(',')}`;

/** The areas with a cell that differs; before and after of one area may differ in extent. */
export function cellAreaDiffs(before: StateImage, after: StateImage): CellAreaDiff[] {
  const pairs = new Map<string, { before?: CellsImage; after?: CellsImage }>();
  for (const area of before.cells) pairs.set(areaKey(area), { before: area });
  for (const area of after.cells) pairs.set(areaKey(area), { ...pairs.get(areaKey(area)), after: area });
  const diffs: CellAreaDiff[] = [];
  for (const [key, pair] of pairs) {
    const changes = cellChanges(pair.before, pair.after);
    if (changes.length === 0) continue;
    const corner = (pair.before ?? pair.after) as CellsImage;
    diffs.push({
      key,
      sheetId: corner.sheetId,
      top: corner.top,
      left: corner.left,
      fields: ALL_CELL_FIELDS.filter((field) => corner.fields.includes(field)),
      before: pair.before,
      after: pair.after,
      changes,
    });
  }
  return diffs;
}

/** Everything that differs between two images, worked out once for the log's words and the entry. */
export interface StateDiff {
  cells: CellAreaDiff[];
  dimensions: DimensionDiff[];
  objects: ObjectDiff[];
}

export function stateDiff(before: StateImage, after: StateImage): StateDiff {
  return {
    cells: cellAreaDiffs(before, after),
    dimensions: dimensionDiffs(before, after),
    objects: objectDiffs(before, after),
  };
}

/** The rectangle an area's altered cells span. */
export function changesSpan(diff: CellAreaDiff): sheets_v4.Schema$GridRange {
  let [top, bottom, left, right] = [Number.POSITIVE_INFINITY, -1, Number.POSITIVE_INFINITY, -1];
  for (const { row, column } of diff.changes) {
    top = Math.min(top, row);
    bottom = Math.max(bottom, row);
    left = Math.min(left, column);
    right = Math.max(right, column);
  }
  return {
    sheetId: diff.sheetId,
    startRowIndex: top,
    endRowIndex: bottom + 1,
    startColumnIndex: left,
    endColumnIndex: right + 1,
  };
}

/** The tabs of both images by sheetId; a side without the tab is an empty image. */
export function sheetPairs(
  before: StateImage,
  after: StateImage,
): Array<{ sheetId: number; before: SheetStateImage; after: SheetStateImage }> {
  const ids = new Set([...before.sheets, ...after.sheets].map((sheet) => sheet.sheetId));
  const find = (image: StateImage, sheetId: number) =>
    image.sheets.find((sheet) => sheet.sheetId === sheetId) ?? { sheetId };
  return [...ids].map((sheetId) => ({ sheetId, before: find(before, sheetId), after: find(after, sheetId) }));
}

/** Whether an aspect was read (on either side) and differs. */
export function aspectDiffers<K extends keyof SheetStateImage>(
  key: K,
  before: SheetStateImage,
  after: SheetStateImage,
): boolean {
  if (before[key] === undefined && after[key] === undefined) return false;
  return !sameContent(before[key], after[key]);
}

export function mergeDiff(before: SheetStateImage, after: SheetStateImage) {
  const keys = (merges: sheets_v4.Schema$GridRange[] | undefined) =>
    new Set((merges ?? []).map(gridRangeKey));
  const was = keys(before.merges);
  const is = keys(after.merges);
  return {
    added: (after.merges ?? []).filter((merge) => !was.has(gridRangeKey(merge))),
    removed: (before.merges ?? []).filter((merge) => !is.has(gridRangeKey(merge))),
  };
}

/** Sheet properties undo restores (never the grid's size), by their field mask path. */
export const PROPERTY_FIELDS = [
  'title',
  'index',
  'hidden',
  'tabColorStyle',
  'rightToLeft',
  'gridProperties.frozenRowCount',
  'gridProperties.frozenColumnCount',
  'gridProperties.hideGridlines',
] as const;

export type PropertyField = (typeof PROPERTY_FIELDS)[number];

/** A property's value with Google's default for an absent one. */
export function propertyValue(
  properties: sheets_v4.Schema$SheetProperties | undefined,
  field: PropertyField,
): unknown {
  switch (field) {
    case 'title':
      return properties?.title ?? undefined;
    case 'index':
      return properties?.index ?? 0;
    case 'hidden':
      return properties?.hidden ?? false;
    case 'tabColorStyle':
      return normalized(properties?.tabColorStyle);
    case 'rightToLeft':
      return properties?.rightToLeft ?? false;
    case 'gridProperties.frozenRowCount':
      return properties?.gridProperties?.frozenRowCount ?? 0;
    case 'gridProperties.frozenColumnCount':
      return properties?.gridProperties?.frozenColumnCount ?? 0;
    case 'gridProperties.hideGridlines':
      return properties?.gridProperties?.hideGridlines ?? false;
  }
}

/**
 * A tab's position among the tabs both images hold, so a tab added or removed before it does not
 * read as a move; its plain index when the images do not list their tabs.
 */
export function tabPosition(image: StateImage, sheet: SheetStateImage, common: Set<number> | undefined) {
  if (!image.tabs || !common) return sheet.properties?.index ?? 0;
  return image.tabs
    .filter((tab) => common.has(tab.sheetId))
    .findIndex((tab) => tab.sheetId === sheet.sheetId);
}

export function commonTabs(before: StateImage, after: StateImage): Set<number> | undefined {
  if (!before.tabs || !after.tabs) return undefined;
  const afterIds = new Set(after.tabs.map((tab) => tab.sheetId));
  return new Set(before.tabs.filter((tab) => afterIds.has(tab.sheetId)).map((tab) => tab.sheetId));
}

/** The restorable properties that differ, when both images read the tab's properties. */
export function propertyDiffs(
  before: StateImage,
  after: StateImage,
  sheetBefore: SheetStateImage,
  sheetAfter: SheetStateImage,
): PropertyField[] {
  if (!sheetBefore.properties || !sheetAfter.properties) return [];
  const common = commonTabs(before, after);
  return PROPERTY_FIELDS.filter((field) =>
    field === 'index'
      ? tabPosition(before, sheetBefore, common) !== tabPosition(after, sheetAfter, common)
      : !sameContent(
          propertyValue(sheetBefore.properties, field),
          propertyValue(sheetAfter.properties, field),
        ),
  );
}

export type DimensionSize = DimensionImage['sizes'][number];
export type DimensionField = 'pixelSize' | 'hiddenByUser';

export interface DimensionChange {
  index: number;
  before: DimensionSize | undefined;
  after: DimensionSize | undefined;
  fields: DimensionField[];
}

export interface DimensionDiff {
  sheetId: number;
  dimension: 'ROWS' | 'COLUMNS';
  start: number;
  before: DimensionImage | undefined;
  after: DimensionImage | undefined;
  changes: DimensionChange[];
}

export const dimensionKey = (image: Pick<DimensionImage, 'sheetId' | 'dimension' | 'start'>) =>
  `${image.sheetId}:${image.dimension}:${image.start}`;

export function sizeFields(a: DimensionSize | undefined, b: DimensionSize | undefined): DimensionField[] {
  const fields: DimensionField[] = [];
  if ((a?.pixelSize ?? null) !== (b?.pixelSize ?? null)) fields.push('pixelSize');
  if ((a?.hiddenByUser ?? false) !== (b?.hiddenByUser ?? false)) fields.push('hiddenByUser');
  return fields;
}

/** Rows and columns whose size or visibility differs. */
export function dimensionDiffs(before: StateImage, after: StateImage): DimensionDiff[] {
  const pairs = new Map<string, { before?: DimensionImage; after?: DimensionImage }>();
  for (const image of before.dimensions) pairs.set(dimensionKey(image), { before: image });
  for (const image of after.dimensions)
    pairs.set(dimensionKey(image), { ...pairs.get(dimensionKey(image)), after: image });
  const diffs: DimensionDiff[] = [];
  for (const pair of pairs.values()) {
    const image = (pair.before ?? pair.after) as DimensionImage;
    const length = Math.max(pair.before?.sizes.length ?? 0, pair.after?.sizes.length ?? 0);
    const changes: DimensionChange[] = [];
    for (let offset = 0; offset < length; offset++) {
      const was = pair.before?.sizes[offset];
      const is = pair.after?.sizes[offset];
      // A size only one image read is not known to have changed.
      if (!was || !is) {
        if (!pair.after && was)
          changes.push({ index: image.start + offset, before: was, after: is, fields: sizeFields(was, {}) });
        continue;
      }
      const fields = sizeFields(was, is);
      if (fields.length > 0) changes.push({ index: image.start + offset, before: was, after: is, fields });
    }
    if (changes.length > 0)
      diffs.push({
        sheetId: image.sheetId,
        dimension: image.dimension,
        start: image.start,
        before: pair.before,
        after: pair.after,
        changes,
      });
  }
  return diffs;
}

export interface ObjectDiff {
  key: string;
  before: KeyedObject | undefined;
  after: KeyedObject | undefined;
}

/** Objects added, removed or changed, keyed by kind and id across every tab. */
export function objectDiffs(before: StateImage, after: StateImage): ObjectDiff[] {
  const was = keyedObjects(before);
  const is = keyedObjects(after);
  const diffs: ObjectDiff[] = [];
  for (const key of new Set([...was.keys(), ...is.keys()])) {
    const a = was.get(key);
    const b = is.get(key);
    if (a && b && a.sheetId === b.sheetId && sameContent(a.value, b.value)) continue;
    diffs.push({ key, before: a, after: b });
  }
  return diffs;
}

export interface Tab {
  sheetId: number;
  title: string;
}

/** Tabs one image lists and the other does not (only when both list their tabs). */
export function tabDiff(before: StateImage, after: StateImage): { added: Tab[]; removed: Tab[] } {
  if (!before.tabs || !after.tabs) return { added: [], removed: [] };
  const was = new Set(before.tabs.map((tab) => tab.sheetId));
  const is = new Set(after.tabs.map((tab) => tab.sheetId));
  return {
    added: after.tabs.filter((tab) => !was.has(tab.sheetId)),
    removed: before.tabs.filter((tab) => !is.has(tab.sheetId)),
  };
}
