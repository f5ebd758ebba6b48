import type { sheets_v4 } from 'googleapis';
import { part, type RestoreContext, type RestorePart } from './restore-context.ts';
import { writableFilter } from './restore-tab-aspects.ts';
import { sameContent } from './state-compare.ts';
import type { ObjectDiff } from './state-diff.ts';
import {
  type KeyedObject,
  OBJECT_KINDS,
  type ObjectKind,
  objectNoun,
  objectWords,
  removedNotDeleted,
} from './state-objects.ts';
import { quoted } from './state-words.ts';

type Request = sheets_v4.Schema$Request;

/** The fields of the two that differ, out of those the kind's update takes. */
function differing(before: KeyedObject['value'], current: KeyedObject['value'], fields: string[]): string[] {
  return fields.filter((field) => !sameContent(before[field], current[field]));
}

function writableProtection(range: sheets_v4.Schema$ProtectedRange): sheets_v4.Schema$ProtectedRange {
  const { requestingUserCanEdit: _readOnly, ...rest } = structuredClone(range);
  if (rest.namedRangeId != null) delete rest.range;
  return rest;
}

/**
 * A chart's position as Google takes it back; one on a tab of its own that is gone now comes back
 * on a new tab of its own.
 */
function writablePosition(
  context: RestoreContext,
  position: sheets_v4.Schema$EmbeddedObjectPosition,
): sheets_v4.Schema$EmbeddedObjectPosition {
  if (position.overlayPosition) return { overlayPosition: position.overlayPosition };
  if (position.sheetId != null && context.existsNow(position.sheetId)) return { sheetId: position.sheetId };
  return { newSheet: true };
}

function addRequest(context: RestoreContext, object: KeyedObject): Request {
  const value = object.value;
  switch (object.kind) {
    case 'namedRanges':
      return { addNamedRange: { namedRange: value } };
    case 'tables':
      return { addTable: { table: value } };
    case 'bandedRanges':
      return { addBanding: { bandedRange: value } };
    case 'protectedRanges':
      return { addProtectedRange: { protectedRange: writableProtection(value) } };
    case 'filterViews':
      return { addFilterView: { filter: writableFilter(value) } };
    case 'charts':
      return {
        addChart: {
          chart: {
            chartId: value.chartId,
            spec: value.spec,
            position: writablePosition(context, value.position ?? {}),
            ...(value.border ? { border: value.border } : {}),
          },
        },
      };
  }
}

function updateRequests(context: RestoreContext, before: KeyedObject, current: KeyedObject): Request[] {
  const value = before.value;
  const masked = (fields: string[], request: (mask: string) => Request) =>
    fields.length > 0 ? [request(fields.join(','))] : [];
  switch (before.kind) {
    case 'namedRanges':
      return masked(differing(value, current.value, ['name', 'range']), (fields) => ({
        updateNamedRange: { namedRange: value, fields },
      }));
    case 'tables':
      return masked(
        differing(value, current.value, ['name', 'range', 'columnProperties', 'rowsProperties']),
        (fields) => ({ updateTable: { table: value, fields } }),
      );
    case 'bandedRanges':
      return masked(
        differing(value, current.value, ['range', 'rowProperties', 'columnProperties']),
        (fields) => ({
          updateBanding: { bandedRange: value, fields },
        }),
      );
    case 'protectedRanges': {
      const writable = writableProtection(value);
      const candidates = ['namedRangeId', 'description', 'warningOnly', 'unprotectedRanges', 'editors'];
      // A range that follows a named range is the named range's: only its own range is written.
      if (value.namedRangeId == null) candidates.unshift('range');
      return masked(differing(value, current.value, candidates), (fields) => ({
        updateProtectedRange: { protectedRange: writable, fields },
      }));
    }
    case 'filterViews':
      return sameContent(writableFilter(value), writableFilter(current.value))
        ? []
        : [{ updateFilterView: { filter: writableFilter(value), fields: '*' } }];
    case 'charts': {
      const requests: Request[] = [];
      if (!sameContent(value.spec, current.value.spec))
        requests.push({ updateChartSpec: { chartId: value.chartId, spec: value.spec } });
      if (!sameContent(value.position, current.value.position))
        requests.push({
          updateEmbeddedObjectPosition: {
            objectId: value.chartId,
            newPosition: writablePosition(context, value.position ?? {}),
            fields: '*',
          },
        });
      return requests;
    }
  }
}

function removeRequest(object: KeyedObject): Request {
  const value = object.value;
  switch (object.kind) {
    case 'namedRanges':
      return { deleteNamedRange: { namedRangeId: value.namedRangeId } };
    case 'tables':
      return { deleteTable: { tableId: value.tableId } };
    case 'bandedRanges':
      return { deleteBanding: { bandedRangeId: value.bandedRangeId } };
    case 'protectedRanges':
      return { deleteProtectedRange: { protectedRangeId: value.protectedRangeId } };
    case 'filterViews':
      return { deleteFilterView: { filterId: value.filterViewId } };
    case 'charts':
      return { deleteEmbeddedObject: { objectId: value.chartId } };
  }
}

/**
 * What undo does to an object it sets back, named as it is now: a chart only moved is moved back,
 * a renamed table renamed back, anything else put back as it was.
 */
function setBackWords(before: KeyedObject, now: KeyedObject, context: RestoreContext): string {
  const words = objectWords(now, context.titles);
  if (before.kind === 'charts' && sameContent(before.value.spec, now.value.spec)) return `move ${words} back`;
  if (before.kind === 'tables' && before.value.name !== now.value.name)
    return `rename the table ${quoted(now.value.name)} back to ${quoted(before.value.name)}`;
  return `put back ${words} as it was`;
}

/**
 * Objects the change added are deleted, those it removed come back with their ids, those it
 * altered are set back. One the change added on a tab undo deletes goes with the tab; one on a
 * tab gone since is left (the tab is named).
 */
export function restoreObjects(diffs: ObjectDiff[], context: RestoreContext): RestorePart[] {
  const removals: Array<{ kind: ObjectKind; part: RestorePart }> = [];
  const restores: Array<{ kind: ObjectKind; part: RestorePart }> = [];
  for (const { key, before, after } of diffs) {
    const now = context.nowObjects.get(key);
    const object = (now ?? after ?? before) as KeyedObject;
    // Named as it is now in what changed since and what undo does to it; as it was when added back.
    const noun = objectNoun(object, context.titles);
    const words = objectWords(object, context.titles);
    if (!before) {
      const added = after as KeyedObject;
      if (added.sheetId !== undefined && !context.writable(added.sheetId)) continue;
      const removal = now
        ? part(
            'removeObjects',
            [removeRequest(now)],
            [`${removedNotDeleted(now) ? 'remove' : 'delete'} ${words}`],
            sameContent(now.value, added.value) ? [] : [noun],
          )
        : part('removeObjects', [], [], [`${noun} (deleted since)`]);
      removals.push({ kind: object.kind, part: removal });
      continue;
    }
    if (before.sheetId !== undefined && !context.writable(before.sheetId)) continue;
    if (!now) {
      const changedSince = after ? [`${noun} (deleted since)`] : [];
      restores.push({
        kind: object.kind,
        part: part(
          'restoreObjects',
          [addRequest(context, before)],
          [`add back ${objectWords(before, context.titles)}`],
          changedSince,
        ),
      });
      continue;
    }
    const changedSince =
      !after || now.sheetId !== after.sheetId || !sameContent(now.value, after.value) ? [noun] : [];
    restores.push({
      kind: object.kind,
      part: part(
        'restoreObjects',
        updateRequests(context, before, now),
        [setBackWords(before, now, context)],
        changedSince,
      ),
    });
  }
  const rank = (kind: ObjectKind) => OBJECT_KINDS.indexOf(kind);
  return [
    ...removals.sort((a, b) => rank(b.kind) - rank(a.kind)).map((each) => each.part),
    ...restores.sort((a, b) => rank(a.kind) - rank(b.kind)).map((each) => each.part),
  ];
}
