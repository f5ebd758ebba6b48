import { sameContent } from './state-compare.ts';
import type { ObjectDiff } from './state-diff.ts';
import { type KeyedObject, objectRange, objectWords, removedNotDeleted } from './state-objects.ts';
import { a1Range, quoted, type TabTitles } from './state-words.ts';

type Verb = 'added' | 'deleted' | 'changed';

function phrase(verb: Verb, object: KeyedObject, other: KeyedObject | undefined, titles: TabTitles): string {
  const words = objectWords(object, titles);
  if (verb === 'deleted') return `${removedNotDeleted(object) ? 'removed' : 'deleted'} ${words}`;
  if (verb === 'added') return `added ${words}`;
  if (object.kind === 'charts' && other && sameContent(object.value.spec, other.value.spec))
    return `moved ${words}`;
  if (object.kind === 'tables' && other && other.value.name !== object.value.name)
    return `renamed the table ${quoted(other.value.name)} to ${quoted(object.value.name)}`;
  return `changed ${words}`;
}

/** The objects a change added, deleted or changed, except those on tabs it added or deleted whole. */
export function describeObjects(
  diffs: readonly ObjectDiff[],
  titles: TabTitles,
  wholeTabs: Set<number>,
): Array<{ text: string; ranges: string[] }> {
  const phrases: Array<{ text: string; ranges: string[] }> = [];
  for (const diff of diffs) {
    const object = (diff.after ?? diff.before) as KeyedObject;
    if (object.sheetId !== undefined && wholeTabs.has(object.sheetId)) continue;
    const verb: Verb = !diff.before ? 'added' : !diff.after ? 'deleted' : 'changed';
    const range = objectRange(object);
    phrases.push({
      text: phrase(verb, object, diff.after ? diff.before : undefined, titles),
      ranges: [range && object.kind !== 'charts' ? a1Range(titles, range) : titles(object.sheetId ?? 0)],
    });
  }
  return phrases;
}
