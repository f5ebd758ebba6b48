import { sameContent } from './state-compare.ts';
import { objectDiffs } from './state-diff.ts';
import type { StateImage } from './state-image.ts';
import { type KeyedObject, objectRange } from './state-objects.ts';
import { a1Range, quoted, type TabTitles } from './state-words.ts';

type Verb = 'added' | 'deleted' | 'changed';

function phrase(verb: Verb, object: KeyedObject, other: KeyedObject | undefined, titles: TabTitles): string {
  const value = object.value;
  const range = objectRange(object);
  const where = range ? a1Range(titles, range) : '';
  const tab = titles(object.sheetId ?? range?.sheetId ?? 0);
  switch (object.kind) {
    case 'charts': {
      const name = value.spec?.title ? `chart ${quoted(value.spec.title)}` : `chart ${object.id}`;
      if (verb === 'changed' && other && sameContent(value.spec, other.value.spec))
        return `moved ${name} on ${tab}`;
      return `${verb} ${name} on ${tab}`;
    }
    case 'filterViews':
      return `${verb} filter view ${quoted(value.title ?? object.id)} on ${tab}`;
    case 'tables':
      if (verb === 'changed' && other && other.value.name !== value.name)
        return `renamed table ${quoted(other.value.name)} to ${quoted(value.name)}`;
      return `${verb} table ${quoted(value.name ?? object.id)} on ${where}`;
    case 'namedRanges':
      return verb === 'deleted'
        ? `deleted named range ${value.name ?? object.id}`
        : `${verb} named range ${value.name ?? object.id} (${where})`;
    case 'protectedRanges':
      return verb === 'added'
        ? `protected ${where}`
        : verb === 'deleted'
          ? `removed the protection of ${where}`
          : `changed the protection of ${where}`;
    case 'bandedRanges':
      return verb === 'added'
        ? `added alternating colours to ${where}`
        : verb === 'deleted'
          ? `removed alternating colours from ${where}`
          : `changed the alternating colours of ${where}`;
  }
}

/** The objects a change added, deleted or changed, except those on tabs it added or deleted whole. */
export function describeObjects(
  before: StateImage,
  after: StateImage,
  titles: TabTitles,
  wholeTabs: Set<number>,
): Array<{ text: string; ranges: string[] }> {
  const phrases: Array<{ text: string; ranges: string[] }> = [];
  for (const diff of objectDiffs(before, after)) {
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
