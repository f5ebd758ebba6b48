/**
 * Formula results, computed with HyperFormula under its GPLv3 option (licence key `gpl-v3`), which
 * makes this package GPL-3.0-only: acceptable because the emulator is a development and test tool,
 * never part of a production image (README.md, "Licence"). Its function
 * set is Excel's, which covers the common Sheets functions (SUM, AVERAGE, COUNT, COUNTA, MIN, MAX,
 * IF, CONCATENATE, `&`, ROUND, DATE, …); Sheets-only functions (QUERY, ARRAYFORMULA, FILTER,
 * IMPORTRANGE, GOOGLEFINANCE, …) evaluate to `#NAME?`, and array results do not spill.
 */
import { createRequire } from 'node:module';
import type { CellValue, DetailedCellError } from 'hyperformula';
import { dataRowEnd } from './grid.ts';
import type { ExtendedValue, NumberFormat, SpreadsheetModel } from './model.ts';

export interface FormulaResult {
  effectiveValue?: ExtendedValue;
  /** The format Sheets would pick automatically for the result (a DATE() gives a date). */
  autoFormat?: NumberFormat;
}

export interface Evaluation {
  /** The result of the formula at a position; undefined for cells without a formula. */
  formulaResult(sheetIndex: number, row: number, column: number): FormulaResult | undefined;
}

/**
 * HyperFormula, loaded on the first formula: its modules would add to every emulator start's CPU
 * (`pnpm start`, docs/design.md §10). Required (its CommonJS build), as
 * evaluation is synchronous.
 */
let hyperFormula: typeof import('hyperformula') | undefined;
function loadHyperFormula(): typeof import('hyperformula') {
  hyperFormula ??= createRequire(import.meta.url)('hyperformula') as typeof import('hyperformula');
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
  const formulaCells: Array<[sheetIndex: number, row: number, column: number]> = [];
  const sheets: Record<string, Array<Array<string | number | boolean | null>>> = {};
  for (const [sheetIndex, sheet] of spreadsheet.sheets.entries()) {
    const rowEnd = dataRowEnd(sheet);
    const data: Array<Array<string | number | boolean | null>> = [];
    for (let row = 0; row < rowEnd; row++) {
      const cells = sheet.rows[row] ?? [];
      const values: Array<string | number | boolean | null> = [];
      for (let column = 0; column < cells.length; column++) {
        const value = cells[column]?.userEnteredValue;
        if (value?.formulaValue != null) formulaCells.push([sheetIndex, row, column]);
        values.push(engineInput(value));
      }
      data.push(values);
    }
    sheets[sheet.properties.title] = data;
  }
  const results = new Map<string, FormulaResult>();
  const titles = new Set(spreadsheet.sheets.map((sheet) => sheet.properties.title.toLowerCase()));
  if (formulaCells.length > 0) {
    const engine = loadHyperFormula().HyperFormula.buildFromSheets(sheets, { licenseKey: 'gpl-v3' });
    try {
      for (const [sheetIndex, row, column] of formulaCells) {
        const sheetId = engine.getSheetId(spreadsheet.sheets[sheetIndex]?.properties.title ?? '');
        if (sheetId === undefined) continue;
        const address = { sheet: sheetId, row, col: column };
        const formula = spreadsheet.sheets[sheetIndex]?.rows[row]?.[column]?.userEnteredValue?.formulaValue;
        results.set(
          key(sheetIndex, row, column),
          toResult(engine.getCellValue(address), engine.getCellValueDetailedType(address), (error) =>
            googleMessage(error, formula ?? '', titles),
          ),
        );
      }
    } finally {
      engine.destroy();
    }
  }
  return { formulaResult: (sheetIndex, row, column) => results.get(key(sheetIndex, row, column)) };
}

function key(sheetIndex: number, row: number, column: number): string {
  return `${sheetIndex}:${row}:${column}`;
}

function engineInput(value: ExtendedValue | undefined): string | number | boolean | null {
  if (!value) return null;
  if (value.formulaValue != null) return engineFormula(value.formulaValue);
  if (value.numberValue != null) return value.numberValue;
  if (value.boolValue != null) return value.boolValue;
  // HyperFormula would parse "12" or "1/2/2024" in a text cell; a leading apostrophe keeps it text.
  if (value.stringValue != null) return `'${value.stringValue}`;
  if (value.errorValue != null) return '=NA()';
  return null;
}

/** Sheets accepts bare TRUE and FALSE in formulas; HyperFormula wants TRUE() and FALSE(). */
export function engineFormula(formula: string): string {
  return formula
    .split(/("(?:[^"]|"")*"|'(?:[^']|'')*')/)
    .map((part, index) =>
      index % 2 === 1
        ? part
        : part.replace(/\b(TRUE|FALSE)\b(?!\s*[(!])/gi, (word) => `${word.toUpperCase()}()`),
    )
    .join('');
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
    return {
      effectiveValue: { errorValue: { type: error.type, message: error.message ?? messageOf(value) } },
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
