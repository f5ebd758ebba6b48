import { hash } from 'node:crypto';
import { columnLetters } from './a1.ts';

/**
 * A revision: a short token for what a value read returned, so a later write can say "only if
 * this is still what is there" (`ifRevision`). It vouches for an area of one tab, whatever range
 * text the read and the write spell it with: the rows the read returned, across the columns it
 * read, their cells as rendered (FORMULA, UNFORMATTED_VALUE or FORMATTED_VALUE, as the read
 * asked), and below them the rows the read saw blank (to the range's end, or the tab's). A write
 * anywhere inside that area is checked against it; one reaching outside is refused as not covered.
 *
 * Rather than one hash, the rows are hashed in at most BUCKETS groups (4 base64url characters
 * each), so a mismatch can name the rows that changed while the token stays short however many
 * rows were read: a 200-row page names changes to within 7 rows, a 32-row page to the row. A
 * write re-reads the groups of rows it changes, across the read's columns, and compares; the
 * token keeps no values, so it says which rows differ, not what they held.
 *
 * `2.<render><tab>.<top>.<left>.<width>.<rows>.<blank>.<group hashes>`: render F/U/V; tab a hash
 * of the tab's title as Google answered the read; top and left the area's zero-based first row
 * and column; width its columns (`*`: whole rows); rows the rows hashed; blank the rows below them
 * seen blank (`*`: to the tab's end); numbers in base 36.
 */
const BUCKETS = 32;
/** A page has at most 2,000 rows (pageLimit); a token claiming more is not one of ours. */
const MAX_ROWS = 2_000;
/** Google Sheets' largest grid: 10 million cells, 18,278 columns (ZZZ). */
const MAX_SHEET_ROWS = 10_000_000;
const MAX_COLUMNS = 18_278;
const RENDER_LETTER = { FORMULA: 'F', UNFORMATTED_VALUE: 'U', FORMATTED_VALUE: 'V' } as const;
export type ValueRender = keyof typeof RENDER_LETTER;
const TOKEN =
  /^2\.([FUV])([A-Za-z0-9_-]{5})\.([0-9a-z]{1,5})\.([0-9a-z]{1,4})\.([0-9a-z]{1,4}|\*)\.([0-9a-z]{1,3})\.([0-9a-z]{1,5}|\*)\.((?:[A-Za-z0-9_-]{4}){0,32})$/;

/** `crypto.hash` is the one-shot form: a read hashes up to 33 short texts, and a Hash object each costs more than its digest. */
function digest(text: string, length: number): string {
  return hash('sha256', text, 'base64url').slice(0, length);
}

function tabOf(title: string): string {
  return digest(`tab\n${title}`, 5);
}

/** Trailing empty cells are what Google leaves out anyway; a row is the same with or without them. */
function rowText(row: readonly unknown[] | undefined): string {
  const cells = [...(row ?? [])];
  while (cells.length && (cells.at(-1) === '' || cells.at(-1) === null || cells.at(-1) === undefined))
    cells.pop();
  return JSON.stringify(cells);
}

function groupSize(rows: number): number {
  return Math.max(1, Math.ceil(rows / BUCKETS));
}

function groupHash(values: readonly (readonly unknown[])[], first: number, end: number): string {
  const texts: string[] = [];
  for (let row = first; row < end; row++) texts.push(rowText(values[row]));
  return digest(texts.join('\n'), 4);
}

/** Where a read's values lie: the tab Google answered with, the zero-based top-left cell, the columns read (null: whole rows). */
export interface RevisionArea {
  sheet: string;
  top: number;
  left: number;
  width: number | null;
}

/** The revision of the rows a read returned, and of `blankBelow` rows under them it saw blank (null: to the tab's end). */
export function revisionOf(
  render: ValueRender,
  area: RevisionArea,
  values: readonly (readonly unknown[])[],
  blankBelow: number | null,
): string {
  const rows = values.length;
  const size = groupSize(rows);
  const hashes: string[] = [];
  for (let start = 0; start < rows; start += size)
    hashes.push(groupHash(values, start, Math.min(start + size, rows)));
  const number = (value: number | null) => (value === null ? '*' : value.toString(36));
  return [
    '2',
    `${RENDER_LETTER[render]}${tabOf(area.sheet)}`,
    number(area.top),
    number(area.left),
    number(area.width),
    number(rows),
    number(blankBelow),
    hashes.join(''),
  ].join('.');
}

export interface ParsedRevision {
  render: ValueRender;
  tab: string;
  top: number;
  left: number;
  width: number | null;
  rows: number;
  blank: number | null;
  hashes: string[];
}

/** Undefined for anything that is not a revision this server gave out. */
export function parseRevision(token: string): ParsedRevision | undefined {
  const match = TOKEN.exec(token);
  if (!match) return undefined;
  const render = (Object.keys(RENDER_LETTER) as ValueRender[]).find(
    (key) => RENDER_LETTER[key] === match[1],
  )!;
  const number = (group: number) => Number.parseInt(match[group]!, 36);
  const open = (group: number) => (match[group] === '*' ? null : number(group));
  const [top, left, width, rows, blank] = [number(3), number(4), open(5), number(6), open(7)];
  const hashes = match[8]!.match(/.{4}/g) ?? [];
  if (
    !(rows <= MAX_ROWS) ||
    hashes.length !== Math.ceil(rows / groupSize(rows)) ||
    top + rows + (blank ?? 0) > MAX_SHEET_ROWS ||
    (width !== null && (width < 1 || left + width > MAX_COLUMNS)) ||
    (width === null && left !== 0)
  )
    return undefined;
  return { render, tab: match[2]!, top, left, width, rows, blank, hashes };
}

/** Cells a write changes: the zero-based top-left cell and the rows and columns from it. */
export interface CellArea {
  top: number;
  left: number;
  rows: number;
  columns: number;
}

/** Whether every cell of `area` lies in what the revision vouches for (its tab aside). */
export function revisionCovers(revision: ParsedRevision, area: CellArea): boolean {
  const bottom =
    revision.blank === null ? Number.POSITIVE_INFINITY : revision.top + revision.rows + revision.blank;
  const right = revision.width === null ? Number.POSITIVE_INFINITY : revision.left + revision.width;
  return (
    area.top >= revision.top &&
    area.top + Math.max(1, area.rows) <= bottom &&
    area.left >= revision.left &&
    area.left + Math.max(1, area.columns) <= right
  );
}

/** What a revision covers, in words without its tab: `B1:F4`, `A1:D` (to the tab's end), `rows 1–14`, `rows 3 on`. */
export function revisionRange(revision: ParsedRevision): string {
  const end = revision.blank === null ? undefined : revision.top + revision.rows + revision.blank;
  if (revision.width === null)
    return end === undefined ? `rows ${revision.top + 1} on` : `rows ${revision.top + 1}–${end}`;
  return `${columnLetters(revision.left)}${revision.top + 1}:${columnLetters(revision.left + revision.width - 1)}${end ?? ''}`;
}

/** The hashed groups of rows a write to `area` touches: [first, end) zero-based sheet rows of each. */
function touchedGroups(revision: ParsedRevision, area: CellArea): Array<[number, number]> {
  const size = groupSize(revision.rows);
  const from = Math.max(area.top, revision.top) - revision.top;
  const to = Math.min(area.top + Math.max(1, area.rows), revision.top + revision.rows) - revision.top;
  const groups: Array<[number, number]> = [];
  if (from >= to) return groups;
  for (let group = Math.floor(from / size); group * size < to; group++)
    groups.push([revision.top + group * size, revision.top + Math.min((group + 1) * size, revision.rows)]);
  return groups;
}

/**
 * The rows to read again (zero-based sheet rows, end-exclusive), across the revision's columns,
 * to check a write to `area` inside it: the hashed groups the write touches, and its rows below them.
 */
export function rowsToCheck(revision: ParsedRevision, area: CellArea): { first: number; end: number } {
  const groups = touchedGroups(revision, area);
  const end = area.top + Math.max(1, area.rows);
  return {
    first: Math.min(area.top, groups[0]?.[0] ?? area.top),
    end: Math.max(end, groups.at(-1)?.[1] ?? end),
  };
}

export type RevisionCheck =
  | { ok: true }
  | { ok: false; reason: 'other-tab' }
  | { ok: false; reason: 'changed'; rows: Array<[first: number, last: number]> };

/**
 * Compares a revision with what the rows a write changes hold now. `current` is what Google
 * answered for rowsToCheck (across the revision's columns, in its rendering): its tab's title and
 * values from its `first` row. `rows` are the rows that differ, 1-based sheet rows, grouped as
 * the token groups them; a row the read saw blank that the write covers counts when it holds data now.
 */
export function checkRevision(
  revision: ParsedRevision,
  area: CellArea,
  current: { sheet: string; first: number; values: readonly (readonly unknown[])[] },
): RevisionCheck {
  if (tabOf(current.sheet) !== revision.tab) return { ok: false, reason: 'other-tab' };
  const size = groupSize(revision.rows);
  const changed: Array<[number, number]> = [];
  for (const [first, end] of touchedGroups(revision, area)) {
    const group = (first - revision.top) / size;
    const now = groupHash(current.values, first - current.first, end - current.first);
    if (now === revision.hashes[group]) continue;
    const previous = changed.at(-1);
    if (previous && previous[1] === first) previous[1] = end;
    else changed.push([first + 1, end]);
  }
  const blankFrom = Math.max(area.top, revision.top + revision.rows);
  const areaEnd = area.top + Math.max(1, area.rows);
  const filled: number[] = [];
  for (let row = blankFrom; row < areaEnd; row++)
    if (rowText(current.values[row - current.first]) !== '[]') filled.push(row + 1);
  if (filled.length) changed.push([filled[0]!, filled.at(-1)!]);
  return changed.length ? { ok: false, reason: 'changed', rows: changed } : { ok: true };
}

/** `3`, `5–8`, joined, for 1-based sheet rows. */
export function rowList(rows: Array<[number, number]>): string {
  return rows.map(([first, last]) => (first === last ? `${first}` : `${first}–${last}`)).join(', ');
}

/** A1 address of a cell `row`, `column` (zero-based) below and right of the zero-based corner. */
export function cellAddress(top: number, left: number, row: number, column: number): string {
  return `${columnLetters(left + column)}${top + row + 1}`;
}
