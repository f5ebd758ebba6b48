import { describeCells } from './describe-cells.ts';
import { describeObjects } from './describe-objects.ts';
import { propertyWords } from './property-words.ts';
import { ruleWords } from './rule-words.ts';
import {
  aspectDiffers,
  type DimensionDiff,
  mergeDiff,
  propertyDiffs,
  type StateDiff,
  sheetPairs,
  stateDiff,
  tabDiff,
} from './state-diff.ts';
import type { SheetStateImage, StateImage } from './state-image.ts';
import { a1Dimension, a1Range, counted, type TabTitles, tabNamed, tabTitles } from './state-words.ts';

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
 * Sheet1!A2:A300", "froze 1 row of the tab "Sheet1""), the ranges, tabs and objects it touched,
 * and the cells and rows it altered. `tool`, the tool that made the change, gives cells it moved or
 * filled their verb ("sorted the rows of …"). Each phrase is one undo-words.ts can take back.
 * `diff` is the images' stateDiff when the caller has it already.
 */
export function describeStateChange(
  before: StateImage,
  after: StateImage,
  tool?: string,
  diff: StateDiff = stateDiff(before, after),
): { summary: string; ranges: string[]; cells: number; rows: number } {
  const titles = tabTitles(after, before);
  const { added, removed } = tabDiff(before, after);
  const whole = new Set([...added, ...removed].map((tab) => tab.sheetId));
  const phrases: Phrase[] = [
    ...added.map((tab) => ({ text: `added ${tabNamed(tab.title)}`, ranges: [tab.title] })),
    ...removed.map((tab) => ({ text: `deleted ${tabNamed(tab.title)}`, ranges: [tab.title] })),
  ];
  const rows = new Set<string>();
  let cells = 0;
  for (const area of diff.cells) {
    cells += area.changes.length;
    for (const change of area.changes) rows.add(`${area.sheetId}:${change.row}`);
    if (whole.has(area.sheetId)) continue;
    const { phrase, range } = describeCells(area, titles, tool);
    phrases.push({ text: phrase, ranges: [range] });
  }
  for (const pair of sheetPairs(before, after)) {
    if (whole.has(pair.sheetId)) continue;
    phrases.push(...describeTab(before, after, pair.before, pair.after, titles));
  }
  for (const span of diff.dimensions) {
    if (span.dimension === 'ROWS')
      for (const change of span.changes) rows.add(`${span.sheetId}:${change.index}`);
    if (!whole.has(span.sheetId)) phrases.push(...describeDimensions(span, titles));
  }
  phrases.push(...describeObjects(diff.objects, titles, whole));
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
    text: propertyWords(field, sheetBefore.properties ?? {}, sheetAfter.properties ?? {}, title).did,
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
    else phrases.push({ text: `${verb} ${counted(merges.length, 'range')} of ${tabNamed(title)}`, ranges });
  }
  if (aspectDiffers('conditionalFormats', sheetBefore, sheetAfter)) {
    const words = ruleWords(
      sheetBefore.conditionalFormats ?? [],
      sheetAfter.conditionalFormats ?? [],
      sheetAfter.sheetId,
      titles,
    );
    phrases.push({ text: words.did, ranges: words.ranges });
  }
  if (aspectDiffers('basicFilter', sheetBefore, sheetAfter)) {
    const filter = sheetAfter.basicFilter ?? sheetBefore.basicFilter;
    const where = filter?.range ? a1Range(titles, filter.range) : tabNamed(title);
    const text = !sheetBefore.basicFilter
      ? `set a filter on ${where}`
      : !sheetAfter.basicFilter
        ? `cleared the filter on ${where}`
        : `changed the filter on ${where}`;
    phrases.push({ text, ranges: [filter?.range ? where : title] });
  }
  return phrases;
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
