import type { sheets_v4 } from 'googleapis';
import { quotedName } from '../../tools/guards/loss-phrases.ts';
import { columnLetters, rangeOnSheet } from '../../tools/kit/a1.ts';
import { gridCorners } from './state-compare.ts';
import type { StateImage } from './state-image.ts';

/** A tab's title by sheetId, from the first image that names it; `tab <id>` when none does. */
export type TabTitles = (sheetId: number) => string;

function titlesOf(image: StateImage): Map<number, string> {
  const titles = new Map<number, string>();
  const name = (sheetId: number | null | undefined, title: string | null | undefined) => {
    if (title && !titles.has(sheetId ?? 0)) titles.set(sheetId ?? 0, title);
  };
  for (const tab of image.tabs ?? []) name(tab.sheetId, tab.title);
  for (const sheet of image.sheets) {
    name(sheet.sheetId, sheet.title);
    name(sheet.sheetId, sheet.properties?.title);
  }
  for (const area of image.cells) name(area.sheetId, area.sheet);
  return titles;
}

/** The tab's title if the image names it. */
export const knownTitle = (image: StateImage, sheetId: number) => titlesOf(image).get(sheetId);

export function tabTitles(...images: StateImage[]): TabTitles {
  const maps = images.map(titlesOf);
  return (sheetId) => {
    for (const titles of maps) {
      const title = titles.get(sheetId);
      if (title) return title;
    }
    return `tab ${sheetId}`;
  };
}

/** `Sheet1!B2` for a zero-based cell. */
export function a1Cell(title: string, row: number, column: number): string {
  return rangeOnSheet(title, `${columnLetters(column)}${row + 1}`);
}

/** A grid range in A1 notation: `Sheet1!A1:C4`, `Sheet1!B:B`, `Sheet1!3:5`, or the tab alone. */
export function a1Range(titles: TabTitles, range: sheets_v4.Schema$GridRange): string {
  const { sheetId, startRow, endRow, startColumn, endColumn } = gridCorners(range);
  const title = titles(sheetId);
  const rowsOpen = range.startRowIndex == null && range.endRowIndex == null;
  const columnsOpen = range.startColumnIndex == null && range.endColumnIndex == null;
  if (rowsOpen && columnsOpen) return rangeOnSheet(title);
  if (rowsOpen) return rangeOnSheet(title, `${columnLetters(startColumn)}:${columnLetters(endColumn - 1)}`);
  if (columnsOpen) return rangeOnSheet(title, `${startRow + 1}:${endRow}`);
  const first = `${columnLetters(startColumn)}${startRow + 1}`;
  const last = `${Number.isFinite(endColumn) ? columnLetters(endColumn - 1) : ''}${Number.isFinite(endRow) ? endRow : ''}`;
  return rangeOnSheet(title, first === last ? first : `${first}:${last}`);
}

/** Rows or columns in A1 notation: `Sheet1!3:5`, `Sheet1!B:D`. */
export function a1Dimension(
  title: string,
  dimension: 'ROWS' | 'COLUMNS',
  start: number,
  end: number,
): string {
  return dimension === 'ROWS'
    ? rangeOnSheet(title, `${start + 1}:${end}`)
    : rangeOnSheet(title, `${columnLetters(start)}:${columnLetters(end - 1)}`);
}

/** `1 row`, `3 rows`. */
export function counted(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}

/** At most `limit` items, then `and N more`. */
export function capped(items: string[], limit: number, noun = ''): string[] {
  if (items.length <= limit) return items;
  const more = items.length - limit;
  return [...items.slice(0, limit), `and ${more} more${noun ? ` ${noun}${more === 1 ? '' : 's'}` : ''}`];
}

/**
 * A name written by anyone the file is shared with (a tab, chart, table, view), as every answer
 * and the activity log quote names: in double quotes, escaped so it cannot disguise the sentence
 * around it (loss-phrases.ts).
 */
export const quoted = (text: string | null | undefined) => quotedName(text ?? '');

/** `the tab "Q3"`: a tab named outside an A1 range. */
export const tabNamed = (title: string | null | undefined) => `the tab ${quoted(title)}`;

/**
 * The verbs undo's words begin with ("delete the chart …", "put back the formats of …"), with
 * their past tense for the answer of an undo done. Every phrase of restoreState and undoOfSummary
 * starts with one of them.
 */
const UNDO_VERBS: Readonly<Record<string, string>> = {
  add: 'added',
  clear: 'cleared',
  delete: 'deleted',
  freeze: 'froze',
  hide: 'hid',
  merge: 'merged',
  move: 'moved',
  put: 'put',
  remove: 'removed',
  rename: 'renamed',
  set: 'set',
  show: 'showed',
  unfreeze: 'unfroze',
  unmerge: 'unmerged',
};

const conjugated = (phrase: string, form: (verb: string) => string) => {
  const [verb = '', ...rest] = phrase.split(' ');
  return UNDO_VERBS[verb] === undefined ? phrase : [form(verb), ...rest].join(' ');
};

/** `delete the chart …` → `deleted the chart …`: what an undo did. */
export const pastTense = (phrase: string) => conjugated(phrase, (verb) => UNDO_VERBS[verb] as string);

/** `delete the chart …` → `deletes the chart …`: what undo_change does (list_changes). */
export const thirdPerson = (phrase: string) => conjugated(phrase, (verb) => `${verb}s`);
