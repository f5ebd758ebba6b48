/**
 * batchUpdate requests that edit cells in place, keeping formulas and formats: copyPaste,
 * cutPaste, autoFill, sortRange, mergeCells, unmergeCells, updateDimensionProperties and
 * autoResizeDimensions. A copied or filled formula has its relative references shifted by the
 * distance it moved, as Google shifts them; a cut formula keeps its references. Problems are
 * thrown as Google's 400s; `applyBatchUpdate` prefixes them with the request's index and kind.
 */
import type { sheets_v4 } from 'googleapis';
import { googleErrors } from '../google-error.ts';
import type { GridBounds } from './a1-notation.ts';
import { gridBounds, sheetById } from './batch-update.ts';
import { effectiveCell } from './cell-values.ts';
import { cellAt, positionsIn, setCell, storedCellsIn } from './grid.ts';
import type { CellData, DimensionMetadata, ExtendedValue, SheetModel, SpreadsheetModel } from './model.ts';
import { evaluateShownCells } from './pivot-tables.ts';
import { shiftFormula } from './shift-formula.ts';

type Response = sheets_v4.Schema$Response;

const problem = (message: string) => googleErrors.badRequest(message);

const height = (bounds: GridBounds) => bounds.endRow - bounds.startRow;
const width = (bounds: GridBounds) => bounds.endColumn - bounds.startColumn;

/** What of a cell a paste type carries (Sheets' PasteType). */
const PASTE_PARTS: Record<
  string,
  { value: 'all' | 'formula' | 'computed' | 'none'; format: boolean; validation: boolean }
> = {
  PASTE_NORMAL: { value: 'formula', format: true, validation: true },
  PASTE_NO_BORDERS: { value: 'formula', format: true, validation: true },
  PASTE_VALUES: { value: 'computed', format: false, validation: false },
  PASTE_FORMULA: { value: 'formula', format: false, validation: false },
  PASTE_FORMAT: { value: 'none', format: true, validation: true },
  PASTE_DATA_VALIDATION: { value: 'none', format: false, validation: true },
};

function pasteParts(pasteType: string | null | undefined) {
  const parts = PASTE_PARTS[pasteType ?? 'PASTE_NORMAL'];
  if (!parts) throw problem(`pasteType ${pasteType} is not supported by the Sheetgate Google emulator.`);
  return parts;
}

/**
 * Formula results read in the middle of a batch: the batch's revision is only set when it ends,
 * so a fractional step keeps the formula cache from answering with the state before the batch.
 */
export function freshResults(spreadsheet: SpreadsheetModel) {
  spreadsheet.revision += 1e-6;
  const evaluation = evaluateShownCells(spreadsheet);
  return (sheet: SheetModel, row: number, column: number, cell: CellData | undefined) =>
    effectiveCell(evaluation, spreadsheet.sheets.indexOf(sheet), row, column, cell).effectiveValue;
}

/** A snapshot of the cells of `bounds`, row-major, taken before anything is written. */
function snapshot(sheet: SheetModel, bounds: GridBounds): Array<Array<CellData | undefined>> {
  return Array.from({ length: height(bounds) }, (_, row) =>
    Array.from({ length: width(bounds) }, (_, column) =>
      structuredClone(cellAt(sheet, bounds.startRow + row, bounds.startColumn + column)),
    ),
  );
}

/** The destination cell after pasting `source` (moved by rows × columns) over `existing`. */
function pastedCell(
  source: CellData | undefined,
  existing: CellData | undefined,
  parts: (typeof PASTE_PARTS)[string],
  shift: { rows: number; columns: number } | undefined,
  computed: ExtendedValue | undefined,
): CellData {
  const next: CellData = { ...(existing ?? {}) };
  if (parts.value !== 'none') {
    let value = source?.userEnteredValue ?? undefined;
    // Values pasted are what the cells show: a formula's result, and in a cell an array formula
    // spilled into (which holds no value of its own) the value spilled there.
    if (parts.value === 'computed' && (value?.formulaValue != null || value == null)) value = computed;
    else if (value?.formulaValue != null && shift)
      value = { formulaValue: shiftFormula(value.formulaValue, shift.rows, shift.columns) };
    if (value && Object.keys(value).length > 0) next.userEnteredValue = structuredClone(value);
    else delete next.userEnteredValue;
    if (parts.value !== 'computed') {
      if (source?.note) next.note = source.note;
      else delete next.note;
    }
  }
  if (parts.format) {
    if (source?.userEnteredFormat) next.userEnteredFormat = structuredClone(source.userEnteredFormat);
    else delete next.userEnteredFormat;
  }
  if (parts.validation) {
    if (source?.dataValidation) next.dataValidation = structuredClone(source.dataValidation);
    else delete next.dataValidation;
  }
  return next;
}

function checkFits(sheet: SheetModel, bounds: GridBounds): void {
  const grid = sheet.properties.gridProperties;
  if (bounds.endRow > grid.rowCount || bounds.endColumn > grid.columnCount) {
    throw problem(
      `The paste would extend past the grid limits. Max rows: ${grid.rowCount}, max columns: ${grid.columnCount}`,
    );
  }
}

export function copyPaste(
  spreadsheet: SpreadsheetModel,
  request: sheets_v4.Schema$CopyPasteRequest,
): Response {
  if (!request.source || !request.destination) throw problem('source and destination are required.');
  if (request.pasteOrientation && request.pasteOrientation !== 'NORMAL')
    throw problem('pasteOrientation TRANSPOSE is not supported by the Sheetgate Google emulator.');
  const parts = pasteParts(request.pasteType);
  const source = gridBounds(spreadsheet, request.source);
  const destination = gridBounds(spreadsheet, request.destination);
  const rows = height(source.bounds);
  const columns = width(source.bounds);
  if (rows === 0 || columns === 0) return {};
  // A destination a multiple of the source's height (width) repeats it; otherwise it is pasted once.
  const across = (span: number, unit: number) => (span > unit && span % unit === 0 ? span / unit : 1);
  const tilesDown = across(height(destination.bounds), rows);
  const tilesAcross = across(width(destination.bounds), columns);
  const target: GridBounds = {
    startRow: destination.bounds.startRow,
    endRow: destination.bounds.startRow + rows * tilesDown,
    startColumn: destination.bounds.startColumn,
    endColumn: destination.bounds.startColumn + columns * tilesAcross,
  };
  checkFits(destination.sheet, target);
  const result = parts.value === 'computed' ? freshResults(spreadsheet) : undefined;
  const cells = snapshot(source.sheet, source.bounds);
  const computed = cells.map((line, row) =>
    line.map((cell, column) =>
      result?.(source.sheet, source.bounds.startRow + row, source.bounds.startColumn + column, cell),
    ),
  );
  for (const [row, column] of positionsIn(target)) {
    const fromRow = (row - target.startRow) % rows;
    const fromColumn = (column - target.startColumn) % columns;
    const shift = {
      rows: row - (source.bounds.startRow + fromRow),
      columns: column - (source.bounds.startColumn + fromColumn),
    };
    const cell = pastedCell(
      cells[fromRow]?.[fromColumn],
      cellAt(destination.sheet, row, column),
      parts,
      shift,
      computed[fromRow]?.[fromColumn],
    );
    setCell(destination.sheet, row, column, cell);
  }
  if (parts.format && parts.value !== 'none')
    copyMerges(source.sheet, source.bounds, destination.sheet, target);
  return {};
}

export function cutPaste(spreadsheet: SpreadsheetModel, request: sheets_v4.Schema$CutPasteRequest): Response {
  if (!request.source || !request.destination) throw problem('source and destination are required.');
  const parts = pasteParts(request.pasteType);
  const source = gridBounds(spreadsheet, request.source);
  const sheet = sheetById(spreadsheet, request.destination.sheetId);
  const target: GridBounds = {
    startRow: request.destination.rowIndex ?? 0,
    endRow: (request.destination.rowIndex ?? 0) + height(source.bounds),
    startColumn: request.destination.columnIndex ?? 0,
    endColumn: (request.destination.columnIndex ?? 0) + width(source.bounds),
  };
  if (target.startRow < 0 || target.startColumn < 0) throw problem('destination indexes must be at least 0.');
  checkFits(sheet, target);
  const result = parts.value === 'computed' ? freshResults(spreadsheet) : undefined;
  const cells = snapshot(source.sheet, source.bounds);
  const computed = cells.map((line, row) =>
    line.map((cell, column) =>
      result?.(source.sheet, source.bounds.startRow + row, source.bounds.startColumn + column, cell),
    ),
  );
  // The source is emptied of what moves, then the cells land; a cut formula keeps its references.
  for (const [row, column] of positionsIn(source.bounds)) {
    setCell(
      source.sheet,
      row,
      column,
      pastedCell(undefined, cellAt(source.sheet, row, column), parts, undefined, undefined),
    );
  }
  for (const [row, column] of positionsIn(target)) {
    const from = cells[row - target.startRow]?.[column - target.startColumn];
    const value = computed[row - target.startRow]?.[column - target.startColumn];
    setCell(sheet, row, column, pastedCell(from, cellAt(sheet, row, column), parts, undefined, value));
  }
  if (parts.format && parts.value !== 'none') {
    const moved = takeMerges(source.sheet, source.bounds);
    placeMerges(
      sheet,
      target,
      moved,
      target.startRow - source.bounds.startRow,
      target.startColumn - source.bounds.startColumn,
    );
  }
  return {};
}

/** A value a series continues: a number, or text ending in a number (`Week 3`). */
function seriesPart(value: ExtendedValue | undefined): { prefix: string; number: number } | undefined {
  if (value?.numberValue != null) return { prefix: '', number: value.numberValue };
  const match = value?.stringValue == null ? null : /^(.*?)(\d+)$/.exec(value.stringValue);
  return match ? { prefix: match[1] as string, number: Number(match[2]) } : undefined;
}

/**
 * One line (a column when filling down) of a fill, at positions relative to the source's first
 * cell (negative before it): the source cells repeat, formulas shifted by how far they moved;
 * numbers (or text ending in a number with one prefix) continue their series by the mean step —
 * one number alone repeats, one text ending in a number counts on by one.
 */
function fillLine(
  source: Array<CellData | undefined>,
  positions: number[],
  shift: (formula: string, moved: number) => string,
): Array<CellData | undefined> {
  const parts = source.map((cell) => seriesPart(cell?.userEnteredValue ?? undefined));
  const prefixes = new Set(parts.map((part) => part?.prefix));
  const series = parts.every((part) => part !== undefined) && prefixes.size === 1 ? parts : undefined;
  const numbers = series?.map((part) => (part as { number: number }).number) ?? [];
  const isText = source[0]?.userEnteredValue?.stringValue != null;
  let increment = 0;
  if (numbers.length > 1)
    increment = ((numbers.at(-1) as number) - (numbers[0] as number)) / (numbers.length - 1);
  else if (isText) increment = 1;
  const n = source.length;
  return positions.map((position) => {
    const from = ((position % n) + n) % n;
    const cell = structuredClone(source[from]);
    if (cell?.userEnteredValue?.formulaValue != null) {
      cell.userEnteredValue = { formulaValue: shift(cell.userEnteredValue.formulaValue, position - from) };
    } else if (series && cell) {
      const next = Number(((numbers[0] as number) + increment * position).toPrecision(15));
      cell.userEnteredValue = isText
        ? { stringValue: `${series[0]?.prefix ?? ''}${next}` }
        : { numberValue: next };
    }
    return cell;
  });
}

export function autoFill(spreadsheet: SpreadsheetModel, request: sheets_v4.Schema$AutoFillRequest): Response {
  let sheet: SheetModel;
  let source: GridBounds;
  let rowsDirection: boolean;
  let length: number;
  let step: 1 | -1 = 1;
  if (request.sourceAndDestination) {
    const { source: sourceRange, dimension, fillLength } = request.sourceAndDestination;
    if (dimension !== 'ROWS' && dimension !== 'COLUMNS') throw problem('dimension must be ROWS or COLUMNS.');
    ({ sheet, bounds: source } = gridBounds(spreadsheet, sourceRange ?? undefined));
    rowsDirection = dimension === 'ROWS';
    if (!fillLength) throw problem('fillLength must be non-zero.');
    step = fillLength > 0 ? 1 : -1;
    length = Math.abs(fillLength);
  } else if (request.range) {
    // The rows (or columns) holding data at the range's start are the source; the rest is filled.
    const range = gridBounds(spreadsheet, request.range);
    sheet = range.sheet;
    let filledRows = 0;
    while (
      filledRows < height(range.bounds) &&
      lineHasValue(sheet, range.bounds, range.bounds.startRow + filledRows, true)
    )
      filledRows++;
    rowsDirection = filledRows > 0 && filledRows < height(range.bounds);
    let filledColumns = 0;
    if (!rowsDirection) {
      while (
        filledColumns < width(range.bounds) &&
        lineHasValue(sheet, range.bounds, range.bounds.startColumn + filledColumns, false)
      )
        filledColumns++;
      if (filledColumns === 0 || filledColumns === width(range.bounds)) return {};
    }
    source = rowsDirection
      ? { ...range.bounds, endRow: range.bounds.startRow + filledRows }
      : { ...range.bounds, endColumn: range.bounds.startColumn + filledColumns };
    length = rowsDirection ? height(range.bounds) - filledRows : width(range.bounds) - filledColumns;
  } else throw problem('Either range or sourceAndDestination must be set.');
  const lines = rowsDirection ? width(source) : height(source);
  const sourceLength = rowsDirection ? height(source) : width(source);
  if (sourceLength === 0 || lines === 0) throw problem('The source range must not be empty.');
  const start = rowsDirection ? source.startRow : source.startColumn;
  const first = step === 1 ? start + sourceLength : start - length;
  if (first < 0) throw problem('The fill would extend before the first row or column.');
  checkFits(
    sheet,
    rowsDirection
      ? { ...source, startRow: first, endRow: first + length }
      : { ...source, startColumn: first, endColumn: first + length },
  );
  const positions = Array.from({ length }, (_, index) => (step === 1 ? sourceLength + index : -1 - index));
  const shift = (formula: string, moved: number) =>
    rowsDirection ? shiftFormula(formula, moved, 0) : shiftFormula(formula, 0, moved);
  for (let line = 0; line < lines; line++) {
    const at = (offset: number): [number, number] =>
      rowsDirection ? [start + offset, source.startColumn + line] : [source.startRow + line, start + offset];
    const cells = Array.from({ length: sourceLength }, (_, index) => cellAt(sheet, ...at(index)));
    const filled = fillLine(cells, positions, shift);
    for (const [index, cell] of filled.entries()) setCell(sheet, ...at(positions[index] as number), cell);
  }
  return {};
}

function lineHasValue(sheet: SheetModel, bounds: GridBounds, index: number, row: boolean): boolean {
  const line = row
    ? { ...bounds, startRow: index, endRow: index + 1 }
    : { ...bounds, startColumn: index, endColumn: index + 1 };
  for (const [, , cell] of storedCellsIn(sheet, line)) if (cell.userEnteredValue) return true;
  return false;
}

/** Sheets' sort order: numbers, then text (ignoring case), then booleans; blank cells always last. */
function sortKey(value: ExtendedValue | undefined): [rank: number, key: number | string] {
  if (value?.numberValue != null) return [0, value.numberValue];
  if (value?.stringValue != null && value.stringValue !== '') return [1, value.stringValue.toLowerCase()];
  if (value?.boolValue != null) return [2, value.boolValue ? 1 : 0];
  if (value?.errorValue != null) return [3, 0];
  return [4, 0];
}

export function sortRange(
  spreadsheet: SpreadsheetModel,
  request: sheets_v4.Schema$SortRangeRequest,
): Response {
  const { sheet, bounds } = gridBounds(spreadsheet, request.range ?? undefined);
  const specs = request.sortSpecs ?? [];
  if (specs.length === 0) throw problem('At least one sort spec is required.');
  for (const spec of specs) {
    const column = spec.dimensionIndex ?? 0;
    if (column < bounds.startColumn || column >= bounds.endColumn)
      throw problem(`sortSpecs dimensionIndex ${column} is outside the range being sorted.`);
  }
  const result = freshResults(spreadsheet);
  const rows = Array.from({ length: height(bounds) }, (_, offset) => {
    const row = bounds.startRow + offset;
    return {
      row,
      keys: specs.map((spec) =>
        sortKey(result(sheet, row, spec.dimensionIndex ?? 0, cellAt(sheet, row, spec.dimensionIndex ?? 0))),
      ),
    };
  });
  rows.sort((a, b) => {
    for (const [index, spec] of specs.entries()) {
      const [rankA, keyA] = a.keys[index] as [number, number | string];
      const [rankB, keyB] = b.keys[index] as [number, number | string];
      if (rankA === 4 || rankB === 4) {
        if (rankA !== rankB) return rankA === 4 ? 1 : -1;
        continue;
      }
      const order = rankA !== rankB ? rankA - rankB : keyA < keyB ? -1 : keyA > keyB ? 1 : 0;
      if (order !== 0) return spec.sortOrder === 'DESCENDING' ? -order : order;
    }
    return a.row - b.row;
  });
  const cells = snapshot(sheet, bounds);
  for (const [offset, { row: from }] of rows.entries()) {
    const row = bounds.startRow + offset;
    for (let column = bounds.startColumn; column < bounds.endColumn; column++) {
      const cell = structuredClone(cells[from - bounds.startRow]?.[column - bounds.startColumn]);
      // A moved row's relative references move with it, as when it is copied.
      if (cell?.userEnteredValue?.formulaValue != null && row !== from)
        cell.userEnteredValue = {
          formulaValue: shiftFormula(cell.userEnteredValue.formulaValue, row - from, 0),
        };
      setCell(sheet, row, column, cell);
    }
  }
  return {};
}

const overlaps = (a: GridBounds, b: GridBounds) =>
  a.startRow < b.endRow &&
  b.startRow < a.endRow &&
  a.startColumn < b.endColumn &&
  b.startColumn < a.endColumn;
const inside = (inner: GridBounds, outer: GridBounds) =>
  inner.startRow >= outer.startRow &&
  inner.endRow <= outer.endRow &&
  inner.startColumn >= outer.startColumn &&
  inner.endColumn <= outer.endColumn;

export function mergeCells(
  spreadsheet: SpreadsheetModel,
  request: sheets_v4.Schema$MergeCellsRequest,
): Response {
  const { sheet, bounds } = gridBounds(spreadsheet, request.range ?? undefined);
  const type = request.mergeType ?? 'MERGE_ALL';
  const merges: GridBounds[] = [];
  if (type === 'MERGE_ALL') merges.push(bounds);
  else if (type === 'MERGE_COLUMNS') {
    for (let column = bounds.startColumn; column < bounds.endColumn; column++)
      merges.push({ ...bounds, startColumn: column, endColumn: column + 1 });
  } else if (type === 'MERGE_ROWS') {
    for (let row = bounds.startRow; row < bounds.endRow; row++)
      merges.push({ ...bounds, startRow: row, endRow: row + 1 });
  } else throw problem(`Invalid mergeType: ${type}`);
  if (merges.some((merge) => height(merge) * width(merge) < 2))
    throw problem('Must merge at least two cells.');
  const existing = sheet.merges ?? [];
  if (existing.some((merge) => overlaps(merge, bounds) && !inside(merge, bounds)))
    throw problem("You can't merge cells that partially overlap an existing merge.");
  sheet.merges = [...existing.filter((merge) => !inside(merge, bounds)), ...merges];
  // A merge keeps only its top-left cell's value.
  for (const merge of merges) {
    for (const [row, column, cell] of [...storedCellsIn(sheet, merge)]) {
      if (row === merge.startRow && column === merge.startColumn) continue;
      const { userEnteredValue: _dropped, ...rest } = cell;
      setCell(sheet, row, column, rest);
    }
  }
  return {};
}

export function unmergeCells(
  spreadsheet: SpreadsheetModel,
  request: sheets_v4.Schema$UnmergeCellsRequest,
): Response {
  const { sheet, bounds } = gridBounds(spreadsheet, request.range ?? undefined);
  if (sheet.merges) sheet.merges = sheet.merges.filter((merge) => !overlaps(merge, bounds));
  return {};
}

/** Removes and answers the merges wholly inside `bounds`. */
function takeMerges(sheet: SheetModel, bounds: GridBounds): GridBounds[] {
  const taken = (sheet.merges ?? []).filter((merge) => inside(merge, bounds));
  if (taken.length > 0) sheet.merges = (sheet.merges ?? []).filter((merge) => !taken.includes(merge));
  return taken;
}

/** Puts `merges` moved by rows × columns on `sheet`, replacing any merge they overlap in `target`. */
function placeMerges(
  sheet: SheetModel,
  target: GridBounds,
  merges: GridBounds[],
  rows: number,
  columns: number,
): void {
  const kept = (sheet.merges ?? []).filter((merge) => !overlaps(merge, target));
  const moved = merges.map((merge) => ({
    startRow: merge.startRow + rows,
    endRow: merge.endRow + rows,
    startColumn: merge.startColumn + columns,
    endColumn: merge.endColumn + columns,
  }));
  if (kept.length > 0 || moved.length > 0) sheet.merges = [...kept, ...moved];
}

/** Copies the merges inside the source to each tile of the target. */
function copyMerges(from: SheetModel, source: GridBounds, to: SheetModel, target: GridBounds): void {
  const merges = (from.merges ?? []).filter((merge) => inside(merge, source));
  const tiles: GridBounds[] = [];
  for (let row = target.startRow; row < target.endRow; row += height(source))
    for (let column = target.startColumn; column < target.endColumn; column += width(source))
      tiles.push(
        ...merges.map((merge) => ({
          startRow: merge.startRow - source.startRow + row,
          endRow: merge.endRow - source.startRow + row,
          startColumn: merge.startColumn - source.startColumn + column,
          endColumn: merge.endColumn - source.startColumn + column,
        })),
      );
  placeMerges(to, target, tiles, 0, 0);
}

function dimensionRange(spreadsheet: SpreadsheetModel, range: sheets_v4.Schema$DimensionRange | undefined) {
  if (!range) throw problem('range is required.');
  const sheet = sheetById(spreadsheet, range.sheetId);
  if (range.dimension !== 'ROWS' && range.dimension !== 'COLUMNS')
    throw problem('dimension must be ROWS or COLUMNS.');
  const rows = range.dimension === 'ROWS';
  const grid = sheet.properties.gridProperties;
  const count = rows ? grid.rowCount : grid.columnCount;
  const start = range.startIndex ?? 0;
  const end = range.endIndex ?? count;
  if (start < 0 || end <= start)
    throw problem(`Invalid dimension range: startIndex ${start}, endIndex ${end}.`);
  if (end > count)
    throw problem(
      `The ${rows ? 'row' : 'column'} index ${end - 1} is out of bounds: the sheet has ${count} ${rows ? 'rows' : 'columns'}.`,
    );
  if (rows) sheet.rowMetadata ??= [];
  else sheet.columnMetadata ??= [];
  const metadata = (rows ? sheet.rowMetadata : sheet.columnMetadata) as DimensionMetadata[];
  return { sheet, rows, start, end, metadata };
}

export function updateDimensionProperties(
  spreadsheet: SpreadsheetModel,
  request: sheets_v4.Schema$UpdateDimensionPropertiesRequest,
): Response {
  if (!request.fields) throw problem("At least one field must be updated, but 'fields' is empty.");
  const fields = request.fields.split(',').map((field) => field.trim());
  const unknown = fields.find((field) => field !== 'pixelSize' && field !== 'hiddenByUser' && field !== '*');
  if (unknown) throw problem(`The field ${unknown} is not supported by the Sheetgate Google emulator.`);
  const { start, end, metadata } = dimensionRange(spreadsheet, request.range ?? undefined);
  const properties = request.properties ?? {};
  const size = properties.pixelSize;
  if (fields.includes('pixelSize') || fields.includes('*')) {
    if (size == null || size < 0) throw problem('pixelSize must be at least 0.');
  }
  for (let index = start; index < end; index++) {
    const entry = { ...(metadata[index] ?? {}) };
    if (fields.includes('pixelSize') || fields.includes('*')) entry.pixelSize = size as number;
    if (fields.includes('hiddenByUser') || fields.includes('*'))
      entry.hiddenByUser = properties.hiddenByUser === true;
    metadata[index] = entry;
  }
  return {};
}

export function autoResizeDimensions(
  spreadsheet: SpreadsheetModel,
  request: sheets_v4.Schema$AutoResizeDimensionsRequest,
): Response {
  const { sheet, rows, start, end, metadata } = dimensionRange(spreadsheet, request.dimensions ?? undefined);
  const result = freshResults(spreadsheet);
  for (let index = start; index < end; index++) {
    // About 7 pixels a character of the longest value, plus padding; a row fits one line of text.
    let longest = 0;
    const line = rows
      ? { startRow: index, endRow: index + 1, startColumn: 0, endColumn: Infinity }
      : { startRow: 0, endRow: Infinity, startColumn: index, endColumn: index + 1 };
    for (const [row, column, cell] of storedCellsIn(sheet, line)) {
      const value = result(sheet, row, column, cell);
      const text = value ? String(Object.values(value)[0] ?? '') : '';
      longest = Math.max(longest, text.length);
    }
    metadata[index] = { ...(metadata[index] ?? {}), pixelSize: rows ? 21 : Math.max(7 * longest + 10, 21) };
  }
  return {};
}
