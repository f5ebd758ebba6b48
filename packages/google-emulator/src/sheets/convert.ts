/**
 * Conversions between native spreadsheets and files, as Drive performs them on upload, copy and
 * export: csv / tsv / xlsx / ods in, csv / tsv (first sheet) / xlsx / ods / pdf out. The xlsx, ods
 * and pdf modules load on their first use: ExcelJS, pdfkit and the XML parser are hundreds of
 * modules, which every emulator start would load for nothing (`pnpm start`, docs/design.md §10).
 */
import { googleErrors } from '../google-error.ts';
import { formatDelimited, parseDelimited } from './delimited-text.ts';
import type { CellData, CellRows, SpreadsheetContents, SpreadsheetModel } from './model.ts';
import { parseUserEntered } from './user-entered.ts';
import { formattedRows } from './workbook-cells.ts';

export const XLSX_MIME_TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
export const ODS_MIME_TYPES = [
  'application/vnd.oasis.opendocument.spreadsheet',
  'application/x-vnd.oasis.opendocument.spreadsheet',
];
export const CSV_MIME_TYPE = 'text/csv';
export const TSV_MIME_TYPE = 'text/tab-separated-values';
export const PDF_MIME_TYPE = 'application/pdf';

export const IMPORTABLE_MIME_TYPES = [CSV_MIME_TYPE, TSV_MIME_TYPE, XLSX_MIME_TYPE, ...ODS_MIME_TYPES];
export const EXPORTABLE_MIME_TYPES = [
  CSV_MIME_TYPE,
  TSV_MIME_TYPE,
  XLSX_MIME_TYPE,
  ...ODS_MIME_TYPES,
  PDF_MIME_TYPE,
];

/** Reads a file into spreadsheet contents titled `title` (store them with `SpreadsheetStore.create`). */
export async function importSpreadsheet(
  bytes: Buffer,
  sourceMimeType: string,
  title: string,
): Promise<SpreadsheetContents> {
  const type = sourceMimeType.split(';')[0]?.trim().toLowerCase() ?? '';
  try {
    if (type === CSV_MIME_TYPE || type === TSV_MIME_TYPE) {
      // Google names the single sheet of an imported text file after the file.
      return {
        title,
        sheets: [{ title: 'Sheet1', rows: importDelimited(bytes, type === TSV_MIME_TYPE ? '\t' : ',') }],
      };
    }
    if (type === XLSX_MIME_TYPE) {
      const { importXlsx } = await import('./xlsx-workbook.ts');
      return { title, sheets: await importXlsx(bytes) };
    }
    if (ODS_MIME_TYPES.includes(type)) {
      const { importOds } = await import('./ods-workbook.ts');
      return { title, sheets: importOds(bytes) };
    }
  } catch (error) {
    if (error instanceof Error && error.name === 'GoogleApiError') throw error;
    throw googleErrors.badRequest(
      `The uploaded file could not be converted: ${error instanceof Error ? error.message : error}`,
    );
  }
  throw googleErrors.badRequest(`Conversion from ${sourceMimeType} to a spreadsheet is not supported.`);
}

/** Text files are read as if typed in: numbers, dates, booleans and formulas are recognised. */
function importDelimited(bytes: Buffer, delimiter: ',' | '\t'): CellRows {
  return parseDelimited(bytes.toString('utf8'), delimiter).map((fields) =>
    fields.map((field): CellData | undefined => (field === '' ? undefined : parseUserEntered(field))),
  );
}

/** Drive's export: csv and tsv hold the first sheet only (Drive's API has no sheet selector). */
export async function exportSpreadsheet(
  spreadsheet: SpreadsheetModel,
  targetMimeType: string,
): Promise<Buffer> {
  const type = targetMimeType.split(';')[0]?.trim().toLowerCase() ?? '';
  if (type === CSV_MIME_TYPE || type === TSV_MIME_TYPE) {
    const sheet = spreadsheet.sheets[0];
    const rows = sheet ? formattedRows(spreadsheet, sheet) : [];
    return Buffer.from(formatDelimited(rows, type === TSV_MIME_TYPE ? '\t' : ','), 'utf8');
  }
  if (type === XLSX_MIME_TYPE) return (await import('./xlsx-workbook.ts')).exportXlsx(spreadsheet);
  if (ODS_MIME_TYPES.includes(type)) return (await import('./ods-workbook.ts')).exportOds(spreadsheet);
  if (type === PDF_MIME_TYPE) return (await import('./pdf-export.ts')).exportPdf(spreadsheet);
  throw googleErrors.badRequest(`Export to ${targetMimeType} is not supported.`);
}
