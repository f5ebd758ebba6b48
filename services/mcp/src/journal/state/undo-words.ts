import { categoriesOf } from './describe-cells.ts';
import { counted } from './state-words.ts';

/**
 * What undo_change does to a structure change, read from the words the activity log keeps of it
 * (its summary, state-describe.ts), for list_changes: a list of changes carries no payload. Each
 * phrase the log writes has its undo here, worded as restoreState words what it does ("added the
 * chart "Sales" (id 7) on the tab "Dashboard"" → "delete the chart "Sales" (id 7) on the tab
 * "Dashboard""), so list_changes and undo_change say the same. Undefined when a phrase is not one
 * the log writes (an entry worded before these words existed).
 */
export function undoOfSummary(summary: string): string[] | undefined {
  const undone: string[] = [];
  for (const phrase of phrasesOf(summary)) {
    const undo = undoOfPhrase(phrase);
    if (undo === undefined) return undefined;
    undone.push(undo);
  }
  return undone.length > 0 ? undone : undefined;
}

/** A name in the log's quotes: JSON, so `\"` inside it is part of it. */
const NAME = String.raw`"(?:[^"\\]|\\.)*"`;
const COUNT = '[\\d,]+';

const noun = (kind: string) => (kind === 'row' ? 'row' : 'column');
const size = (kind: string) => (kind === 'row' ? 'height' : 'width');
const number = (text: string) => Number(text.replaceAll(',', ''));
const opposite = (direction: string) => (direction === 'right to left' ? 'left to right' : 'right to left');

/** Each phrase the log writes, most particular first, with the words for its undo. */
const UNDO_OF: Array<[RegExp, (...groups: string[]) => string | undefined]> = [
  [new RegExp(`^added (the tab ${NAME})$`), (tab) => `delete ${tab}`],
  [
    new RegExp(`^renamed the (tab|table) (${NAME}) to (${NAME})$`),
    (kind, was, is) => `rename the ${kind} ${is} back to ${was}`,
  ],
  [
    new RegExp(`^moved (the tab ${NAME}) from position (\\d+) to \\d+$`),
    (tab, was) => `move ${tab} back to position ${was}`,
  ],
  [
    new RegExp(`^set (the tab ${NAME}) (right to left|left to right)$`),
    (tab, is) => `set ${tab} ${opposite(is)} again`,
  ],
  [/^coloured (.+)$/, (tab) => `remove the colour of ${tab}`],
  [/^removed the colour of (.+)$/, (tab) => `add back the colour of ${tab}`],
  [
    new RegExp(`^froze ${COUNT} (row|column)s? of (.+) \\(was (${COUNT})\\)$`),
    (kind, tab, was) => `freeze ${counted(number(was), noun(kind))} of ${tab}`,
  ],
  [
    new RegExp(`^froze ${COUNT} (row|column)s? of (.+)$`),
    (kind, tab) => `unfreeze the ${noun(kind)}s of ${tab}`,
  ],
  [/^unfroze (.+)$/, (frozen) => `freeze ${frozen}`],
  [
    new RegExp(`^resized (${COUNT} (row|column)s? of .+)$`),
    (spans, kind) => `put back the ${size(kind)} of ${spans}`,
  ],
  [/^hid (.+)$/, (what) => `show ${what} again`],
  [/^showed (.+)$/, (what) => `hide ${what} again`],
  [/^merged (.+)$/, (where) => `unmerge ${where}`],
  [/^unmerged (.+)$/, (where) => `merge ${where} again`],
  [
    /^added conditional format rule (\d+) of \d+ ((?:on|of) .+)$/,
    (index, where) => `remove conditional format rule ${index} ${where}`,
  ],
  [
    /^deleted conditional format rule (\d+) of \d+ ((?:on|of) .+)$/,
    (index, where) => `add back conditional format rule ${index} ${where}`,
  ],
  [
    /^changed conditional format rule (\d+) of \d+ ((?:on|of) .+)$/,
    (index, where) => `put back conditional format rule ${index} ${where} as it was`,
  ],
  [
    /^reordered the conditional format rules of (.+)$/,
    (tab) => `put back the order of the conditional format rules of ${tab}`,
  ],
  [
    new RegExp(`^changed the conditional format rules of (.+) \\((${COUNT}) → ${COUNT} rules\\)$`),
    (tab, was) => `put back the conditional format rules of ${tab} (${counted(number(was), 'rule')})`,
  ],
  [/^set a filter (on .+)$/, (where) => `clear the filter ${where}`],
  [/^cleared the filter (on .+)$/, (where) => `put back the filter ${where}`],
  [
    new RegExp(`^(?:set|cleared|changed) data validation on ${COUNT} cells? of (.+)$`),
    (range) => `put back the data validation of ${range}`,
  ],
  [
    new RegExp(`^changed the values of ${COUNT} cells? of (.+)$`),
    (range) => `put back the values of ${range}`,
  ],
  [
    new RegExp(`^sorted the rows of (.+) \\(${COUNT} cells? moved\\)$`),
    (range) => `put back the order of the rows of ${range}`,
  ],
  [new RegExp(`^replaced text in ${COUNT} cells? of (.+)$`), (range) => `put back the values of ${range}`],
  [/^added the pivot table at (.+)$/, (range) => `remove the pivot table at ${range}`],
  [/^removed the pivot table at (.+)$/, (range) => `put back the pivot table at ${range}`],
  [/^changed the pivot table at (.+)$/, (range) => `put back the pivot table at ${range} as it was`],
  [
    new RegExp(`^(?:pasted onto|filled) ${COUNT} cells? of (.+) \\(([^()]*)\\)$`),
    (range, words) => cellsBack(words, range),
  ],
  [new RegExp(`^([a-z ,]+) on ${COUNT} cells? of (.+)$`), (words, range) => cellsBack(words, range)],
  [/^added (the (?:alternating colours|protection|protected range) .+)$/, (object) => `remove ${object}`],
  [/^added (the .+)$/, (object) => `delete ${object}`],
  [/^(?:deleted|removed) (the .+)$/, (object) => `add back ${object}`],
  [/^moved (the chart .+)$/, (chart) => `move ${chart} back`],
  [/^changed (the .+)$/, (what) => `put back ${what} as it was`],
  [/^(and \d+ more)$/, (more) => more],
];

function cellsBack(words: string, range: string): string | undefined {
  const categories = categoriesOf(words.split(', '));
  return categories ? `put back the ${categories} of ${range}` : undefined;
}

function undoOfPhrase(phrase: string): string | undefined {
  for (const [pattern, undo] of UNDO_OF) {
    const match = pattern.exec(phrase);
    if (match) return undo(...match.slice(1).map((group) => group ?? ''));
  }
  return undefined;
}

/**
 * The summary's phrases: split at `; ` outside quoted names (a tab named `a; b` is one name), as
 * JSON quotes them (`"…"`) or A1 ranges do (`'…'!A1`, `''` for a quote inside).
 */
function phrasesOf(summary: string): string[] {
  const phrases: string[] = [];
  let start = 0;
  let quote: '"' | "'" | undefined;
  for (let at = 0; at < summary.length; at++) {
    const character = summary[at];
    if (quote === '"') {
      if (character === '\\') at++;
      else if (character === '"') quote = undefined;
    } else if (quote === "'") {
      if (character === "'" && summary[at + 1] === "'") at++;
      else if (character === "'") quote = undefined;
    } else if (character === '"' || character === "'") quote = character;
    else if (character === ';' && summary[at + 1] === ' ') {
      phrases.push(summary.slice(start, at));
      start = at + 2;
      at++;
    }
  }
  phrases.push(summary.slice(start));
  return phrases;
}
