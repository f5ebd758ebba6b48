import { hash } from 'node:crypto';
import { columnLetters } from './a1.ts';

/**
 * A revision: a short token for exactly what a value read returned, so a later write can say
 * "only if this is still what is there" (`ifRevision`). It covers the rows the read returned —
 * their cells as rendered (FORMULA, UNFORMATTED_VALUE or FORMATTED_VALUE, as the read asked) — of
 * one range at one offset, and whether the read saw the end of the range's data.
 *
 * Rather than one hash, the rows are hashed in at most BUCKETS groups (4 base64url characters
 * each), so a mismatch can name the rows that changed while the token stays under ~150
 * characters however many rows were read: a 200-row page names changes to within 7 rows, a
 * 32-row page to the row. A write re-reads its range and compares; it cannot say what a cell
 * held before (the token keeps no values), only which rows differ now.
 *
 * `1.<render><scope>.<rows><e|o>.<group hashes>`: render F/U/V; scope is a hash of the render,
 * the range and the offset, so a revision of another range, page or rendering is refused as
 * such instead of being reported as a change.
 */
const BUCKETS = 32;
/** A page has at most 2,000 rows (pageLimit); a token claiming more is not one of ours. */
const MAX_ROWS = 2_000;
const RENDER_LETTER = { FORMULA: 'F', UNFORMATTED_VALUE: 'U', FORMATTED_VALUE: 'V' } as const;
export type ValueRender = keyof typeof RENDER_LETTER;
const TOKEN = /^1\.([FUV])([A-Za-z0-9_-]{6})\.([0-9a-z]{1,7})([eo])\.((?:[A-Za-z0-9_-]{4}){0,32})$/;

/** `crypto.hash` is the one-shot form: a read hashes up to 33 short texts, and a Hash object each costs more than its digest. */
function digest(text: string, length: number): string {
  return hash('sha256', text, 'base64url').slice(0, length);
}

function scopeOf(render: ValueRender, range: string, offset: number): string {
  return digest(`${render}\n${range}\n${offset}`, 6);
}

/** Trailing empty cells are what Google leaves out anyway; a row is the same with or without them. */
function rowText(row: readonly unknown[] | undefined): string {
  const cells = [...(row ?? [])];
  while (cells.length && (cells.at(-1) === '' || cells.at(-1) === null)) cells.pop();
  return JSON.stringify(cells);
}

function groupSize(rows: number): number {
  return Math.max(1, Math.ceil(rows / BUCKETS));
}

function groupHashes(values: readonly (readonly unknown[])[], rows: number): string[] {
  const size = groupSize(rows);
  const hashes: string[] = [];
  for (let start = 0; start < rows; start += size) {
    const texts: string[] = [];
    for (let row = start; row < Math.min(start + size, rows); row++) texts.push(rowText(values[row]));
    hashes.push(digest(texts.join('\n'), 4));
  }
  return hashes;
}

/** The revision of the rows a read returned; `ended` when the range's data ends with them. */
export function revisionOf(
  render: ValueRender,
  range: string,
  offset: number,
  values: readonly (readonly unknown[])[],
  ended: boolean,
): string {
  const rows = values.length;
  return `1.${RENDER_LETTER[render]}${scopeOf(render, range, offset)}.${rows.toString(36)}${ended ? 'e' : 'o'}.${groupHashes(values, rows).join('')}`;
}

export interface ParsedRevision {
  render: ValueRender;
  scope: string;
  rows: number;
  ended: boolean;
  hashes: string[];
}

/** Undefined for anything that is not a revision this server gave out. */
export function parseRevision(token: string): ParsedRevision | undefined {
  const match = TOKEN.exec(token);
  if (!match) return undefined;
  const render = (Object.keys(RENDER_LETTER) as ValueRender[]).find(
    (key) => RENDER_LETTER[key] === match[1],
  )!;
  const rows = Number.parseInt(match[3]!, 36);
  const hashes = match[5]!.match(/.{4}/g) ?? [];
  if (!(rows <= MAX_ROWS) || hashes.length !== Math.ceil(rows / groupSize(rows))) return undefined;
  return { render, scope: match[2]!, rows, ended: match[4] === 'e', hashes };
}

/** Whether `revision` is of a read of `range` from its first row (in any rendering). */
export function isRevisionOf(revision: ParsedRevision, range: string): boolean {
  return revision.scope === scopeOf(revision.render, range, 0);
}

export type RevisionCheck =
  | { ok: true }
  | { ok: false; reason: 'other-range' }
  | { ok: false; reason: 'changed'; rows: Array<[first: number, last: number]> };

/**
 * Compares a revision with the range's current values (read from its top, in the revision's
 * rendering). `rows` are the changed rows, 1-based within the range, grouped as the token groups
 * them; rows past the read are listed when the read had seen the end of the data.
 */
export function checkRevision(
  revision: ParsedRevision,
  range: string,
  current: readonly (readonly unknown[])[],
): RevisionCheck {
  if (!isRevisionOf(revision, range)) return { ok: false, reason: 'other-range' };
  const now = groupHashes(current, revision.rows);
  const size = groupSize(revision.rows);
  const changed: Array<[number, number]> = [];
  revision.hashes.forEach((hash, index) => {
    if (now[index] !== hash) changed.push([index * size + 1, Math.min((index + 1) * size, revision.rows)]);
  });
  if (revision.ended) {
    const grown = current.slice(revision.rows).some((row) => rowText(row) !== '[]');
    if (grown) changed.push([revision.rows + 1, current.length]);
  }
  return changed.length ? { ok: false, reason: 'changed', rows: changed } : { ok: true };
}

/** `3`, `5–8`, joined, for rows of a range whose first row is `top` (1-based sheet row). */
export function rowList(rows: Array<[number, number]>, top: number): string {
  return rows
    .map(([first, last]) => (first === last ? `${top + first - 1}` : `${top + first - 1}–${top + last - 1}`))
    .join(', ');
}

/** A1 address of a cell `row`, `column` (zero-based) below and right of the zero-based corner. */
export function cellAddress(top: number, left: number, row: number, column: number): string {
  return `${columnLetters(left + column)}${top + row + 1}`;
}
