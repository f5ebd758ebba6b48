import type { sheets_v4 } from 'googleapis';
import { describeCells } from './describe-cells.ts';
import { describeObjects } from './describe-objects.ts';
import { normalized, sameContent } from './state-compare.ts';
import {
  aspectDiffers,
  cellAreaDiffs,
  type DimensionDiff,
  dimensionDiffs,
  mergeDiff,
  type PropertyField,
  propertyDiffs,
  sheetPairs,
  tabDiff,
} from './state-diff.ts';
import type { SheetStateImage, StateImage } from './state-image.ts';
import { a1Dimension, a1Range, counted, quoted, type TabTitles, tabTitles } from './state-words.ts';

export { changedParts } from './state-changed-parts.ts';

const MAX_SUMMARY = 300;
const MAX_RANGES = 100;
/** Merges listed one by one on a tab before they are counted instead. */
const MERGES_NAMED = 3;

interface Phrase {
  text: string;
  ranges: string[];
}

/**
 * What a structure change did, in words for the activity log: counts that mean something ("bold,
 * background colour on 12 cells of Sheet1!A1:C4", "added conditional format rule 2 of 3 on
 * Sheet1!A2:A300", "froze 1 row of Sheet1"), the ranges, tabs and objects it touched, and the
 * cells and rows it altered.
 */
export function describeStateChange(
  before: StateImage,
  after: StateImage,
): { summary: string; ranges: string[]; cells: number; rows: number } {
  const titles = tabTitles(after, before);
  const { added, removed } = tabDiff(before, after);
  const whole = new Set([...added, ...removed].map((tab) => tab.sheetId));
  const phrases: Phrase[] = [
    ...added.map((tab) => ({ text: `added tab ${quoted(tab.title)}`, ranges: [tab.title] })),
    ...removed.map((tab) => ({ text: `deleted tab ${quoted(tab.title)}`, ranges: [tab.title] })),
  ];
  const rows = new Set<string>();
  let cells = 0;
  for (const diff of cellAreaDiffs(before, after)) {
    cells += diff.changes.length;
    for (const change of diff.changes) rows.add(`${diff.sheetId}:${change.row}`);
    if (whole.has(diff.sheetId)) continue;
    const { phrase, range } = describeCells(diff, titles);
    phrases.push({ text: phrase, ranges: [range] });
  }
  for (const pair of sheetPairs(before, after)) {
    if (whole.has(pair.sheetId)) continue;
    phrases.push(...describeTab(before, after, pair.before, pair.after, titles));
  }
  for (const diff of dimensionDiffs(before, after)) {
    if (diff.dimension === 'ROWS')
      for (const change of diff.changes) rows.add(`${diff.sheetId}:${change.index}`);
    if (!whole.has(diff.sheetId)) phrases.push(...describeDimensions(diff, titles));
  }
  phrases.push(...describeObjects(before, after, titles, whole));
  return {
    summary: summaryOf(phrases.map((phrase) => phrase.text)),
    ranges: [...new Set(phrases.flatMap((phrase) => phrase.ranges))].slice(0, MAX_RANGES),
    cells,
    rows: rows.size,
  };
}

function summaryOf(phrases: string[]): string {
  if (phrases.length === 0) return 'no change';
  let text = '';
  for (const [index, phrase] of phrases.entries()) {
    const candidate = text ? `${text}; ${phrase}` : phrase;
    const reserve = index < phrases.length - 1 ? `; and ${phrases.length} more`.length : 0;
    if (candidate.length + reserve <= MAX_SUMMARY) {
      text = candidate;
      continue;
    }
    if (!text) return `${phrase.slice(0, MAX_SUMMARY - 1)}…`;
    return `${text}; and ${phrases.length - index} more`;
  }
  return text;
}

function describeTab(
  before: StateImage,
  after: StateImage,
  sheetBefore: SheetStateImage,
  sheetAfter: SheetStateImage,
  titles: TabTitles,
): Phrase[] {
  const title = titles(sheetAfter.sheetId);
  const phrases: Phrase[] = propertyDiffs(before, after, sheetBefore, sheetAfter).map((field) => ({
    text: propertyPhrase(field, sheetBefore.properties ?? {}, sheetAfter.properties ?? {}, title),
    ranges: [title],
  }));
  const { added, removed } = mergeDiff(sheetBefore, sheetAfter);
  for (const [verb, merges] of [
    ['merged', added],
    ['unmerged', removed],
  ] as const) {
    if (merges.length === 0) continue;
    const ranges = merges.map((merge) => a1Range(titles, merge));
    if (merges.length <= MERGES_NAMED)
      for (const range of ranges) phrases.push({ text: `${verb} ${range}`, ranges: [range] });
    else phrases.push({ text: `${verb} ${counted(merges.length, 'range')} of ${title}`, ranges });
  }
  if (aspectDiffers('conditionalFormats', sheetBefore, sheetAfter))
    phrases.push(
      describeRules(sheetBefore.conditionalFormats ?? [], sheetAfter.conditionalFormats ?? [], title, titles),
    );
  if (aspectDiffers('basicFilter', sheetBefore, sheetAfter)) {
    const filter = sheetAfter.basicFilter ?? sheetBefore.basicFilter;
    const where = filter?.range ? a1Range(titles, filter.range) : title;
    const text = !sheetBefore.basicFilter
      ? `set a filter on ${where}`
      : !sheetAfter.basicFilter
        ? `cleared the filter of ${title}`
        : `changed the filter on ${where}`;
    phrases.push({ text, ranges: [where] });
  }
  return phrases;
}

function propertyPhrase(
  field: PropertyField,
  was: sheets_v4.Schema$SheetProperties,
  is: sheets_v4.Schema$SheetProperties,
  title: string,
): string {
  const tab = `tab ${quoted(title)}`;
  switch (field) {
    case 'title':
      return `renamed tab ${quoted(was.title)} to ${quoted(is.title)}`;
    case 'index':
      return `moved ${tab} to position ${(is.index ?? 0) + 1}`;
    case 'hidden':
      return is.hidden ? `hid ${tab}` : `showed ${tab}`;
    case 'tabColorStyle':
      return is.tabColorStyle ? `coloured ${tab}` : `removed the colour of ${tab}`;
    case 'rightToLeft':
      return `set ${tab} ${is.rightToLeft ? 'right to left' : 'left to right'}`;
    case 'gridProperties.frozenRowCount': {
      const count = is.gridProperties?.frozenRowCount ?? 0;
      return count > 0 ? `froze ${counted(count, 'row')} of ${title}` : `unfroze the rows of ${title}`;
    }
    case 'gridProperties.frozenColumnCount': {
      const count = is.gridProperties?.frozenColumnCount ?? 0;
      return count > 0 ? `froze ${counted(count, 'column')} of ${title}` : `unfroze the columns of ${title}`;
    }
    case 'gridProperties.hideGridlines':
      return `${is.gridProperties?.hideGridlines ? 'hid' : 'showed'} the gridlines of ${title}`;
  }
}

/** Which rule of how many was added, deleted or changed, else what happened to the list. */
function describeRules(
  before: sheets_v4.Schema$ConditionalFormatRule[],
  after: sheets_v4.Schema$ConditionalFormatRule[],
  title: string,
  titles: TabTitles,
): Phrase {
  const where = (rule: sheets_v4.Schema$ConditionalFormatRule) =>
    (rule.ranges ?? []).map((range) => a1Range(titles, range));
  const without = (list: typeof before, index: number) => list.filter((_, at) => at !== index);
  const one = (verb: string, list: typeof before, index: number): Phrase => {
    const ranges = where(list[index] as sheets_v4.Schema$ConditionalFormatRule);
    const on = ranges.length > 0 ? ` on ${ranges.join(', ')}` : ` of ${title}`;
    return { text: `${verb} conditional format rule ${index + 1} of ${list.length}${on}`, ranges };
  };
  if (after.length === before.length + 1) {
    const index = after.findIndex((_, at) => sameContent(without(after, at), before));
    if (index >= 0) return one('added', after, index);
  }
  if (before.length === after.length + 1) {
    const index = before.findIndex((_, at) => sameContent(without(before, at), after));
    if (index >= 0) return one('deleted', before, index);
  }
  if (before.length === after.length) {
    const differing = after
      .map((_rule, index) => index)
      .filter((index) => !sameContent(before[index], after[index]));
    const sorted = (list: typeof before) => list.map((rule) => JSON.stringify(normalized(rule))).sort();
    if (sameContent(sorted(before), sorted(after)))
      return { text: `reordered the conditional format rules of ${title}`, ranges: [title] };
    if (differing.length === 1) return one('changed', after, differing[0] as number);
  }
  return {
    text: `changed the conditional format rules of ${title} (${before.length} → ${after.length} rules)`,
    ranges: [title],
  };
}

function describeDimensions(diff: DimensionDiff, titles: TabTitles): Phrase[] {
  const noun = diff.dimension === 'ROWS' ? 'row' : 'column';
  const title = titles(diff.sheetId);
  const groups: Array<[verb: string, indexes: number[]]> = [
    [
      'hid',
      diff.changes
        .filter((change) => change.after?.hiddenByUser && !change.before?.hiddenByUser)
        .map((change) => change.index),
    ],
    [
      'showed',
      diff.changes
        .filter((change) => !change.after?.hiddenByUser && change.before?.hiddenByUser)
        .map((change) => change.index),
    ],
    [
      'resized',
      diff.changes.filter((change) => change.fields.includes('pixelSize')).map((change) => change.index),
    ],
  ];
  return groups
    .filter(([, indexes]) => indexes.length > 0)
    .map(([verb, indexes]) => {
      const range = a1Dimension(title, diff.dimension, Math.min(...indexes), Math.max(...indexes) + 1);
      return { text: `${verb} ${counted(indexes.length, noun)} of ${range}`, ranges: [range] };
    });
}
