/** xlsx import and export with ExcelJS (MIT). */
import ExcelJS from 'exceljs';
import { googleErrors } from '../google-error.ts';
import { errorText } from './formulas.ts';
import type { CellData, CellRows, SpreadsheetContents, SpreadsheetModel } from './model.ts';
import { DEFAULT_PATTERNS, serialFromParts } from './number-format.ts';
import { exportCells, numberFormatFromPattern } from './workbook-cells.ts';
import { unpackedZipBytes } from './zip-unpacked-size.ts';

const EXCEL_ERRORS = new Set(['#NULL!', '#DIV/0!', '#VALUE!', '#REF!', '#NAME?', '#NUM!', '#N/A']);

/**
 * ExcelJS unzips the whole package in memory before anything can be counted, so a zip bomb is
 * refused first: by the sizes the package declares, then by the bytes its entries really inflate
 * to. 128 MB, as the ods import's bound on its `content.xml`.
 */
const MAX_UNZIPPED_BYTES = 128 * 1024 * 1024;

export async function importXlsx(bytes: Buffer): Promise<SpreadsheetContents['sheets']> {
  if ((await unpackedZipBytes(bytes, MAX_UNZIPPED_BYTES)) > MAX_UNZIPPED_BYTES)
    throw googleErrors.badRequest('The xlsx file is too large: it unpacks to more than 128 MB.');
  const workbook = new ExcelJS.Workbook();
  // ExcelJS's typings predate Node's generic Buffer.
  await workbook.xlsx.load(bytes as unknown as ExcelJS.Buffer);
  return workbook.worksheets.map((worksheet) => {
    const rows: CellRows = [];
    worksheet.eachRow({ includeEmpty: false }, (row, rowNumber) => {
      row.eachCell({ includeEmpty: false }, (cell, columnNumber) => {
        const imported = importCell(cell);
        if (!imported) return;
        rows[rowNumber - 1] ??= [];
        (rows[rowNumber - 1] as Array<CellData | undefined>)[columnNumber - 1] = imported;
      });
    });
    return {
      title: worksheet.name,
      rows,
      rowCount: Math.max(worksheet.rowCount, 1000),
      columnCount: Math.max(worksheet.columnCount, 26),
    };
  });
}

function importCell(cell: ExcelJS.Cell): CellData | undefined {
  const stored: CellData = {};
  const value = cell.value;
  if (cell.formula) {
    stored.userEnteredValue = { formulaValue: `=${cell.formula}` };
  } else if (typeof value === 'number') {
    stored.userEnteredValue = { numberValue: value };
  } else if (typeof value === 'boolean') {
    stored.userEnteredValue = { boolValue: value };
  } else if (typeof value === 'string') {
    stored.userEnteredValue = { stringValue: value };
  } else if (value instanceof Date) {
    stored.userEnteredValue = {
      numberValue: serialFromParts(
        value.getUTCFullYear(),
        value.getUTCMonth() + 1,
        value.getUTCDate(),
        value.getUTCHours(),
        value.getUTCMinutes(),
        value.getUTCSeconds(),
      ),
    };
  } else if (value && typeof value === 'object') {
    if ('richText' in value)
      stored.userEnteredValue = { stringValue: value.richText.map((part) => part.text).join('') };
    else if ('text' in value) stored.userEnteredValue = { stringValue: String(value.text) };
    else if ('error' in value) {
      // Sheets has no error constants; a formula of the error literal gives the same cell.
      const error = String(value.error);
      stored.userEnteredValue = { formulaValue: `=${EXCEL_ERRORS.has(error) ? error : '#N/A'}` };
    }
  }
  const numberFormat =
    numberFormatFromPattern(cell.numFmt) ??
    (value instanceof Date ? { type: 'DATE', pattern: DEFAULT_PATTERNS.DATE as string } : undefined);
  const textFormat: NonNullable<NonNullable<CellData['userEnteredFormat']>['textFormat']> = {};
  if (cell.font?.bold) textFormat.bold = true;
  if (cell.font?.italic) textFormat.italic = true;
  if (numberFormat || Object.keys(textFormat).length > 0) {
    stored.userEnteredFormat = {
      ...(numberFormat ? { numberFormat } : {}),
      ...(Object.keys(textFormat).length > 0 ? { textFormat } : {}),
    };
  }
  return Object.keys(stored).length > 0 ? stored : undefined;
}

export async function exportXlsx(spreadsheet: SpreadsheetModel): Promise<Buffer> {
  const workbook = new ExcelJS.Workbook();
  const usedNames = new Set<string>();
  for (const sheet of spreadsheet.sheets) {
    const worksheet = workbook.addWorksheet(excelSheetName(sheet.properties.title, usedNames));
    for (const { row, column, cell, effective } of exportCells(spreadsheet, sheet)) {
      const target = worksheet.getCell(row + 1, column + 1);
      const entered = cell.userEnteredValue;
      const result = effective.effectiveValue;
      const resultValue =
        result?.numberValue ??
        result?.boolValue ??
        result?.stringValue ??
        (result?.errorValue
          ? { error: errorText(result.errorValue.type) as ExcelJS.CellErrorValue['error'] }
          : undefined);
      if (entered?.formulaValue != null) {
        target.value = {
          formula: entered.formulaValue.slice(1),
          result: resultValue,
        } as ExcelJS.CellFormulaValue;
      } else if (entered?.numberValue != null) target.value = entered.numberValue;
      else if (entered?.boolValue != null) target.value = entered.boolValue;
      else if (entered?.stringValue != null) target.value = entered.stringValue;
      const numberFormat = effective.numberFormat;
      if (numberFormat?.type && numberFormat.type !== 'TEXT') {
        target.numFmt = excelPattern(
          numberFormat.pattern || DEFAULT_PATTERNS[numberFormat.type] || 'General',
        );
      }
      const textFormat = cell.userEnteredFormat?.textFormat;
      if (textFormat?.bold || textFormat?.italic)
        target.font = { bold: !!textFormat.bold, italic: !!textFormat.italic };
    }
  }
  return Buffer.from(await workbook.xlsx.writeBuffer());
}

/** Excel sheet names: at most 31 characters, none of `[]:*?/\`, unique. */
function excelSheetName(title: string, used: Set<string>): string {
  const base = title.replace(/[[\]:*?/\\]/g, '_').slice(0, 31) || 'Sheet';
  let name = base;
  for (let n = 2; used.has(name.toLowerCase()); n++) name = `${base.slice(0, 28)} ${n}`;
  used.add(name.toLowerCase());
  return name;
}

/** Sheets' `H` (24-hour) and `M` (month) are lower case in Excel codes; AM/PM stays as it is. */
function excelPattern(pattern: string): string {
  return pattern
    .split(/("[^"]*"|am\/pm|AM\/PM)/)
    .map((part, index) =>
      index % 2 === 1
        ? part.replace(/^am\/pm$/, 'AM/PM')
        : part.replace(/[HMD]/g, (letter) => letter.toLowerCase()),
    )
    .join('');
}
