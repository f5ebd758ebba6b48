import type { sheets_v4 } from 'googleapis';
import { areaKey, dimensionKey, type Tab, tabDiff } from './state-diff.ts';
import type { CellsImage, DimensionImage, SheetStateImage, StateImage } from './state-image.ts';
import { type KeyedObject, keyedObjects } from './state-objects.ts';
import { type TabTitles, tabNamed, tabTitles } from './state-words.ts';

/**
 * When a restore request must run so Google accepts the batch: a removed tab comes back first,
 * merges the change made come apart before cells are written and merged again after, objects the
 * change added go before what is put back (a filter before its table), and a tab the change added
 * is deleted last (then a tab put back under another title while it held the title gets it back).
 */
export const RESTORE_PHASES = [
  'addTabs',
  'unmerge',
  'removeObjects',
  'cells',
  'merge',
  'restoreObjects',
  'deleteTabs',
  'retitleTabs',
] as const;

export type RestorePhase = (typeof RESTORE_PHASES)[number];

/**
 * One part of the spreadsheet undo looks at: its requests, what undo does to it in words (`restored`:
 * "delete the chart …", "put back the formats of …"), and what of it changed since.
 */
export interface RestorePart {
  phase: RestorePhase;
  requests: sheets_v4.Schema$Request[];
  restored: string[];
  changedSince: string[];
}

export const part = (
  phase: RestorePhase,
  requests: sheets_v4.Schema$Request[],
  restored: string[],
  changedSince: string[] = [],
): RestorePart => ({ phase, requests, restored, changedSince });

export interface RestoreContext {
  before: StateImage;
  after: StateImage;
  now: StateImage;
  titles: TabTitles;
  /** Tabs the change added (undo deletes them) and removed (undo adds them back). */
  added: Tab[];
  removed: Tab[];
  /** Whether the tab is there now. */
  existsNow(sheetId: number): boolean;
  /** Whether undo may write on the tab: it is there now (or undo adds it back) and stays. */
  writable(sheetId: number): boolean;
  nowSheet(sheetId: number): SheetStateImage;
  nowArea(area: CellsImage): CellsImage | undefined;
  nowDimension(image: Pick<DimensionImage, 'sheetId' | 'dimension' | 'start'>): DimensionImage | undefined;
  nowObjects: Map<string, KeyedObject>;
  /** Tabs the change left that are gone now, named in changedSince. */
  goneTabs: number[];
  /**
   * The tabs' order as the restore goes (each tab added back or moved is placed in it), from
   * `now.tabs`; undefined when `now` does not list its tabs.
   */
  tabOrder: number[] | undefined;
}

/**
 * Where a tab goes back among those in `order` (which holds the tab itself or not): just after
 * the last tab that came before it in the before-image and is there, first when none is, so that
 * tabs the change added (deleted last) do not shift it. Undefined without the before-image's tabs.
 */
export function tabSlot(context: RestoreContext, sheetId: number): number | undefined {
  const listed = context.before.tabs;
  const order = context.tabOrder?.filter((each) => each !== sheetId);
  const at = listed?.findIndex((tab) => tab.sheetId === sheetId) ?? -1;
  if (!listed || !order || at < 0) return undefined;
  for (let index = at - 1; index >= 0; index--) {
    const found = order.indexOf((listed[index] as { sheetId: number }).sheetId);
    if (found >= 0) return found + 1;
  }
  return 0;
}

/** Records that the tab now stands at `slot` (counted without it). */
export function placeTab(context: RestoreContext, sheetId: number, slot: number): void {
  if (!context.tabOrder) return;
  context.tabOrder = context.tabOrder.filter((each) => each !== sheetId);
  context.tabOrder.splice(slot, 0, sheetId);
}

const sheetIdsWithParts = (image: StateImage) =>
  new Set([
    ...image.sheets.map((sheet) => sheet.sheetId),
    ...image.cells.map((area) => area.sheetId),
    ...image.dimensions.map((image) => image.sheetId),
  ]);

/**
 * What restore needs to know beyond the parts themselves. A tab is there now when `now.tabs`
 * lists it, or (without that list) when `now` holds any part of it: `now` is read with the same
 * footprint, so a tab the after-image holds parts of and `now` holds none of is gone.
 */
export function restoreContext(before: StateImage, after: StateImage, now: StateImage): RestoreContext {
  const titles = tabTitles(now, after, before);
  const { added, removed } = tabDiff(before, after);
  const nowTabs = now.tabs ? new Set(now.tabs.map((tab) => tab.sheetId)) : sheetIdsWithParts(now);
  const existsNow = (sheetId: number) => nowTabs.has(sheetId);
  const addedIds = new Set(added.map((tab) => tab.sheetId));
  const removedIds = new Set(removed.map((tab) => tab.sheetId));
  const leftByChange = new Set([...sheetIdsWithParts(after), ...added.map((tab) => tab.sheetId)]);
  const goneTabs = [...leftByChange].filter((sheetId) => !removedIds.has(sheetId) && !existsNow(sheetId));
  const gone = new Set(goneTabs);
  const nowAreas = new Map(now.cells.map((area) => [areaKey(area), area]));
  const nowDimensions = new Map(now.dimensions.map((image) => [dimensionKey(image), image]));
  return {
    before,
    after,
    now,
    titles,
    added,
    removed,
    existsNow,
    writable: (sheetId) => !addedIds.has(sheetId) && !gone.has(sheetId),
    nowSheet: (sheetId) => now.sheets.find((sheet) => sheet.sheetId === sheetId) ?? { sheetId },
    nowArea: (area) => nowAreas.get(areaKey(area)),
    nowDimension: (image) => nowDimensions.get(dimensionKey(image)),
    nowObjects: keyedObjects(now),
    goneTabs,
    tabOrder: now.tabs?.map((tab) => tab.sheetId),
  };
}

export const goneTabWords = (context: RestoreContext) =>
  context.goneTabs.map((sheetId) => `${tabNamed(context.titles(sheetId))} (deleted since)`);
