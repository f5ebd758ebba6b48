import type { sheets_v4 } from 'googleapis';
import { propertyNoun, propertyWords } from './property-words.ts';
import { part, placeTab, type RestoreContext, type RestorePart, tabSlot } from './restore-context.ts';
import { ruleWords } from './rule-words.ts';
import { gridRangeKey, rangesOverlap, sameContent } from './state-compare.ts';
import {
  aspectDiffers,
  mergeDiff,
  type PropertyField,
  propertyDiffs,
  propertyValue,
  sheetPairs,
} from './state-diff.ts';
import type { SheetStateImage } from './state-image.ts';
import { a1Range, tabNamed } from './state-words.ts';

/** Merges, conditional formats, the basic filter and the properties of each tab the change altered. */
export function restoreTabAspects(context: RestoreContext): RestorePart[] {
  const parts: RestorePart[] = [];
  const undoAdds = new Set(context.removed.map((tab) => tab.sheetId));
  for (const { sheetId, before, after } of sheetPairs(context.before, context.after)) {
    if (!context.writable(sheetId)) continue;
    const now = context.nowSheet(sheetId);
    parts.push(...restoreMerges(context, before, after, now));
    if (aspectDiffers('conditionalFormats', before, after))
      parts.push(restoreRules(context, before, after, now));
    if (aspectDiffers('basicFilter', before, after)) parts.push(restoreFilter(context, before, after, now));
    if (!undoAdds.has(sheetId)) {
      const fields = propertyDiffs(context.before, context.after, before, after);
      if (fields.length > 0) parts.push(restoreProperties(context, fields, before, after, now));
    }
  }
  return parts;
}

function restoreMerges(
  context: RestoreContext,
  before: SheetStateImage,
  after: SheetStateImage,
  now: SheetStateImage,
): RestorePart[] {
  const { added, removed } = mergeDiff(before, after);
  const nowMerges = now.merges ?? [];
  const nowKeys = new Set(nowMerges.map(gridRangeKey));
  const addedKeys = new Set(added.map(gridRangeKey));
  const parts: RestorePart[] = [];
  for (const merge of added) {
    const where = a1Range(context.titles, merge);
    if (!nowKeys.has(gridRangeKey(merge))) {
      parts.push(part('unmerge', [], [], [`the merge ${where} (unmerged since)`]));
      continue;
    }
    parts.push(part('unmerge', [{ unmergeCells: { range: merge } }], [`unmerge ${where}`]));
  }
  for (const merge of removed) {
    const where = a1Range(context.titles, merge);
    if (nowKeys.has(gridRangeKey(merge))) {
      parts.push(part('merge', [], [], [`the merge ${where} (merged since)`]));
      continue;
    }
    const blocking = nowMerges.some(
      (other) => rangesOverlap(other, merge) && !addedKeys.has(gridRangeKey(other)),
    );
    parts.push(
      part(
        'unmerge',
        blocking ? [{ unmergeCells: { range: merge } }] : [],
        [],
        blocking ? [`the merges of ${where}`] : [],
      ),
      part('merge', [{ mergeCells: { range: merge, mergeType: 'MERGE_ALL' } }], [`merge ${where} again`]),
    );
  }
  return parts;
}

/** The rule list comes back whole and in order: the current rules go, the earlier ones return. */
function restoreRules(
  context: RestoreContext,
  before: SheetStateImage,
  after: SheetStateImage,
  now: SheetStateImage,
): RestorePart {
  const sheetId = before.sheetId;
  const name = `the conditional format rules of ${tabNamed(context.titles(sheetId))}`;
  const current = now.conditionalFormats ?? [];
  const requests: sheets_v4.Schema$Request[] = [];
  for (let index = current.length - 1; index >= 0; index--)
    requests.push({ deleteConditionalFormatRule: { sheetId, index } });
  for (const [index, rule] of (before.conditionalFormats ?? []).entries())
    requests.push({ addConditionalFormatRule: { rule, index } });
  const words = ruleWords(
    before.conditionalFormats ?? [],
    after.conditionalFormats ?? [],
    sheetId,
    context.titles,
  );
  return part(
    'restoreObjects',
    requests,
    [words.undo],
    sameContent(current, after.conditionalFormats) ? [] : [name],
  );
}

/** A filter as Google takes it back: one source of cells, its conditions once. */
export function writableFilter<F extends sheets_v4.Schema$BasicFilter | sheets_v4.Schema$FilterView>(
  filter: F,
): F {
  const copy = structuredClone(filter) as F & { namedRangeId?: string | null };
  if (copy.filterSpecs?.length) delete copy.criteria;
  if (copy.namedRangeId != null || copy.tableId != null) delete copy.range;
  return copy;
}

function restoreFilter(
  context: RestoreContext,
  before: SheetStateImage,
  after: SheetStateImage,
  now: SheetStateImage,
): RestorePart {
  const sheetId = before.sheetId;
  const tab = tabNamed(context.titles(sheetId));
  const on = (filter: sheets_v4.Schema$BasicFilter | null | undefined) =>
    `on ${filter?.range ? a1Range(context.titles, filter.range) : tab}`;
  const changedSince = sameContent(now.basicFilter, after.basicFilter) ? [] : [`the filter of ${tab}`];
  if (before.basicFilter)
    return part(
      'restoreObjects',
      [{ setBasicFilter: { filter: writableFilter(before.basicFilter) } }],
      [
        after.basicFilter
          ? `put back the filter ${on(after.basicFilter)} as it was`
          : `put back the filter ${on(before.basicFilter)}`,
      ],
      changedSince,
    );
  const requests = now.basicFilter ? [{ clearBasicFilter: { sheetId } }] : [];
  return part('removeObjects', requests, [`clear the filter ${on(after.basicFilter)}`], changedSince);
}

/**
 * One updateSheetProperties with a mask of the fields the change altered. A tab moved later in
 * the list is asked for one place further, as Google counts positions before the move.
 */
function restoreProperties(
  context: RestoreContext,
  fields: PropertyField[],
  before: SheetStateImage,
  after: SheetStateImage,
  now: SheetStateImage,
): RestorePart {
  const sheetId = before.sheetId;
  const title = context.titles(sheetId);
  const was = before.properties as sheets_v4.Schema$SheetProperties;
  const properties: sheets_v4.Schema$SheetProperties = { sheetId };
  const grid: sheets_v4.Schema$GridProperties = {};
  let position: number | undefined;
  for (const field of fields) {
    switch (field) {
      case 'title':
        properties.title = was.title ?? null;
        break;
      case 'index': {
        const current =
          context.tabOrder?.indexOf(sheetId) ?? now.properties?.index ?? after.properties?.index ?? 0;
        const slot = tabSlot(context, sheetId) ?? was.index ?? 0;
        properties.index = slot <= current ? slot : slot + 1;
        position = slot + 1;
        placeTab(context, sheetId, slot);
        break;
      }
      case 'hidden':
        properties.hidden = was.hidden ?? false;
        break;
      case 'tabColorStyle':
        if (was.tabColorStyle) properties.tabColorStyle = was.tabColorStyle;
        break;
      case 'rightToLeft':
        properties.rightToLeft = was.rightToLeft ?? false;
        break;
      case 'gridProperties.frozenRowCount':
        grid.frozenRowCount = was.gridProperties?.frozenRowCount ?? 0;
        break;
      case 'gridProperties.frozenColumnCount':
        grid.frozenColumnCount = was.gridProperties?.frozenColumnCount ?? 0;
        break;
      case 'gridProperties.hideGridlines':
        grid.hideGridlines = was.gridProperties?.hideGridlines ?? false;
        break;
    }
  }
  if (Object.keys(grid).length > 0) properties.gridProperties = grid;
  const changedSince = now.properties
    ? fields.filter(
        (field) => !sameContent(propertyValue(now.properties, field), propertyValue(after.properties, field)),
      )
    : [];
  return part(
    'restoreObjects',
    [{ updateSheetProperties: { properties, fields: fields.join(',') } }],
    fields.map((field) => propertyWords(field, was, after.properties ?? {}, title, position).undo),
    changedSince.map((field) => propertyNoun(field, title)),
  );
}
