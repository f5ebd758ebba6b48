import { columnLetters } from '../kit/a1.ts';
import type { Area, CellCount, Tab } from './loss-reads.ts';

/**
 * The words of a loss description, which a person reads before accepting or declining a
 * destructive call. Names come from the spreadsheet, written by anyone the file is shared with,
 * so they are quoted and anything that could hide or reorder the text around them is escaped.
 */

const numbers = new Intl.NumberFormat('en-US');
/** Longest name shown before it is cut with "…". */
const NAME_SHOWN_CHARACTERS = 100;

/**
 * A name in double quotes, JSON-escaped, and with the characters JSON leaves alone but a screen
 * hides escaped too: DEL and C1 controls, and format characters — bidirectional overrides and
 * isolates (which can make `"Q3" of "Budget"` read as something else), zero-width spaces that make
 * two names look alike, tag characters — and line separators. The zero-width joiner stays: emoji
 * are made with it.
 */
export function quotedName(name: string): string {
  const characters = [...name];
  const shown =
    characters.length > NAME_SHOWN_CHARACTERS
      ? `${characters.slice(0, NAME_SHOWN_CHARACTERS).join('')}…`
      : name;
  return JSON.stringify(shown).replace(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu, (character) =>
    character === '\u200d' ? character : `\\u{${character.codePointAt(0)!.toString(16)}}`,
  );
}

/** `1,200 rows`, `1 row`. */
export function amount(count: number, singular: string, plural = `${singular}s`): string {
  return `${numbers.format(count)} ${count === 1 ? singular : plural}`;
}

/** `the tab "Q3"` */
export function tabName(tab: Tab): string {
  return `the tab ${quotedName(tab.title)}`;
}

/** `1,200 rows × 26 columns` */
export function gridSize(tab: Tab): string {
  return `${amount(tab.rows, 'row')} × ${amount(tab.columns, 'column')}`;
}

/** `4,312 non-empty cells`, or what is known when the count stopped at its budget. */
export function nonEmptyCount(count: CellCount): string {
  if (count.complete) return amount(count.nonEmpty, 'non-empty cell');
  if (count.countedRows === 0) return 'non-empty cells not counted (too large to read)';
  const counted = `only its first ${amount(count.countedRows, 'row')} counted`;
  return count.nonEmpty === 0
    ? `no non-empty cell in its first ${amount(count.countedRows, 'row')}, the rest not counted`
    : `at least ${amount(count.nonEmpty, 'non-empty cell')} (${counted})`;
}

/** `A1:C10`, or `B2` for one cell. */
export function cellsOf(area: Area): string {
  const start = `${columnLetters(area.columnStart)}${area.rowStart + 1}`;
  const end = `${columnLetters(area.columnEnd - 1)}${area.rowEnd}`;
  return start === end ? start : `${start}:${end}`;
}

/** `rows 5–9`, `row 5`, `columns C–E`, `column C`: one-based, as the sheet shows them. */
export function dimensionSpan(dimension: 'ROWS' | 'COLUMNS', start: number, end: number): string {
  const label = (index: number) => (dimension === 'ROWS' ? numbers.format(index + 1) : columnLetters(index));
  const noun = dimension === 'ROWS' ? 'row' : 'column';
  return end - start === 1 ? `${noun} ${label(start)}` : `${noun}s ${label(start)}–${label(end - 1)}`;
}

/** `a, b and c` */
export function listed(items: readonly string[]): string {
  return items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;
}
