import type { sheets_v4 } from 'googleapis';
import type { SheetStateImage, StateImage } from './state-image.ts';
import { a1Range, quoted, type TabTitles, tabNamed } from './state-words.ts';

/**
 * The objects a spreadsheet keeps by id, each compared and restored whole: in the order undo adds
 * them back (a table or named range before what may be built on it), and deletes them in reverse.
 */
export const OBJECT_KINDS = [
  'namedRanges',
  'tables',
  'bandedRanges',
  'protectedRanges',
  'filterViews',
  'charts',
] as const;

export type ObjectKind = (typeof OBJECT_KINDS)[number];

/** One object as an image holds it: its kind, id and the tab it is kept on (none for named ranges). */
export interface KeyedObject {
  kind: ObjectKind;
  id: string;
  sheetId?: number;
  // biome-ignore lint/suspicious/noExplicitAny: each kind is its own sheets_v4 schema type
  value: any;
}

function idOf(kind: ObjectKind, value: Record<string, unknown>): unknown {
  switch (kind) {
    case 'namedRanges':
      return value.namedRangeId;
    case 'tables':
      return value.tableId;
    case 'bandedRanges':
      return value.bandedRangeId;
    case 'protectedRanges':
      return value.protectedRangeId;
    case 'filterViews':
      return value.filterViewId;
    case 'charts':
      return value.chartId;
  }
}

/** An object's key among all of a spreadsheet's: `kind:id`. */
export const objectKey = (kind: ObjectKind, value: object) =>
  `${kind}:${String(idOf(kind, value as Record<string, unknown>) ?? 0)}`;

/** Every keyed object of an image, by `kind:id`. */
export function keyedObjects(image: StateImage): Map<string, KeyedObject> {
  const objects = new Map<string, KeyedObject>();
  const add = (kind: ObjectKind, value: Record<string, unknown>, sheetId?: number) => {
    const id = String(idOf(kind, value) ?? 0);
    objects.set(objectKey(kind, value), { kind, id, value, ...(sheetId === undefined ? {} : { sheetId }) });
  };
  for (const value of image.namedRanges ?? []) add('namedRanges', value as Record<string, unknown>);
  for (const sheet of image.sheets)
    for (const kind of OBJECT_KINDS) {
      if (kind === 'namedRanges') continue;
      for (const value of (sheet[kind as keyof SheetStateImage] as unknown[] | undefined) ?? [])
        add(kind, value as Record<string, unknown>, sheet.sheetId);
    }
  return objects;
}

/** The range an object covers, when it has one (a chart's is where it is shown). */
export function objectRange(object: KeyedObject): sheets_v4.Schema$GridRange | undefined {
  const value = object.value;
  if (object.kind === 'charts') {
    const anchor = value.position?.overlayPosition?.anchorCell;
    if (anchor)
      return {
        sheetId: anchor.sheetId ?? 0,
        startRowIndex: anchor.rowIndex ?? 0,
        endRowIndex: (anchor.rowIndex ?? 0) + 1,
        startColumnIndex: anchor.columnIndex ?? 0,
        endColumnIndex: (anchor.columnIndex ?? 0) + 1,
      };
    return { sheetId: value.position?.sheetId ?? object.sheetId ?? 0 };
  }
  return value.range ?? undefined;
}

/**
 * What a person calls the object: `the chart "Sales" (id 7)`, `the filter view "Big"`, `the
 * named range "Items"`, `the alternating colours of Sheet1!A1:C10`.
 */
export function objectNoun(object: KeyedObject, titles: TabTitles): string {
  const value = object.value;
  const range = objectRange(object);
  const where = range ? a1Range(titles, range) : '';
  switch (object.kind) {
    case 'namedRanges':
      return `the named range ${quoted(value.name ?? object.id)}`;
    case 'tables':
      return `the table ${quoted(value.name ?? object.id)}`;
    case 'bandedRanges':
      return `the alternating colours of ${where}`;
    case 'protectedRanges':
      return value.description
        ? `the protected range ${quoted(value.description)}`
        : `the protection of ${where}`;
    case 'filterViews':
      return `the filter view ${quoted(value.title ?? object.id)}`;
    case 'charts': {
      const title = value.spec?.title;
      return title ? `the chart ${quoted(title)} (id ${object.id})` : `the chart ${object.id}`;
    }
  }
}

/**
 * The object with where it is, as the activity log and undo name it: `the chart "Sales" (id 7) on
 * the tab "Dashboard"`, `the table "Jobs" on Sheet1!A1:C10`, `the named range "Items" (Sheet1!A1:A10)`.
 */
export function objectWords(object: KeyedObject, titles: TabTitles): string {
  const noun = objectNoun(object, titles);
  const range = objectRange(object);
  const where = range ? a1Range(titles, range) : '';
  switch (object.kind) {
    case 'charts':
      return `${noun} on ${tabNamed(titles(object.sheetId ?? range?.sheetId ?? 0))}`;
    case 'filterViews':
    case 'tables':
      return where ? `${noun} on ${where}` : noun;
    case 'namedRanges':
      return where ? `${noun} (${where})` : noun;
    case 'protectedRanges':
      return object.value.description && where ? `${noun} on ${where}` : noun;
    case 'bandedRanges':
      return noun;
  }
}

/** Whether undo takes the object away with "remove" (a protection, colours) rather than "delete". */
export const removedNotDeleted = (object: KeyedObject) =>
  object.kind === 'bandedRanges' || object.kind === 'protectedRanges';
