import type { sheets_v4 } from 'googleapis';
import { canonicalOf } from './state-compare.ts';
import { a1Range, type TabTitles, tabNamed } from './state-words.ts';

type Rule = sheets_v4.Schema$ConditionalFormatRule;

/**
 * What a change did to a tab's conditional format rules, and what undo does to take it back, in
 * one place so the activity log and undo_change say the same: one rule added, deleted or changed
 * (which of how many, and where it applies), the rules reordered, or the list replaced.
 */
export function ruleWords(
  before: readonly Rule[],
  after: readonly Rule[],
  sheetId: number,
  titles: TabTitles,
): { did: string; undo: string; ranges: string[] } {
  const tab = tabNamed(titles(sheetId));
  const was = before.map(canonicalOf);
  const is = after.map(canonicalOf);
  // Whether `longer` is `shorter` with its item at `index` left out.
  const withoutOne = (longer: readonly string[], shorter: readonly string[], index: number) =>
    shorter.every((key, at) => key === longer[at < index ? at : at + 1]);
  const one = (verb: string, undo: string, list: readonly Rule[], index: number, again = '') => {
    const ranges = ((list[index] as Rule).ranges ?? []).map((range) => a1Range(titles, range));
    const where = ranges.length > 0 ? `on ${ranges.join(', ')}` : `of ${tab}`;
    return {
      did: `${verb} conditional format rule ${index + 1} of ${list.length} ${where}`,
      undo: `${undo} conditional format rule ${index + 1} ${where}${again}`,
      ranges,
    };
  };
  if (after.length === before.length + 1) {
    const index = is.findIndex((_, at) => withoutOne(is, was, at));
    if (index >= 0) return one('added', 'remove', after, index);
  }
  if (before.length === after.length + 1) {
    const index = was.findIndex((_, at) => withoutOne(was, is, at));
    if (index >= 0) return one('deleted', 'add back', before, index);
  }
  if (before.length === after.length) {
    const differing = is.map((_, index) => index).filter((index) => was[index] !== is[index]);
    if (differing.length > 1 && [...was].sort().join('\n') === [...is].sort().join('\n'))
      return {
        did: `reordered the conditional format rules of ${tab}`,
        undo: `put back the order of the conditional format rules of ${tab}`,
        ranges: [titles(sheetId)],
      };
    if (differing.length === 1)
      return one('changed', 'put back', after, differing[0] as number, ' as it was');
  }
  return {
    did: `changed the conditional format rules of ${tab} (${before.length} → ${after.length} rules)`,
    undo: `put back the conditional format rules of ${tab} (${before.length} ${before.length === 1 ? 'rule' : 'rules'})`,
    ranges: [titles(sheetId)],
  };
}
