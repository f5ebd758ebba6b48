/**
 * Formula results, computed with HyperFormula under its GPLv3 option (licence key `gpl-v3`), which
 * makes this package GPL-3.0-only: acceptable because the emulator is a development and test tool,
 * never part of a production image (README.md, "Licence"). Its function
 * set is Excel's, which covers the common Sheets functions (SUM, AVERAGE, COUNT, COUNTA, MIN, MAX,
 * IF, CONCATENATE, `&`, ROUND, DATE, SORT, UNIQUE, FILTER, ARRAYFORMULA, …); Sheets functions it
 * lacks or defines as Excel does are added in sheets-functions.ts (QUERY, SORT, SORTN, FILTER, …);
 * other Sheets-only functions (GOOGLEFINANCE, …) evaluate to `#NAME?`.
 */
import { createRequire } from 'node:module';
import type { CellValue, ConfigParams, DetailedCellError, HyperFormula } from 'hyperformula';
import { formatCell } from './a1-notation.ts';
import { argumentCountMessage } from './argument-count.ts';
import { stackArrayLiterals } from './array-literals.ts';
import { type EngineInput, releaseEngine, syncedEngine, type TabInput } from './formula-engine.ts';
import { dataRowEnd, hasValue } from './grid.ts';
import { repairHyperFormula } from './hyperformula-fixes.ts';
import { withImportOrigin } from './import-range.ts';
import { expandLet } from './let-expressions.ts';
import type { ExtendedValue, NumberFormat, SheetModel, SpreadsheetModel } from './model.ts';
import { closeOpenRanges, type TabExtent } from './open-ranges.ts';
import { registerSheetsArrayFunctions } from './sheets-array-functions.ts';
import { registerSheetsFunctions } from './sheets-functions.ts';
import { registerSheetsTextFunctions } from './sheets-text-functions.ts';

export interface FormulaResult {
  effectiveValue?: ExtendedValue;
  /** The format Sheets would pick automatically for the result (a DATE() gives a date). */
  autoFormat?: NumberFormat;
}

export interface Evaluation {
  /**
   * The result of the formula at a position, or the value an array result spilled there;
   * undefined for other cells.
   */
  formulaResult(sheetIndex: number, row: number, column: number): FormulaResult | undefined;
  /** The positions of a tab that hold spilled values and no formula. */
  spilledCells(sheetIndex: number): ReadonlyArray<readonly [row: number, column: number]>;
}

/**
 * HyperFormula, loaded on the first formula: its modules would add to every emulator start's CPU
 * (`pnpm start`, docs/design.md §10). Required (its CommonJS build), as
 * evaluation is synchronous.
 */
let hyperFormula: typeof import('hyperformula') | undefined;
function loadHyperFormula(): typeof import('hyperformula') {
  if (!hyperFormula) {
    hyperFormula = createRequire(import.meta.url)('hyperformula') as typeof import('hyperformula');
    repairHyperFormula();
    registerSheetsFunctions(hyperFormula);
    registerSheetsTextFunctions(hyperFormula);
    registerSheetsArrayFunctions(hyperFormula);
  }
  return hyperFormula;
}

const cache = new WeakMap<SpreadsheetModel, { revision: number; evaluation: Evaluation }>();

export function evaluateSpreadsheet(spreadsheet: SpreadsheetModel): Evaluation {
  const cached = cache.get(spreadsheet);
  if (cached && cached.revision === spreadsheet.revision) return cached.evaluation;
  const evaluation = computeEvaluation(spreadsheet);
  cache.set(spreadsheet, { revision: spreadsheet.revision, evaluation });
  return evaluation;
}

function computeEvaluation(spreadsheet: SpreadsheetModel): Evaluation {
  const formulaCells: Array<[sheetIndex: number, row: number, column: number, engineText: string]> = [];
  const tabs: TabInput[] = [];
  const extents = new Map<string, TabExtent>();
  for (const sheet of spreadsheet.sheets) {
    const grid = sheet.properties.gridProperties;
    extents.set(sheet.properties.title.toLowerCase(), { rows: grid.rowCount, columns: grid.columnCount });
  }
  for (const [sheetIndex, sheet] of spreadsheet.sheets.entries()) {
    const own = extents.get(sheet.properties.title.toLowerCase());
    // A tab the spreadsheet lacks is closed as this one, for the engine to report it unresolved.
    const extentOf = (name: string | undefined) =>
      (name === undefined ? undefined : extents.get(name.toLowerCase())) ?? own;
    const rowEnd = dataRowEnd(sheet);
    const data: TabInput = [];
    for (let row = 0; row < rowEnd; row++) {
      const cells = sheet.rows[row] ?? [];
      const values: EngineInput[] = [];
      for (let column = 0; column < cells.length; column++) {
        const value = cells[column]?.userEnteredValue;
        if (value?.formulaValue != null) {
          const written = withImportOrigin(value.formulaValue, spreadsheet.spreadsheetId);
          const engineText = rangeAsArray(
            firstRowOrColumn(engineFormula(expandLet(closeOpenRanges(written, extentOf)))),
          );
          formulaCells.push([sheetIndex, row, column, engineText]);
          values.push(engineText);
        } else values.push(engineInput(value));
      }
      data.push(values);
    }
    tabs.push(data);
  }
  const results = new Map<string, FormulaResult>();
  const spilled = new Map<number, Array<readonly [number, number]>>();
  const titles = new Set(spreadsheet.sheets.map((sheet) => sheet.properties.title.toLowerCase()));
  if (formulaCells.length === 0) releaseEngine(spreadsheet.spreadsheetId);
  else {
    const engine = syncedEngine(
      spreadsheet.spreadsheetId,
      spreadsheet.sheets.map((sheet) => sheet.properties.title),
      tabs,
      (sheets, config) =>
        guardedBuild(sheets, {
          ...config,
          licenseKey: 'gpl-v3',
          // Sheets evaluates ranges in array arithmetic wherever a function takes arrays, as in
          // SUMPRODUCT((E2:E41="no")*(D2:D41<DATE(2026,12,7))).
          useArrayArithmetic: true,
          // An index of each column's values for exact VLOOKUP, MATCH and XLOOKUP: without it each
          // key scans the column, and ARRAYFORMULA(VLOOKUP(A2:A, Other!A:B, 2, FALSE)) over a long
          // tab grows with the square of its rows.
          useColumnIndex: true,
        }),
    );
    for (const [sheetIndex, row, column, engineText] of formulaCells) {
      const sheet = spreadsheet.sheets[sheetIndex] as SheetModel;
      const sheetId = engine.getSheetId(sheet.properties.title);
      if (sheetId === undefined) continue;
      const formula = sheet.rows[row]?.[column]?.userEnteredValue?.formulaValue ?? '';
      const cells = readFormulaGuarded(
        engine,
        { sheet: sheetId, row, col: column },
        engineText,
        sheet,
        (error) => googleMessage(error, formula, titles),
      );
      for (const [offset, [r, c, result]] of cells.entries()) {
        const at = key(sheetIndex, row + r, column + c);
        if (offset === 0) results.set(at, result);
        else if (!results.has(at) && result.effectiveValue) {
          results.set(at, result);
          const positions = spilled.get(sheetIndex) ?? [];
          positions.push([row + r, column + c]);
          spilled.set(sheetIndex, positions);
        }
      }
    }
  }
  return {
    formulaResult: (sheetIndex, row, column) => results.get(key(sheetIndex, row, column)),
    spilledCells: (sheetIndex) => spilled.get(sheetIndex) ?? [],
  };
}

type Address = { sheet: number; row: number; col: number };

/**
 * What an engine holds in place of a formula it refuses: Sheets' `#ERROR!`, "Formula parse error."
 * (toResult), as for a formula it cannot read.
 */
const REFUSED_FORMULA = '=#ERROR!';

/**
 * An engine built from `sheets`, in which no formula can stop the build: HyperFormula sizes and
 * evaluates every formula while building, and one that throws there (its own fault or a plugin's,
 * past the guard of hyperformula-fixes.ts) would fail the build and with it every request on the
 * spreadsheet. The formula to blame is found by building with the first so many formulas alone,
 * halving the count, and is held as REFUSED_FORMULA; then the build is made again. The same cells
 * always come to the same engine, so the live one (formula-engine.ts) stays equal to a fresh build.
 */
function guardedBuild(sheets: Record<string, TabInput>, config: Partial<ConfigParams>): HyperFormula {
  const { HyperFormula } = loadHyperFormula();
  try {
    return HyperFormula.buildFromSheets(sheets, config);
  } catch {
    // A formula threw while the engine was built (the cells copied only then): found below.
  }
  const formulas: Array<[title: string, row: number, column: number]> = [];
  for (const [title, rows] of Object.entries(sheets))
    for (const [row, cells] of rows.entries())
      for (const [column, value] of cells.entries())
        if (isFormula(value)) formulas.push([title, row, column]);
  const refused = new Set<number>();
  /** `sheets` with the formulas from `kept` on left out, and those refused held as such. */
  const input = (kept: number): Record<string, TabInput> => {
    const copy: Record<string, TabInput> = {};
    for (const [title, rows] of Object.entries(sheets)) copy[title] = rows.map((cells) => [...cells]);
    for (const [index, [title, row, column]] of formulas.entries()) {
      const cells = copy[title]?.[row] as EngineInput[];
      if (refused.has(index)) cells[column] = REFUSED_FORMULA;
      else if (index >= kept) cells[column] = null;
    }
    return copy;
  };
  const builds = (kept: number): boolean => {
    try {
      HyperFormula.buildFromSheets(input(kept), config).destroy();
      return true;
    } catch {
      return false;
    }
  };
  for (;;) {
    try {
      return HyperFormula.buildFromSheets(input(formulas.length), config);
    } catch (error) {
      // A build that fails with no formula to blame fails as it would have.
      if (!builds(0)) throw error;
      let good = 0;
      let bad = formulas.length;
      while (bad - good > 1) {
        const middle = Math.floor((good + bad) / 2);
        if (builds(middle)) good = middle;
        else bad = middle;
      }
      if (refused.has(bad - 1)) throw error;
      refused.add(bad - 1);
    }
  }
}

function isFormula(value: EngineInput): value is string {
  return typeof value === 'string' && value.startsWith('=');
}

/** readFormula, where reading a result that throws shows `#ERROR!` in the formula's cell alone. */
function readFormulaGuarded(...args: Parameters<typeof readFormula>): ReturnType<typeof readFormula> {
  try {
    return readFormula(...args);
  } catch {
    return [[0, 0, { effectiveValue: { errorValue: { type: 'ERROR', message: 'Formula parse error.' } } }]];
  }
}

/**
 * A formula's result, then the values its array result spills into the cells below and right
 * (offsets from the formula's cell), cut at the tab's grid. Google's ARRAYFORMULA help
 * (https://support.google.com/docs/answer/3093275): "Many array formulas will be automatically
 * expanded into neighboring cells"; the cells filled hold values, not formulas.
 */
function readFormula(
  engine: HyperFormula,
  address: Address,
  engineText: string,
  sheet: SheetModel,
  messageOf: (error: DetailedCellError) => string,
): Array<[row: number, column: number, FormulaResult]> {
  const value = engine.getCellValue(address);
  const grid = sheet.properties.gridProperties;
  const rows = grid.rowCount - address.row;
  const columns = grid.columnCount - address.col;
  if (!(value instanceof loadHyperFormula().DetailedCellError && value.type === 'SPILL')) {
    const cells: Array<[number, number, FormulaResult]> = [
      [0, 0, toResult(value, engine.getCellValueDetailedType(address), messageOf)],
    ];
    // An array formula's error fills every cell of its predicted size in HyperFormula; Sheets
    // shows it in the formula's cell alone.
    if (value instanceof loadHyperFormula().DetailedCellError) return cells;
    const array = engine.dependencyGraph.arrayMapping.getArrayByCorner(address);
    for (let r = 0; r < Math.min(array?.height ?? 0, rows); r++)
      for (let c = 0; c < Math.min(array?.width ?? 0, columns); c++) {
        if (r === 0 && c === 0) continue;
        const at = { ...address, row: address.row + r, col: address.col + c };
        cells.push([r, c, toResult(engine.getCellValue(at), engine.getCellValueDetailedType(at), messageOf)]);
      }
    return cells;
  }
  // HyperFormula sizes an array before computing it (a UNIQUE as large as its input) and reports
  // data anywhere in that size as in the way; Sheets minds only the result's own cells.
  const array = engine.calculateFormula(engineText, address.sheet);
  if (!Array.isArray(array)) return [[0, 0, toResult(array, 'NUMBER_RAW', messageOf)]];
  const shown = array.slice(0, rows).map((line) => line.slice(0, columns));
  const blocked = blockingCell(shown, (r, c) => hasValue(sheet.rows[address.row + r]?.[address.col + c]));
  if (blocked) return [[0, 0, spillError(formatCell(address.row + blocked[0], address.col + blocked[1]))]];
  return shown.flatMap((line, r) =>
    line.map((cellValue, c): [number, number, FormulaResult] => [
      r,
      c,
      toResult(cellValue, 'NUMBER_RAW', messageOf),
    ]),
  );
}

/** The first cell of an array result, past its corner, that `occupied` says holds data. */
function blockingCell(
  array: unknown[][],
  occupied: (row: number, column: number) => boolean,
): [number, number] | undefined {
  for (const [row, line] of array.entries())
    for (let column = 0; column < line.length; column++) {
      if ((row > 0 || column > 0) && occupied(row, column)) return [row, column];
    }
  return undefined;
}

/**
 * An array result with data in its way: `#REF!` in the formula's cell, with the message Sheets
 * shows for it, and none of the other cells filled.
 */
function spillError(cell: string): FormulaResult {
  return {
    effectiveValue: {
      errorValue: {
        type: 'REF',
        message: `Array result was not expanded because it would overwrite data in ${cell}.`,
      },
    },
  };
}

function key(sheetIndex: number, row: number, column: number): string {
  return `${sheetIndex}:${row}:${column}`;
}

function engineInput(value: ExtendedValue | undefined): EngineInput {
  if (!value) return null;
  if (value.numberValue != null) return value.numberValue;
  if (value.boolValue != null) return value.boolValue;
  // HyperFormula would parse "12" or "1/2/2024" in a text cell; a leading apostrophe keeps it text.
  if (value.stringValue != null) return `'${value.stringValue}`;
  if (value.errorValue != null) return '=NA()';
  return null;
}

const BARE_RANGE =
  /^=\s*((?:'(?:[^']|'')*'|[A-Za-z_][\w.]*)!)?\$?[A-Za-z]{1,3}\$?\d+:\$?[A-Za-z]{1,3}\$?\d+\s*$/;

/**
 * A formula that is only a range (`=Orders!A1:C`) spills the range's values in Sheets (Google's
 * ARRAYFORMULA help, https://support.google.com/docs/answer/3093275: "array_formula - A range,
 * …"); HyperFormula takes a range only as an argument, and VSTACK of one range gives it back.
 */
function rangeAsArray(formula: string): string {
  return BARE_RANGE.test(formula) ? `=VSTACK(${formula.slice(1).trim()})` : formula;
}

const ROW_OR_COLUMN_OF_RANGE = /^=\s*(ROW|COLUMN)\s*\(\s*([^(),"]+:[^(),"]+)\)\s*$/i;

/**
 * ROW and COLUMN of a range number each row or column of it where arrays are read
 * (sheets-array-functions.ts); a formula that is only `=ROW(A2:A40)` shows the first number in
 * Sheets, not a column of them (https://support.google.com/docs/answer/3093316).
 */
function firstRowOrColumn(formula: string): string {
  const match = ROW_OR_COLUMN_OF_RANGE.exec(formula);
  return match ? `=INDEX(${match[1]}(${match[2]}), 1, 1)` : formula;
}

/**
 * Sheets accepts bare TRUE and FALSE in formulas; HyperFormula wants TRUE() and FALSE(). Sheets
 * also reads number literals with an upper-case exponent, and two quotes inside a string as one
 * (`TEXT(A1, "0"" units""")`, Google's TEXT help: https://support.google.com/docs/answer/3094139),
 * which HyperFormula cannot parse: such a string is joined around CHAR(34) instead. An array
 * literal holding a function call is written as HSTACK and VSTACK (array-literals.ts).
 */
export function engineFormula(formula: string): string {
  const translated = formula
    .split(/("(?:[^"]|"")*"|'(?:[^']|'')*')/)
    .map((part, index) =>
      index % 2 === 1
        ? /^".*"".*"$/s.test(part)
          ? `(${part
              .slice(1, -1)
              .split('""')
              .map((piece) => `"${piece}"`)
              .join('&CHAR(34)&')})`
          : part
        : part
            .replace(/\b(TRUE|FALSE)\b(?!\s*[(!])/gi, (word) => `${word.toUpperCase()}()`)
            // HyperFormula reads an exponent only after a lower-case `e` (`1e+99`); Sheets takes `1E+99`.
            .replace(/(?<![\w$.])(\d+(?:\.\d*)?|\.\d+)E(?=[+-]?\d)/g, '$1e'),
    )
    .join('');
  return stackArrayLiterals(translated);
}

const ERROR_TYPES: Record<string, { type: string; text: string; message?: string }> = {
  DIV_BY_ZERO: {
    type: 'DIVIDE_BY_ZERO',
    text: '#DIV/0!',
    message: 'Function DIVIDE parameter 2 cannot be zero.',
  },
  NAME: { type: 'NAME', text: '#NAME?' },
  REF: { type: 'REF', text: '#REF!' },
  VALUE: { type: 'VALUE', text: '#VALUE!' },
  NUM: { type: 'NUM', text: '#NUM!' },
  NA: { type: 'N_A', text: '#N/A' },
  ERROR: { type: 'ERROR', text: '#ERROR!', message: 'Formula parse error.' },
  CYCLE: {
    type: 'REF',
    text: '#REF!',
    message: 'Circular dependency detected. To resolve with iterative calculation, see File > Settings.',
  },
  SPILL: { type: 'REF', text: '#REF!' },
  LIC: { type: 'ERROR', text: '#ERROR!' },
};

/** The text Sheets shows for an ErrorValue type (`DIVIDE_BY_ZERO` → `#DIV/0!`). */
export function errorText(type: string | null | undefined): string {
  for (const error of Object.values(ERROR_TYPES)) if (error.type === type) return error.text;
  return '#ERROR!';
}

function toResult(
  value: CellValue,
  detailedType: string,
  messageOf: (error: DetailedCellError) => string,
): FormulaResult {
  if (value instanceof loadHyperFormula().DetailedCellError) {
    const error = ERROR_TYPES[value.type] ?? { type: 'ERROR', text: '#ERROR!' };
    // A function of sheets-functions.ts gives its own words (AVERAGEIFS's divide by zero).
    const own = error.type === 'DIVIDE_BY_ZERO' && value.message ? value.message : undefined;
    return {
      effectiveValue: { errorValue: { type: error.type, message: own ?? error.message ?? messageOf(value) } },
    };
  }
  if (typeof value === 'number')
    return { effectiveValue: { numberValue: value }, ...autoFormat(detailedType) };
  if (typeof value === 'boolean') return { effectiveValue: { boolValue: value } };
  if (typeof value === 'string') return { effectiveValue: { stringValue: value } };
  return {};
}

/**
 * The message Google gives in a formula cell's `effectiveValue.errorValue` (Sheets API ErrorValue:
 * "a message with more information about the error (in the spreadsheet's locale)",
 * https://developers.google.com/workspace/sheets/api/reference/rest/v4/spreadsheets/other#ErrorValue).
 * The reference gives no wording; these are the en_US messages Sheets shows, where HyperFormula's
 * differ. A reference to a tab that does not exist is `#REF!` "Unresolved sheet name 'Nope'.",
 * naming the tab, where HyperFormula says only that a sheet does not exist.
 */
function googleMessage(error: DetailedCellError, formula: string, titles: ReadonlySet<string>): string {
  if (error.message === SHEET_DOES_NOT_EXIST) {
    const sheet = unresolvedSheet(formula, titles);
    if (sheet !== undefined) return `Unresolved sheet name '${sheet}'.`;
  }
  if (error.message === 'Wrong number of arguments.')
    return argumentCountMessage(formula, loadHyperFormula().HyperFormula) ?? error.message;
  const unknownFunction = /^Function name (.+) not recognized\.$/.exec(error.message);
  if (unknownFunction) return `Unknown function: '${unknownFunction[1]?.toLowerCase()}'.`;
  const unknownName = /^Named expression (.+) not recognized\.$/.exec(error.message);
  if (unknownName) return `Unknown range name: '${unknownName[1]}'.`;
  return error.message || `${error.value}`;
}

/** HyperFormula's message for a reference to a sheet it does not have (its ErrorMessage.SheetRef). */
const SHEET_DOES_NOT_EXIST = 'Sheet does not exist.';
const STRING_LITERAL = /("(?:[^"]|"")*")/;
const SHEET_REFERENCE = /'((?:[^']|'')+)'!|([^\s"'!(),;:&=<>+\-*/^%{}]+)!/g;

/** The first tab a formula names, outside its string literals, that the spreadsheet lacks. */
function unresolvedSheet(formula: string, titles: ReadonlySet<string>): string | undefined {
  const parts = formula.split(STRING_LITERAL);
  for (let index = 0; index < parts.length; index += 2) {
    for (const match of (parts[index] ?? '').matchAll(SHEET_REFERENCE)) {
      const name = match[1] !== undefined ? match[1].replaceAll("''", "'") : (match[2] ?? '');
      // Sheets resolves a tab named in a formula whatever its case.
      if (!titles.has(name.toLowerCase())) return name;
    }
  }
  return undefined;
}

function autoFormat(detailedType: string): { autoFormat?: NumberFormat } {
  switch (detailedType) {
    case 'NUMBER_DATE':
      return { autoFormat: { type: 'DATE', pattern: 'M/d/yyyy' } };
    case 'NUMBER_DATETIME':
      return { autoFormat: { type: 'DATE_TIME', pattern: 'M/d/yyyy H:mm:ss' } };
    case 'NUMBER_TIME':
      return { autoFormat: { type: 'TIME', pattern: 'h:mm:ss am/pm' } };
    case 'NUMBER_PERCENT':
      return { autoFormat: { type: 'PERCENT', pattern: '0.00%' } };
    case 'NUMBER_CURRENCY':
      return { autoFormat: { type: 'CURRENCY', pattern: '"$"#,##0.00' } };
    default:
      return {};
  }
}
