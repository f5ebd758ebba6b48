import type { sheets_v4 } from 'googleapis';
import type { CellField } from './state-image.ts';

/**
 * A value with what Google's JSON leaves out or writes either way removed: `null`, `undefined`,
 * `''`, `{}` and `[]`, at any depth. Two reads of the same thing compare equal once normalized.
 */
export function normalized(value: unknown): unknown {
  if (value === null || value === undefined || value === '') return undefined;
  if (Array.isArray(value)) {
    const items = value.map((item) => normalized(item) ?? null);
    return items.length === 0 ? undefined : items;
  }
  if (typeof value !== 'object') return value;
  const entries = Object.entries(value as Record<string, unknown>)
    .map(([key, field]) => [key, normalized(field)] as const)
    .filter(([, field]) => field !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return entries.length === 0 ? undefined : Object.fromEntries(entries);
}

/**
 * `JSON.stringify(normalized(value))` built in one walk without the copy, `''` for a value
 * `normalized` leaves out: the key two values compare by, and about the bytes a journal entry
 * spends on the value. `inner` gives the form of each part (canonicalOf: kept with the part).
 */
export function canonical(value: unknown, inner: (part: unknown) => string = canonical): string {
  if (value === null || value === undefined || value === '') return '';
  if (typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) {
    if (value.length === 0) return '';
    let text = '[';
    for (let index = 0; index < value.length; index++)
      text += `${index ? ',' : ''}${inner(value[index]) || 'null'}`;
    return `${text}]`;
  }
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record);
  if (!inOrder(keys)) keys.sort();
  let text = '';
  for (const key of keys) {
    const item = inner(record[key]);
    if (item) text += `${text ? ',' : '{'}${JSON.stringify(key)}:${item}`;
  }
  return text ? `${text}}` : '';
}

function inOrder(keys: readonly string[]): boolean {
  for (let index = 1; index < keys.length; index++)
    if ((keys[index - 1] as string) > (keys[index] as string)) return false;
  return true;
}

/**
 * The canonical form of each object compared, and of each item of a list compared, kept with it:
 * the parts of an image are compared for the log's words, for the entry and against now (a rule
 * list whole, then rule by rule), and are not changed once read.
 */
const canonicalForms = new WeakMap<object, string>();

export function canonicalOf(value: unknown): string {
  if (value === null || typeof value !== 'object') return canonical(value);
  let found = canonicalForms.get(value);
  if (found === undefined) {
    found = Array.isArray(value) ? canonical(value, canonicalOf) : canonical(value);
    canonicalForms.set(value, found);
  }
  return found;
}

/** Structural equality ignoring key order and empty parts (`normalized`). */
export function sameContent(a: unknown, b: unknown): boolean {
  return a === b || canonicalOf(a) === canonicalOf(b);
}

/**
 * Cell keys: `canonical(maskedCell(cell, fields))` without the copy, one string per distinct key.
 * A value met again (a format on many cells, in both images) is recognised by its JSON as Google
 * gave it and not walked again, and equal keys are the same string, so comparing and looking them
 * up is cheap.
 */
export class CellKeys {
  readonly #fields: readonly CellField[];
  readonly #forms = new Map<string, string>();
  readonly #keys = new Map<string, string>();
  readonly #single = new Map<CellField, Map<string, string>>();
  constructor(fields: readonly CellField[]) {
    this.#fields = [...fields].sort();
  }
  of(cell: sheets_v4.Schema$CellData | undefined): string {
    if (!cell) return '';
    let text = '';
    let single: { field: CellField; form: string } | undefined;
    let parts = 0;
    for (const field of this.#fields) {
      const value: unknown = cell[field];
      const form = value !== null && typeof value === 'object' ? this.#form(value) : canonical(value);
      if (!form) continue;
      parts++;
      single = { field, form };
      text += `${text ? ',' : '{'}"${field}":${form}`;
    }
    if (parts === 0) return '';
    text += '}';
    // One part: its form, one string per value already, finds the key without reading the key.
    const keys = parts === 1 && single ? this.#byField(single.field) : this.#keys;
    const lookup = parts === 1 && single ? single.form : text;
    const same = keys.get(lookup);
    if (same !== undefined) return same;
    keys.set(lookup, text);
    return text;
  }
  #byField(field: CellField): Map<string, string> {
    let keys = this.#single.get(field);
    if (!keys) {
      keys = new Map();
      this.#single.set(field, keys);
    }
    return keys;
  }
  #form(value: object): string {
    const raw = JSON.stringify(value);
    let form = this.#forms.get(raw);
    if (form === undefined) {
      form = canonical(value);
      this.#forms.set(raw, form);
    }
    return form;
  }
}

/** The cell's fields the area was read for, nothing else. */
export function maskedCell(
  cell: sheets_v4.Schema$CellData | undefined,
  fields: readonly CellField[],
): sheets_v4.Schema$CellData {
  const masked: Record<string, unknown> = {};
  for (const field of fields) {
    const value = normalized(cell?.[field]);
    if (value !== undefined) masked[field] = value;
  }
  return masked as sheets_v4.Schema$CellData;
}

/** A grid range's corners with Google's defaults (an absent index is 0, an absent end open). */
export function gridCorners(range: sheets_v4.Schema$GridRange) {
  return {
    sheetId: range.sheetId ?? 0,
    startRow: range.startRowIndex ?? 0,
    endRow: range.endRowIndex ?? Number.POSITIVE_INFINITY,
    startColumn: range.startColumnIndex ?? 0,
    endColumn: range.endColumnIndex ?? Number.POSITIVE_INFINITY,
  };
}

export function gridRangeKey(range: sheets_v4.Schema$GridRange): string {
  const corners = gridCorners(range);
  return [corners.sheetId, corners.startRow, corners.endRow, corners.startColumn, corners.endColumn].join(
    ':',
  );
}

export function rangesOverlap(a: sheets_v4.Schema$GridRange, b: sheets_v4.Schema$GridRange): boolean {
  const x = gridCorners(a);
  const y = gridCorners(b);
  return (
    x.sheetId === y.sheetId &&
    x.startRow < y.endRow &&
    y.startRow < x.endRow &&
    x.startColumn < y.endColumn &&
    y.startColumn < x.endColumn
  );
}
