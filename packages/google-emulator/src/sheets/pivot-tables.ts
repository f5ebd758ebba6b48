/**
 * Pivot tables: a cell's `pivotTable` (Sheets API CellData.pivotTable, PivotTable,
 * https://developers.google.com/workspace/sheets/api/reference/rest/v4/spreadsheets/pivot-tables
 * and the guide https://developers.google.com/workspace/sheets/api/guides/pivot-tables) is stored
 * with the cell it is anchored at; what it shows is computed when read, as Google computes it:
 * the source's first row names the columns, each row group's distinct values are rows (column
 * groups are columns), each value is its summarizeFunction over the source rows of that group,
 * `showTotals` adds the "Grand Total" (and "<value> Total" for an outer group), filterSpecs keep
 * only the rows whose values are visible. What still differs is in README-sheets.md. Written by
 * hand: pivot libraries (PivotTable.js and the like) lay out and label their output their own way,
 * and what Google's layout needs beyond that is grouping and a dozen summaries over plain numbers.
 */
import type { sheets_v4 } from 'googleapis';
import { googleErrors } from '../google-error.ts';
import { formatCell } from './a1-notation.ts';
import { effectiveCell, formattedValue } from './cell-values.ts';
import { type Evaluation, evaluateSpreadsheet, type FormulaResult } from './formulas.ts';
import { cellAt, hasValue } from './grid.ts';
import type { CellData, ExtendedValue, NumberFormat, SheetModel, SpreadsheetModel } from './model.ts';

type PivotTable = sheets_v4.Schema$PivotTable;
type PivotGroup = sheets_v4.Schema$PivotGroup;

/** PivotValueSummarizeFunction, without CUSTOM (calculated fields are not computed here). */
const SUMMARIES = new Set([
  'SUM',
  'COUNTA',
  'COUNT',
  'COUNTUNIQUE',
  'AVERAGE',
  'MAX',
  'MIN',
  'MEDIAN',
  'PRODUCT',
  'STDEV',
  'STDEVP',
  'VAR',
  'VARP',
]);

/** The BooleanCondition types a pivot filter is computed with here. */
const FILTER_CONDITIONS = new Set([
  'NUMBER_GREATER',
  'NUMBER_GREATER_THAN_EQ',
  'NUMBER_LESS',
  'NUMBER_LESS_THAN_EQ',
  'NUMBER_EQ',
  'NUMBER_NOT_EQ',
  'NUMBER_BETWEEN',
  'NUMBER_NOT_BETWEEN',
  'TEXT_CONTAINS',
  'TEXT_NOT_CONTAINS',
  'TEXT_STARTS_WITH',
  'TEXT_ENDS_WITH',
  'TEXT_EQ',
  'TEXT_NOT_EQ',
  'BLANK',
  'NOT_BLANK',
]);

interface SourceArea {
  sheet: SheetModel;
  sheetIndex: number;
  startRow: number;
  endRow: number;
  startColumn: number;
  endColumn: number;
}

function sourceArea(spreadsheet: SpreadsheetModel, pivot: PivotTable): SourceArea {
  const range = pivot.source;
  if (!range) throw googleErrors.badRequest('A pivot table needs a source range.');
  const sheetIndex = spreadsheet.sheets.findIndex(
    (sheet) => sheet.properties.sheetId === (range.sheetId ?? 0),
  );
  const sheet = spreadsheet.sheets[sheetIndex];
  if (!sheet) throw googleErrors.badRequest(`No grid with id: ${range.sheetId ?? 0}`);
  const grid = sheet.properties.gridProperties;
  return {
    sheet,
    sheetIndex,
    startRow: range.startRowIndex ?? 0,
    endRow: range.endRowIndex ?? grid.rowCount,
    startColumn: range.startColumnIndex ?? 0,
    endColumn: range.endColumnIndex ?? grid.columnCount,
  };
}

/**
 * Refuses a pivot table Google would not take (a 400 on the `updateCells` that writes it): a source
 * off its tab's grid or without a data row, a group, value or filter naming a column outside the
 * source, an unknown summary. CUSTOM values and filter conditions this emulator does not compute
 * are refused too, naming the difference.
 */
export function checkPivotTable(spreadsheet: SpreadsheetModel, pivot: PivotTable): void {
  const area = sourceArea(spreadsheet, pivot);
  const grid = area.sheet.properties.gridProperties;
  if (
    area.startRow < 0 ||
    area.startColumn < 0 ||
    area.endRow > grid.rowCount ||
    area.endColumn > grid.columnCount ||
    area.endRow - area.startRow < 2 ||
    area.endColumn <= area.startColumn
  )
    throw googleErrors.badRequest(
      `Invalid pivot table source: it must be at least two rows within the grid of "${area.sheet.properties.title}" (${grid.rowCount} rows, ${grid.columnCount} columns).`,
    );
  const width = area.endColumn - area.startColumn;
  const offset = (what: string, value: number | null | undefined) => {
    if (value == null || value < 0 || value >= width)
      throw googleErrors.badRequest(
        `Invalid pivot table: ${what} ${value ?? '(none)'} is outside the source's ${width} columns.`,
      );
  };
  for (const group of [...(pivot.rows ?? []), ...(pivot.columns ?? [])]) {
    if (group.dataSourceColumnReference)
      throw googleErrors.badRequest('Invalid pivot table: not a data source.');
    offset('sourceColumnOffset', group.sourceColumnOffset);
  }
  for (const value of pivot.values ?? []) {
    const summary = value.summarizeFunction ?? 'SUM';
    if (summary === 'CUSTOM' || value.formula != null)
      throw googleErrors.badRequest(
        'Invalid pivot table: calculated fields (CUSTOM, formula) are not computed by the Sheetgate Google emulator.',
      );
    if (!SUMMARIES.has(summary))
      throw googleErrors.badRequest(`Invalid pivot table: unknown summarizeFunction ${summary}.`);
    offset('sourceColumnOffset', value.sourceColumnOffset);
  }
  for (const spec of filterSpecsOf(pivot)) {
    offset('columnOffsetIndex', spec.columnOffsetIndex);
    const type = spec.filterCriteria?.condition?.type;
    if (type && !FILTER_CONDITIONS.has(type))
      throw googleErrors.badRequest(
        `Invalid pivot table: the filter condition ${type} is not computed by the Sheetgate Google emulator.`,
      );
  }
  if (pivot.valueLayout === 'VERTICAL')
    throw googleErrors.badRequest(
      'Invalid pivot table: valueLayout VERTICAL is not computed by the Sheetgate Google emulator.',
    );
}

interface SourceValue {
  value: ExtendedValue | undefined;
  format: NumberFormat | undefined;
}

/** A value's group: numbers by value, text without regard to case (as Sheets groups them). */
function groupKey(value: ExtendedValue | undefined): string {
  if (value?.numberValue != null) return `n${value.numberValue}`;
  if (value?.boolValue != null) return `b${value.boolValue}`;
  if (value?.stringValue != null && value.stringValue !== '') return `s${value.stringValue.toLowerCase()}`;
  if (value?.errorValue != null) return `e${value.errorValue.type}`;
  return '';
}

/** Ascending order of group values: numbers, then text, then booleans, errors, blanks last. */
function compareValues(a: ExtendedValue | undefined, b: ExtendedValue | undefined): number {
  const rank = (value: ExtendedValue | undefined) =>
    value?.numberValue != null
      ? 0
      : value?.stringValue != null && value.stringValue !== ''
        ? 1
        : value?.boolValue != null
          ? 2
          : value?.errorValue != null
            ? 3
            : 4;
  const [ra, rb] = [rank(a), rank(b)];
  if (ra !== rb) return ra - rb;
  if (ra === 0) return (a?.numberValue as number) - (b?.numberValue as number);
  if (ra === 1)
    return String(a?.stringValue).localeCompare(String(b?.stringValue), 'en', { sensitivity: 'base' });
  if (ra === 2) return Number(a?.boolValue) - Number(b?.boolValue);
  return 0;
}

function conditionHolds(condition: sheets_v4.Schema$BooleanCondition, value: SourceValue): boolean {
  const given = (condition.values ?? []).map((each) => each.userEnteredValue ?? '');
  const text = formattedValue({ effectiveValue: value.value, numberFormat: value.format }) ?? '';
  const number = value.value?.numberValue;
  const [a, b] = given.map(Number) as [number, number];
  const lower = text.toLowerCase();
  const first = (given[0] ?? '').toLowerCase();
  switch (condition.type) {
    case 'NUMBER_GREATER':
      return number != null && number > a;
    case 'NUMBER_GREATER_THAN_EQ':
      return number != null && number >= a;
    case 'NUMBER_LESS':
      return number != null && number < a;
    case 'NUMBER_LESS_THAN_EQ':
      return number != null && number <= a;
    case 'NUMBER_EQ':
      return number != null && number === a;
    case 'NUMBER_NOT_EQ':
      return number == null || number !== a;
    case 'NUMBER_BETWEEN':
      return number != null && number >= Math.min(a, b) && number <= Math.max(a, b);
    case 'NUMBER_NOT_BETWEEN':
      return number == null || number < Math.min(a, b) || number > Math.max(a, b);
    case 'TEXT_CONTAINS':
      return lower.includes(first);
    case 'TEXT_NOT_CONTAINS':
      return !lower.includes(first);
    case 'TEXT_STARTS_WITH':
      return lower.startsWith(first);
    case 'TEXT_ENDS_WITH':
      return lower.endsWith(first);
    case 'TEXT_EQ':
      return lower === first;
    case 'TEXT_NOT_EQ':
      return lower !== first;
    case 'BLANK':
      return text === '';
    case 'NOT_BLANK':
      return text !== '';
    default:
      return true;
  }
}

const errorResult = (type: string, message: string): FormulaResult => ({
  effectiveValue: { errorValue: { type, message } },
});

/** A summarizeFunction over the values of a group's source rows (Sheets' function of that name). */
function summarize(summary: string, values: readonly SourceValue[]): FormulaResult {
  const numbers = values.flatMap((each) => (each.value?.numberValue != null ? [each.value.numberValue] : []));
  const format = values.find((each) => each.value?.numberValue != null)?.format;
  const number = (result: number, keepFormat = true): FormulaResult => ({
    effectiveValue: { numberValue: result },
    ...(keepFormat && format ? { autoFormat: format } : {}),
  });
  const sum = numbers.reduce((total, each) => total + each, 0);
  const mean = sum / numbers.length;
  const squares = numbers.reduce((total, each) => total + (each - mean) ** 2, 0);
  const divide = 'Function DIVIDE parameter 2 cannot be zero.';
  switch (summary) {
    case 'COUNTA':
      return number(values.filter((each) => groupKey(each.value) !== '').length, false);
    case 'COUNT':
      return number(numbers.length, false);
    case 'COUNTUNIQUE':
      return number(new Set(values.map((each) => groupKey(each.value)).filter(Boolean)).size, false);
    case 'AVERAGE':
      return numbers.length ? number(mean) : errorResult('DIVIDE_BY_ZERO', divide);
    case 'MAX':
      return number(numbers.length ? Math.max(...numbers) : 0);
    case 'MIN':
      return number(numbers.length ? Math.min(...numbers) : 0);
    case 'MEDIAN': {
      if (!numbers.length) return errorResult('NUM', 'MEDIAN has no valid input data.');
      const sorted = [...numbers].sort((x, y) => x - y);
      const middle = Math.floor(sorted.length / 2);
      return number(
        sorted.length % 2
          ? (sorted[middle] as number)
          : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2,
      );
    }
    case 'PRODUCT':
      return number(numbers.length ? numbers.reduce((total, each) => total * each, 1) : 0);
    case 'STDEV':
      return numbers.length > 1
        ? number(Math.sqrt(squares / (numbers.length - 1)))
        : errorResult('DIVIDE_BY_ZERO', divide);
    case 'STDEVP':
      return numbers.length
        ? number(Math.sqrt(squares / numbers.length))
        : errorResult('DIVIDE_BY_ZERO', divide);
    case 'VAR':
      return numbers.length > 1
        ? number(squares / (numbers.length - 1))
        : errorResult('DIVIDE_BY_ZERO', divide);
    case 'VARP':
      return numbers.length ? number(squares / numbers.length) : errorResult('DIVIDE_BY_ZERO', divide);
    default:
      return number(sum);
  }
}

/** One row (or column) of the pivot: a group's values down to `prefix.length` levels, or a total. */
interface Slot {
  prefix: SourceValue[];
  /** `prefix.length` groups set; a total of the groups after them. */
  total: boolean;
}

/**
 * The rows (or columns) of one direction: each distinct combination of the groups' values, in
 * their sort orders, then after the values of a group with `showTotals` that has groups inside it
 * "<value> Total", and at the end "Grand Total" when the outermost group shows totals.
 */
function slotsOf(
  groups: readonly PivotGroup[],
  tuples: SourceValue[][],
  totalOf: (prefix: SourceValue[], valuesIndex: number) => ExtendedValue | undefined,
): Slot[] {
  if (groups.length === 0) return [{ prefix: [], total: false }];
  const sorted = [...tuples].sort((a, b) => {
    for (const [level, group] of groups.entries()) {
      // valueBucket: the group's values ordered by a value's total over each (its buckets ignored).
      const bucket = group.valueBucket;
      const order =
        (bucket
          ? compareValues(
              totalOf(a.slice(0, level + 1), bucket.valuesIndex ?? 0),
              totalOf(b.slice(0, level + 1), bucket.valuesIndex ?? 0),
            )
          : 0) || compareValues(a[level]?.value, b[level]?.value);
      if (order !== 0) return group.sortOrder === 'DESCENDING' ? -order : order;
    }
    return 0;
  });
  const slots: Slot[] = [];
  const same = (a: SourceValue[] | undefined, b: SourceValue[] | undefined, levels: number) =>
    a !== undefined &&
    b !== undefined &&
    a.slice(0, levels).every((each, level) => groupKey(each.value) === groupKey(b[level]?.value));
  for (const [index, tuple] of sorted.entries()) {
    slots.push({ prefix: tuple, total: false });
    const next = sorted[index + 1];
    for (let level = groups.length - 2; level >= 0; level--)
      if (groups[level]?.showTotals && !same(tuple, next, level + 1))
        slots.push({ prefix: tuple.slice(0, level + 1), total: true });
  }
  if (groups[0]?.showTotals) slots.push({ prefix: [], total: true });
  return slots;
}

const text = (value: string): FormulaResult => ({ effectiveValue: { stringValue: value } });
const labelOf = (value: SourceValue): FormulaResult =>
  value.value ? { effectiveValue: value.value, ...(value.format ? { autoFormat: value.format } : {}) } : {};
const totalLabel = (slot: Slot): FormulaResult => {
  const last = slot.prefix.at(-1);
  if (!last) return text('Grand Total');
  return text(`${formattedValue({ effectiveValue: last.value, numberFormat: last.format }) ?? ''} Total`);
};

/**
 * What a pivot table shows, as cells from its anchor (`[row offset, column offset, result]`); an
 * empty list when its source is gone. Read from the effective values of `evaluation`.
 */
export function pivotCells(
  spreadsheet: SpreadsheetModel,
  evaluation: Evaluation,
  pivot: PivotTable,
): Array<[number, number, FormulaResult]> {
  let area: SourceArea;
  try {
    area = sourceArea(spreadsheet, pivot);
  } catch {
    return [];
  }
  const read = (row: number, offset: number): SourceValue => {
    const column = area.startColumn + offset;
    const cell = cellAt(area.sheet, row, column);
    const effective = effectiveCell(evaluation, area.sheetIndex, row, column, cell);
    return { value: effective.effectiveValue, format: effective.numberFormat };
  };
  const width = area.endColumn - area.startColumn;
  const header = (offset: number) =>
    formattedValue(
      effectiveCell(
        evaluation,
        area.sheetIndex,
        area.startRow,
        area.startColumn + offset,
        cellAt(area.sheet, area.startRow, area.startColumn + offset),
      ),
    ) ?? '';
  const rowGroups = pivot.rows ?? [];
  const columnGroups = pivot.columns ?? [];
  const values = pivot.values ?? [];
  const filters = filterSpecsOf(pivot);
  // The source's rows with any value, kept by the filters.
  const kept: number[] = [];
  for (let row = area.startRow + 1; row < area.endRow; row++) {
    let any = false;
    for (let offset = 0; offset < width && !any; offset++) any = read(row, offset).value !== undefined;
    if (!any) continue;
    const visible = filters.every((spec) => {
      const value = read(row, spec.columnOffsetIndex ?? 0);
      const criteria = spec.filterCriteria;
      const shown = criteria?.visibleValues;
      if (
        shown &&
        !shown.includes(formattedValue({ effectiveValue: value.value, numberFormat: value.format }) ?? '')
      )
        return false;
      return criteria?.condition ? conditionHolds(criteria.condition, value) : true;
    });
    if (visible) kept.push(row);
  }
  const tupleOf = (row: number, groups: readonly PivotGroup[]) =>
    groups.map((group) => read(row, group.sourceColumnOffset ?? 0));
  const keyOf = (tuple: readonly SourceValue[]) => tuple.map((each) => groupKey(each.value)).join('\u0000');
  const distinct = (groups: readonly PivotGroup[]) => {
    const found = new Map<string, SourceValue[]>();
    for (const row of kept) {
      const tuple = tupleOf(row, groups);
      const key = keyOf(tuple);
      if (!found.has(key)) found.set(key, tuple);
    }
    return [...found.values()];
  };
  // The source rows of each pair of group prefixes (totals included), found once per row.
  const members = new Map<string, number[]>();
  for (const row of kept) {
    const rowTuple = tupleOf(row, rowGroups);
    const columnTuple = tupleOf(row, columnGroups);
    for (let r = 0; r <= rowGroups.length; r++)
      for (let c = 0; c <= columnGroups.length; c++) {
        const key = `${keyOf(rowTuple.slice(0, r))}|${r}|${keyOf(columnTuple.slice(0, c))}|${c}`;
        const list = members.get(key) ?? [];
        list.push(row);
        members.set(key, list);
      }
  }
  // A group's total of one value, for sorting by value: worked out once per group.
  const totals = new Map<string, ExtendedValue | undefined>();
  const summarized = (key: string, valuesIndex: number) => {
    const at = `${key}#${valuesIndex}`;
    if (totals.has(at)) return totals.get(at);
    const value = values[valuesIndex];
    const rows = members.get(key);
    const offset = value?.sourceColumnOffset ?? 0;
    const total =
      rows && value
        ? summarize(
            value.summarizeFunction ?? 'SUM',
            rows.map((each) => read(each, offset)),
          ).effectiveValue
        : undefined;
    totals.set(at, total);
    return total;
  };
  const rowSlots = slotsOf(rowGroups, distinct(rowGroups), (prefix, index) =>
    summarized(`${keyOf(prefix)}|${prefix.length}||0`, index),
  );
  const columnSlots = slotsOf(columnGroups, distinct(columnGroups), (prefix, index) =>
    summarized(`|0|${keyOf(prefix)}|${prefix.length}`, index),
  );
  const R = rowGroups.length;
  const V = values.length;
  const valueName = (value: sheets_v4.Schema$PivotValue) =>
    value.name || `${value.summarizeFunction ?? 'SUM'} of ${header(value.sourceColumnOffset ?? 0)}`;
  const groupLabel = (group: PivotGroup) => group.label || header(group.sourceColumnOffset ?? 0);
  const cells: Array<[number, number, FormulaResult]> = [];
  const put = (row: number, column: number, result: FormulaResult) => {
    if (result.effectiveValue) cells.push([row, column, result]);
  };
  const C = columnGroups.length;
  const headerRows = C === 0 ? 1 : 1 + C + (V > 1 ? 1 : 0);
  const last = headerRows - 1;
  const columnsPerSlot = Math.max(1, V);
  if (C === 0) for (const [v, value] of values.entries()) put(0, R + v, text(valueName(value)));
  else {
    if (V === 1) put(0, 0, text(valueName(values[0] as sheets_v4.Schema$PivotValue)));
    for (const [level, group] of columnGroups.entries()) put(0, R + level, text(groupLabel(group)));
    columnSlots.forEach((slot, s) => {
      const previous = columnSlots[s - 1];
      const column = R + s * columnsPerSlot;
      if (slot.total) put(1 + Math.max(0, slot.prefix.length - 1), column, totalLabel(slot));
      else
        slot.prefix.forEach((value, level) => {
          const opens =
            !previous ||
            previous.total ||
            keyOf(previous.prefix.slice(0, level + 1)) !== keyOf(slot.prefix.slice(0, level + 1));
          if (opens) put(1 + level, column, labelOf(value));
        });
      if (V > 1) for (const [v, value] of values.entries()) put(last, column + v, text(valueName(value)));
    });
  }
  for (const [level, group] of rowGroups.entries()) put(last, level, text(groupLabel(group)));
  rowSlots.forEach((slot, s) => {
    const row = headerRows + s;
    const previous = rowSlots[s - 1];
    if (slot.total) put(row, Math.max(0, slot.prefix.length - 1), totalLabel(slot));
    else
      slot.prefix.forEach((value, level) => {
        const opens =
          !previous ||
          previous.total ||
          rowGroups[level]?.repeatHeadings ||
          keyOf(previous.prefix.slice(0, level + 1)) !== keyOf(slot.prefix.slice(0, level + 1));
        if (opens) put(row, level, labelOf(value));
      });
    const rowKey = `${keyOf(slot.prefix)}|${slot.prefix.length}`;
    columnSlots.forEach((columnSlot, c) => {
      const rows = members.get(`${rowKey}|${keyOf(columnSlot.prefix)}|${columnSlot.prefix.length}`);
      if (!rows) return;
      values.forEach((value, v) => {
        const offset = value.sourceColumnOffset ?? 0;
        put(
          row,
          R + c * columnsPerSlot + v,
          summarize(
            value.summarizeFunction ?? 'SUM',
            rows.map((each) => read(each, offset)),
          ),
        );
      });
    });
  });
  return cells;
}

interface Anchor {
  sheetIndex: number;
  row: number;
  column: number;
  pivot: PivotTable;
}

function anchorsOf(spreadsheet: SpreadsheetModel): Anchor[] {
  const anchors: Anchor[] = [];
  for (const [sheetIndex, sheet] of spreadsheet.sheets.entries())
    for (const [row, cells] of sheet.rows.entries())
      for (const [column, cell] of (cells ?? []).entries())
        if (cell?.pivotTable) anchors.push({ sheetIndex, row, column, pivot: cell.pivotTable });
  return anchors;
}

const cache = new WeakMap<SpreadsheetModel, { revision: number; evaluation: Evaluation }>();

/**
 * What every cell shows: formula results (formulas.ts) and what pivot tables show. A pivot table
 * whose cells would cover a value is `#REF!` at its anchor and shows nothing else, as an array
 * result in the way of data is; one cut at the grid's edge shows what fits. Formulas see what
 * pivot tables show (they are evaluated again with those values entered); a pivot table reads
 * formula results, though not another pivot table's.
 */
export function evaluateShownCells(spreadsheet: SpreadsheetModel): Evaluation {
  const cached = cache.get(spreadsheet);
  if (cached && cached.revision === spreadsheet.revision) return cached.evaluation;
  const base = evaluateSpreadsheet(spreadsheet);
  const anchors = anchorsOf(spreadsheet);
  if (anchors.length === 0) {
    cache.set(spreadsheet, { revision: spreadsheet.revision, evaluation: base });
    return base;
  }
  const shown = new Map<string, FormulaResult>();
  const positions = new Map<number, Array<readonly [number, number]>>();
  const key = (sheetIndex: number, row: number, column: number) => `${sheetIndex}:${row}:${column}`;
  for (const anchor of anchors) {
    const sheet = spreadsheet.sheets[anchor.sheetIndex] as SheetModel;
    const grid = sheet.properties.gridProperties;
    const cells = pivotCells(spreadsheet, base, anchor.pivot).filter(
      ([r, c]) => anchor.row + r < grid.rowCount && anchor.column + c < grid.columnCount,
    );
    const blocked = cells.find(
      ([r, c]) =>
        (r > 0 || c > 0) &&
        (hasValue(cellAt(sheet, anchor.row + r, anchor.column + c)) ||
          shown.has(key(anchor.sheetIndex, anchor.row + r, anchor.column + c))),
    );
    if (blocked) {
      shown.set(
        key(anchor.sheetIndex, anchor.row, anchor.column),
        errorResult(
          'REF',
          `Pivot table results were not expanded because they would overwrite data in ${formatCell(anchor.row + blocked[0], anchor.column + blocked[1])}.`,
        ),
      );
      continue;
    }
    const list = positions.get(anchor.sheetIndex) ?? [];
    for (const [r, c, result] of cells) {
      shown.set(key(anchor.sheetIndex, anchor.row + r, anchor.column + c), result);
      if (r > 0 || c > 0) list.push([anchor.row + r, anchor.column + c]);
    }
    positions.set(anchor.sheetIndex, list);
  }
  const seen = evaluateSpreadsheet(withShownValues(spreadsheet, shown));
  const evaluation: Evaluation = {
    formulaResult: (sheetIndex, row, column) =>
      shown.get(key(sheetIndex, row, column)) ?? seen.formulaResult(sheetIndex, row, column),
    spilledCells: (sheetIndex) => [
      ...seen.spilledCells(sheetIndex).filter(([row, column]) => !shown.has(key(sheetIndex, row, column))),
      ...(positions.get(sheetIndex) ?? []),
    ],
  };
  cache.set(spreadsheet, { revision: spreadsheet.revision, evaluation });
  return evaluation;
}

/** The spreadsheet as formulas see it: what pivot tables show entered in their empty cells. */
function withShownValues(
  spreadsheet: SpreadsheetModel,
  shown: ReadonlyMap<string, FormulaResult>,
): SpreadsheetModel {
  const sheets = spreadsheet.sheets.map((sheet) => ({
    ...sheet,
    rows: sheet.rows.map((cells) => (cells ? [...cells] : cells)),
  }));
  for (const [at, result] of shown) {
    const [sheetIndex, row, column] = at.split(':').map(Number) as [number, number, number];
    const sheet = sheets[sheetIndex] as SheetModel;
    if (hasValue(cellAt(sheet, row, column)) || !result.effectiveValue) continue;
    sheet.rows[row] ??= [];
    const cells = sheet.rows[row] as Array<CellData | undefined>;
    cells[column] = { ...cells[column], userEnteredValue: result.effectiveValue };
  }
  return { ...spreadsheet, sheets };
}

/**
 * The filters of a pivot table: `filterSpecs`, or the deprecated `criteria` map (source column
 * offset → criteria) when only it is given; "If both fields are specified in an update request,
 * this field [filterSpecs] takes precedence" (PivotTable.criteria).
 */
function filterSpecsOf(pivot: PivotTable): sheets_v4.Schema$PivotFilterSpec[] {
  if (pivot.filterSpecs?.length) return pivot.filterSpecs;
  return Object.entries(pivot.criteria ?? {}).map(([offset, filterCriteria]) => ({
    columnOffsetIndex: Number(offset),
    filterCriteria,
  }));
}

/**
 * A pivot table as spreadsheets.get gives it: "Both criteria and filterSpecs are populated in
 * responses" (PivotTable.criteria), whichever of them was written.
 */
export function pivotTableResource(pivot: PivotTable): PivotTable {
  const resource = structuredClone(pivot);
  const specs = filterSpecsOf(pivot);
  if (specs.length === 0) return resource;
  resource.filterSpecs = structuredClone(specs);
  resource.criteria = Object.fromEntries(
    specs.map((spec) => [String(spec.columnOffsetIndex ?? 0), structuredClone(spec.filterCriteria ?? {})]),
  );
  return resource;
}
