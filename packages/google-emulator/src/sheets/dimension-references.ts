/**
 * Formula references following rows or columns that are inserted or deleted, as Google Sheets
 * rewrites them. Google's API documentation says what the requests do to the grid
 * (InsertDimensionRequest "Inserts rows or columns in a sheet at a particular index",
 * DeleteDimensionRequest "Deletes the dimensions from the sheet",
 * https://developers.google.com/workspace/sheets/api/reference/rest/v4/spreadsheets/request, with
 * examples in https://developers.google.com/workspace/sheets/api/samples/rowcolumn) but not what
 * they do to formulas; that is what the Sheets editor does on Insert row / Delete row, which the API
 * shares:
 *
 * - every reference that names a moved cell follows it, `$`-anchored or not (`=B$6` → `=B$7` when a
 *   row goes in before row 6);
 * - a range grows when rows go in after its first row and up to its last (`B2:B6` → `B2:B7`), moves
 *   when they go in before it, and is left alone when they go in after it (`B2:B5`);
 * - deleting shifts later references back, shrinks a range that loses some of its rows, and turns a
 *   reference whose every cell is gone into `#REF!` (the tab name with it);
 * - a reference written with a tab name (`Expenses!B6`, `'My tab'!B6:C9`) is rewritten in formulas
 *   on every tab when that tab changes; one without is on the formula's own tab;
 * - whole columns (`C:C`) do not change with rows, nor whole rows (`2:5`) with columns; open ends
 *   (`A2:C`) stay open; text in double quotes is never touched.
 */
import { columnToLetters, lettersToColumn } from './a1-notation.ts';
import type { SheetModel, SpreadsheetModel } from './model.ts';

export interface DimensionChange {
  /** The title of the tab whose rows or columns change. */
  sheetTitle: string;
  rows: boolean;
  /** Zero-based index of the first inserted or deleted row or column. */
  start: number;
  /** How many were inserted before `start` (> 0), or deleted from `start` on (< 0). */
  count: number;
}

/** One side of a reference: `$B$6`, `B6`, `B` (whole column) or `6` (whole row). */
interface Endpoint {
  columnAnchor: string;
  column?: number;
  rowAnchor: string;
  row?: number;
}

const ENDPOINT = String.raw`\$?[A-Za-z]{1,3}\$?\d{1,7}|\$?[A-Za-z]{1,3}|\$?\d{1,7}`;
// A reference's cells after any tab name: not a function name (`LOG10(`) nor part of a longer name.
const AREA = new RegExp(`(${ENDPOINT})(?::(${ENDPOINT}))?(?![\\p{L}\\p{N}_(!.$'])`, 'uy');
const UNQUOTED_TAB = /([\p{L}\p{N}_.]+)!/uy;
const NAME_CHARACTER = /[\p{L}\p{N}_.$#]/u;
const NAME_RUN = /[\p{L}\p{N}_.$]+/uy;

/**
 * `formula` (on the tab titled `formulaSheetTitle`) with its references rewritten for `change`.
 * Tab titles are compared ignoring case, as Google keeps them unique ignoring case.
 */
export function rewriteFormulaForDimension(
  formula: string,
  change: DimensionChange,
  formulaSheetTitle: string,
): string {
  if (change.count === 0) return formula;
  const changedTab = change.sheetTitle.toLowerCase();
  const onChangedTab = formulaSheetTitle.toLowerCase() === changedTab;
  let out = '';
  let i = 0;
  while (i < formula.length) {
    const char = formula[i] as string;
    if (char === '"') {
      const end = afterQuoted(formula, i, '"');
      out += formula.slice(i, end);
      i = end;
      continue;
    }
    let tab: string | undefined;
    let areaStart = i;
    if (char === "'") {
      const end = afterQuoted(formula, i, "'");
      if (formula[end] !== '!') {
        out += formula.slice(i, end);
        i = end;
        continue;
      }
      tab = formula.slice(i + 1, end - 1).replaceAll("''", "'");
      areaStart = end + 1;
    } else if (i > 0 && NAME_CHARACTER.test(formula[i - 1] as string)) {
      out += char;
      i++;
      continue;
    } else {
      UNQUOTED_TAB.lastIndex = i;
      const named = UNQUOTED_TAB.exec(formula);
      if (named) {
        tab = named[1];
        areaStart = i + named[0].length;
      }
    }
    AREA.lastIndex = areaStart;
    const area = AREA.exec(formula);
    const reference = area && parseReference(area[1] as string, area[2]);
    if (!area || !reference) {
      // Not a reference: copy the tab prefix or the whole name, so that no part of it is read as one.
      NAME_RUN.lastIndex = i;
      const end = areaStart > i ? areaStart : (NAME_RUN.exec(formula)?.[0].length ?? 1) + i;
      out += formula.slice(i, end);
      i = end;
      continue;
    }
    const end = areaStart + area[0].length;
    const applies = tab === undefined ? onChangedTab : tab.toLowerCase() === changedTab;
    const moved = applies ? moveReference(reference, change) : reference;
    out +=
      moved === undefined
        ? '#REF!'
        : moved === reference
          ? formula.slice(i, end)
          : formula.slice(i, areaStart) + formatReference(moved);
    i = end;
  }
  return out;
}

/** Rewrites every formula cell of every tab for rows or columns inserted or deleted on `sheet`. */
export function rewriteFormulasForDimension(
  spreadsheet: SpreadsheetModel,
  sheet: SheetModel,
  rows: boolean,
  start: number,
  count: number,
): void {
  const change: DimensionChange = { sheetTitle: sheet.properties.title, rows, start, count };
  for (const each of spreadsheet.sheets) {
    for (const cells of each.rows) {
      if (!cells) continue;
      for (const cell of cells) {
        const value = cell?.userEnteredValue;
        if (value?.formulaValue == null) continue;
        value.formulaValue = rewriteFormulaForDimension(value.formulaValue, change, each.properties.title);
      }
    }
  }
}

/** The index after a quoted run starting at `start` (a doubled quote stays inside). */
function afterQuoted(text: string, start: number, quote: string): number {
  let i = start + 1;
  while (i < text.length) {
    if (text[i] === quote) {
      if (text[i + 1] !== quote) return i + 1;
      i += 2;
    } else i++;
  }
  return text.length;
}

type Reference = [Endpoint] | [Endpoint, Endpoint];

function parseEndpoint(text: string): Endpoint {
  const cell = /^(\$?)([A-Za-z]+)(\$?)(\d+)$/.exec(text);
  if (cell) {
    return {
      columnAnchor: cell[1] as string,
      column: lettersToColumn(cell[2] as string),
      rowAnchor: cell[3] as string,
      row: Number(cell[4]) - 1,
    };
  }
  const column = /^(\$?)([A-Za-z]+)$/.exec(text);
  if (column)
    return { columnAnchor: column[1] as string, column: lettersToColumn(column[2] as string), rowAnchor: '' };
  const row = /^(\$?)(\d+)$/.exec(text) as RegExpExecArray;
  return { columnAnchor: '', rowAnchor: row[1] as string, row: Number(row[2]) - 1 };
}

/** The reference's endpoints; undefined for what is no reference (`B` or `6` alone, `A:5`, row 0). */
function parseReference(first: string, second: string | undefined): Reference | undefined {
  const a = parseEndpoint(first);
  if (a.row !== undefined && a.row < 0) return undefined;
  if (second === undefined) return a.row !== undefined && a.column !== undefined ? [a] : undefined;
  const b = parseEndpoint(second);
  if (b.row !== undefined && b.row < 0) return undefined;
  const columnOnly = (e: Endpoint) => e.row === undefined;
  const rowOnly = (e: Endpoint) => e.column === undefined;
  if ((columnOnly(a) && rowOnly(b)) || (rowOnly(a) && columnOnly(b))) return undefined;
  return [a, b];
}

/** The reference after the change: the same object when unchanged, undefined when all of it is gone. */
function moveReference(reference: Reference, change: DimensionChange): Reference | undefined {
  const key = change.rows ? 'row' : 'column';
  const [a, b] = reference;
  if (b === undefined) {
    const at = a[key] as number;
    const moved = movePoint(at, change);
    if (moved === undefined) return undefined;
    return moved === at ? reference : [{ ...a, [key]: moved }];
  }
  const first = a[key];
  const second = b[key];
  if (first === undefined && second === undefined) return reference;
  // An open side reaches the edge of the grid: `A2:C` runs to the last row, `A:C5` from the first.
  const reversed = first !== undefined && second !== undefined && first > second;
  const low = reversed ? (second as number) : (first ?? 0);
  const high = reversed ? (first as number) : (second ?? Number.POSITIVE_INFINITY);
  const span = moveSpan(low, high, change);
  if (span === undefined) return undefined;
  if (span[0] === low && span[1] === high) return reference;
  const [newFirst, newSecond] = reversed ? [span[1], span[0]] : span;
  return [
    first === undefined ? a : { ...a, [key]: newFirst },
    second === undefined ? b : { ...b, [key]: newSecond },
  ];
}

function movePoint(index: number, { start, count }: DimensionChange): number | undefined {
  if (index < start) return index;
  if (count > 0) return index + count;
  return index < start - count ? undefined : index + count;
}

function moveSpan(
  low: number,
  high: number,
  { start, count }: DimensionChange,
): [number, number] | undefined {
  if (count > 0) return [low >= start ? low + count : low, high >= start ? high + count : high];
  const end = start - count;
  if (low >= start && high < end) return undefined;
  const newLow = low < start ? low : low >= end ? low + count : start;
  const newHigh = high < start ? high : high >= end ? high + count : start - 1;
  return [newLow, newHigh];
}

function formatEndpoint(endpoint: Endpoint): string {
  const column =
    endpoint.column === undefined ? '' : endpoint.columnAnchor + columnToLetters(endpoint.column);
  const row = endpoint.row === undefined ? '' : endpoint.rowAnchor + String(endpoint.row + 1);
  return column + row;
}

function formatReference([a, b]: Reference): string {
  return b === undefined ? formatEndpoint(a) : `${formatEndpoint(a)}:${formatEndpoint(b)}`;
}
