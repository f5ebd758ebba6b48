import type { sheets_v4 } from 'googleapis';
import { listed } from '../../tools/guards/loss-phrases.ts';
import { sameContent } from './state-compare.ts';
import { type CellAreaDiff, type CellChange, changesSpan } from './state-diff.ts';
import { a1Range, counted, type TabTitles } from './state-words.ts';

/** Words for the parts of a cell format, in the order they are listed. */
const FORMAT_WORDS: Array<[path: string, word: string]> = [
  ['textFormat.bold', 'bold'],
  ['textFormat.italic', 'italic'],
  ['textFormat.underline', 'underline'],
  ['textFormat.strikethrough', 'strikethrough'],
  ['textFormat.fontFamily', 'font'],
  ['textFormat.fontSize', 'font size'],
  ['textFormat.foregroundColor', 'text colour'],
  ['textFormat.foregroundColorStyle', 'text colour'],
  ['textFormat.link', 'links'],
  ['backgroundColor', 'background colour'],
  ['backgroundColorStyle', 'background colour'],
  ['numberFormat', 'number format'],
  ['borders', 'borders'],
  ['horizontalAlignment', 'alignment'],
  ['verticalAlignment', 'alignment'],
  ['wrapStrategy', 'wrapping'],
  ['textRotation', 'text rotation'],
  ['textDirection', 'text direction'],
  ['padding', 'padding'],
  ['hyperlinkDisplayType', 'links'],
];

const at = (value: unknown, path: string): unknown =>
  path.split('.').reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key], value);

/** What about the format changed: `bold`, `background colour`…; `format` for anything unnamed. */
function formatWords(
  before: sheets_v4.Schema$CellFormat | undefined,
  after: sheets_v4.Schema$CellFormat | undefined,
) {
  const words = new Set<string>();
  for (const [path, word] of FORMAT_WORDS)
    if (!sameContent(at(before, path), at(after, path))) words.add(word);
  const named = (key: string) => FORMAT_WORDS.some(([path]) => path === key || path.startsWith(`${key}.`));
  const keys = new Set([...Object.keys(before ?? {}), ...Object.keys(after ?? {})]);
  for (const key of keys) {
    if (key === 'textFormat') {
      const inner = new Set([
        ...Object.keys(before?.textFormat ?? {}),
        ...Object.keys(after?.textFormat ?? {}),
      ]);
      for (const part of inner)
        if (
          !named(`textFormat.${part}`) &&
          !sameContent(at(before, `textFormat.${part}`), at(after, `textFormat.${part}`))
        )
          words.add('format');
    } else if (!named(key) && !sameContent(at(before, key), at(after, key))) words.add('format');
  }
  return words;
}

const ORDER = [
  'values',
  ...new Set(FORMAT_WORDS.map(([, word]) => word)),
  'format',
  'rich text',
  'notes',
  'data validation',
  'pivot table',
];

/** The words for what changed in each cell, worked out once per pair of cells alike. */
const wordsOfDiff = new WeakMap<CellAreaDiff, Set<string>>();

function diffWords(diff: CellAreaDiff): Set<string> {
  const found = wordsOfDiff.get(diff);
  if (found) return found;
  const byPair = new Map<string, Map<string, Set<string>>>();
  const words = new Set<string>();
  for (const change of diff.changes) {
    let afters = byPair.get(change.beforeKey);
    if (!afters) {
      afters = new Map();
      byPair.set(change.beforeKey, afters);
    }
    if (afters.has(change.afterKey)) continue;
    const said = changeWords(change);
    afters.set(change.afterKey, said);
    for (const word of said) words.add(word);
  }
  wordsOfDiff.set(diff, words);
  return words;
}

function changeWords(change: CellChange): Set<string> {
  const words = new Set<string>();
  const differs = (field: keyof sheets_v4.Schema$CellData) =>
    !sameContent(change.before[field], change.after[field]);
  if (differs('userEnteredValue')) words.add('values');
  if (differs('userEnteredFormat'))
    for (const word of formatWords(change.before.userEnteredFormat, change.after.userEnteredFormat))
      words.add(word);
  if (differs('textFormatRuns')) words.add('rich text');
  if (differs('note')) words.add('notes');
  if (differs('dataValidation')) words.add('data validation');
  if (differs('pivotTable')) words.add('pivot table');
  return words;
}

/** What undo puts back of a cell, by the words for what changed: each format word is `formats`. */
const CATEGORY_OF: Readonly<Record<string, string>> = {
  values: 'values',
  notes: 'notes',
  'data validation': 'data validation',
  'pivot table': 'pivot table',
};
const CATEGORIES = ['values', 'formats', 'notes', 'data validation', 'pivot table'];

/**
 * `values and formats`: what of the cells undo puts back, for the words of what changed (`bold`,
 * `values`…); undefined when a word is not one describeCells uses.
 */
export function categoriesOf(words: Iterable<string>): string | undefined {
  const found = new Set<string>();
  for (const word of words) {
    if (!ORDER.includes(word)) return undefined;
    found.add(CATEGORY_OF[word] ?? 'formats');
  }
  return listed(CATEGORIES.filter((category) => found.has(category)));
}

/** `put back the values and formats of Sheet1!A1:C4`: undo's words for an area of cells. */
export function cellsUndoWords(diff: CellAreaDiff, titles: TabTitles): string {
  const words = diffWords(diff);
  const pivot = pivotVerb(diff, words);
  if (pivot)
    return `${PIVOT_UNDO[pivot]} the pivot table at ${a1Range(titles, changesSpan(diff))}${pivot === 'changed' ? ' as it was' : ''}`;
  return `put back the ${categoriesOf(words) || 'cells'} of ${a1Range(titles, changesSpan(diff))}`;
}

/**
 * `bold, background colour on 12 cells of Sheet1!A1:C4`, `set data validation on 300 cells of …`;
 * for a tool that moves or fills cells, its verb (`tool`): `sorted the rows of …`, `replaced text
 * in 3 cells of …`, `pasted onto 12 cells of … (values, bold)`, `filled 8 cells of … (values)`.
 */
export function describeCells(
  diff: CellAreaDiff,
  titles: TabTitles,
  tool?: string,
): { phrase: string; range: string } {
  const range = a1Range(titles, changesSpan(diff));
  const count = counted(diff.changes.length, 'cell');
  // A sort's words need no cell's: what moved is the rows.
  if (tool === 'sort_range') return { phrase: `sorted the rows of ${range} (${count} moved)`, range };
  const words = diffWords(diff);
  const cells = `${count} of ${range}`;
  const listedWords = ORDER.filter((word) => words.has(word)).join(', ');
  switch (tool) {
    case 'find_replace':
      if (words.has('values')) return { phrase: `replaced text in ${cells}`, range };
      break;
    case 'copy_range':
      return { phrase: `pasted onto ${cells} (${listedWords})`, range };
    case 'autofill':
      return { phrase: `filled ${cells} (${listedWords})`, range };
  }
  if (words.size === 1 && words.has('data validation')) {
    const verb = diff.changes.every((change) => change.after.dataValidation)
      ? 'set'
      : diff.changes.every((change) => !change.after.dataValidation)
        ? 'cleared'
        : 'changed';
    return { phrase: `${verb} data validation on ${cells}`, range };
  }
  if (words.size === 1 && words.has('values')) return { phrase: `changed the values of ${cells}`, range };
  const pivot = pivotVerb(diff, words);
  if (pivot) return { phrase: `${pivot} the pivot table at ${range}`, range };
  return { phrase: `${listedWords} on ${cells}`, range };
}

/** A change of pivot tables only: whether they were added, removed or changed. */
function pivotVerb(
  diff: CellAreaDiff,
  words: ReadonlySet<string>,
): 'added' | 'removed' | 'changed' | undefined {
  if (words.size !== 1 || !words.has('pivot table')) return undefined;
  if (diff.changes.every((change) => change.after.pivotTable && !change.before.pivotTable)) return 'added';
  if (diff.changes.every((change) => !change.after.pivotTable && change.before.pivotTable)) return 'removed';
  return 'changed';
}

const PIVOT_UNDO = { added: 'remove', removed: 'put back', changed: 'put back' } as const;
