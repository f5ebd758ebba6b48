import { tabOf } from './tab-ref.ts';

/**
 * Refuses, in tabOf's words, a batchUpdate request naming a sheetId of no tab: every `sheetId` and
 * `sourceSheetId` in the requests, but for the ids a tab gets in the batch itself (addSheet's
 * properties.sheetId, duplicateSheet's newSheetId), which later requests may name. So a dry run
 * says what the real call's Google refuses ("No grid with id", said the same by range-refusals.ts).
 */
export function checkBatchSheetIds(
  requests: readonly Record<string, unknown>[],
  tabs: readonly { sheetId: number; title: string }[],
): void {
  const added = new Set<number>();
  for (const request of requests) {
    const newId = (request.addSheet as { properties?: { sheetId?: unknown } } | undefined)?.properties
      ?.sheetId;
    const copyId = (request.duplicateSheet as { newSheetId?: unknown } | undefined)?.newSheetId;
    for (const id of namedSheetIds(request, new Set([newId, copyId])))
      if (!added.has(id) && !tabs.some((tab) => tab.sheetId === id)) tabOf(tabs, id);
    for (const id of [newId, copyId]) if (typeof id === 'number') added.add(id);
  }
}

/** The sheet ids a request names, anywhere in it, leaving out the ids it gives a new tab. */
function namedSheetIds(value: unknown, given: Set<unknown>, found: number[] = []): number[] {
  if (Array.isArray(value)) for (const each of value) namedSheetIds(each, given, found);
  else if (value && typeof value === 'object')
    for (const [key, each] of Object.entries(value)) {
      if ((key === 'sheetId' || key === 'sourceSheetId') && typeof each === 'number') {
        if (!given.has(each)) found.push(each);
      } else namedSheetIds(each, given, found);
    }
  return found;
}
