/** A spreadsheet's cells as export formats need them: stored, effective and formatted. */
import { type EffectiveCell, effectiveCell, formattedValue, shownCellsIn } from './cell-values.ts';
import { dataRowEnd } from './grid.ts';
import type { CellData, NumberFormat, SheetModel, SpreadsheetModel } from './model.ts';
import { evaluateShownCells } from './pivot-tables.ts';

export interface ExportCell {
  row: number;
  column: number;
  /** Empty for a cell that only shows what an array formula spilled. */
  cell: CellData;
  effective: EffectiveCell;
  text: string;
}

export function exportCells(spreadsheet: SpreadsheetModel, sheet: SheetModel): ExportCell[] {
  const evaluation = evaluateShownCells(spreadsheet);
  const sheetIndex = spreadsheet.sheets.indexOf(sheet);
  const cells: ExportCell[] = [];
  const grid = sheet.properties.gridProperties;
  const bounds = { startRow: 0, endRow: grid.rowCount, startColumn: 0, endColumn: grid.columnCount };
  for (const [row, column, stored] of shownCellsIn(evaluation, sheet, sheetIndex, bounds)) {
    const cell = stored ?? {};
    const effective = effectiveCell(evaluation, sheetIndex, row, column, cell);
    cells.push({ row, column, cell, effective, text: formattedValue(effective) ?? '' });
  }
  cells.sort((a, b) => a.row - b.row || a.column - b.column);
  return cells;
}

/** The formatted values of a sheet as rows of text, trailing empty rows and cells dropped. */
export function formattedRows(spreadsheet: SpreadsheetModel, sheet: SheetModel): string[][] {
  const rows: string[][] = Array.from({ length: dataRowEnd(sheet) }, () => []);
  for (const { row, column, text } of exportCells(spreadsheet, sheet)) {
    if (text === '') continue;
    while (rows.length <= row) rows.push([]);
    (rows[row] as string[])[column] = text;
  }
  return rows.map((row) => Array.from(row, (text) => text ?? ''));
}

/** The Sheets number-format type a spreadsheet-application pattern (Excel, ODS) amounts to. */
export function numberFormatFromPattern(pattern: string | undefined): NumberFormat | undefined {
  if (!pattern || pattern === 'General' || pattern === '@') return undefined;
  const bare = pattern.replace(/"[^"]*"|\\.|\[[^\]]*\]/g, '');
  const hasDate = /[dy]/i.test(bare) || (/m/i.test(bare) && !/[0#]/.test(bare));
  const hasTime = /[hs]/i.test(bare);
  if (hasDate && hasTime) return { type: 'DATE_TIME', pattern };
  if (hasDate) return { type: 'DATE', pattern };
  if (hasTime) return { type: 'TIME', pattern };
  if (bare.includes('%')) return { type: 'PERCENT', pattern };
  if (/E[+-]/i.test(bare)) return { type: 'SCIENTIFIC', pattern };
  if (/[$€£¥]/.test(pattern)) return { type: 'CURRENCY', pattern };
  return { type: 'NUMBER', pattern };
}
