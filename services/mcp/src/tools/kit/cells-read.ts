import type { sheets_v4 } from 'googleapis';
import type { AuthInfo } from '../../auth/auth-info.ts';
import type { ToolDeps } from './tool-deps.ts';

/**
 * Reads `ranges` (A1) in one spreadsheets.get with only `cellFields` of each cell (a field mask
 * under CellData, e.g. `userEnteredValue`), and visits every cell Google answered with its tab's
 * title and zero-based row and column.
 */
export async function readCells(
  { sheets, callGoogle }: ToolDeps,
  auth: AuthInfo,
  signal: AbortSignal,
  spreadsheetId: string,
  request: { ranges: string[]; cellFields: string },
  visit: (cell: sheets_v4.Schema$CellData, at: { sheet: string; row: number; column: number }) => void,
): Promise<void> {
  const { data } = await callGoogle(auth.userId, signal, (options) =>
    sheets.spreadsheets.get(
      {
        spreadsheetId,
        ranges: request.ranges,
        includeGridData: true,
        fields: `sheets(properties(title),data(startRow,startColumn,rowData(values(${request.cellFields}))))`,
      },
      options,
    ),
  );
  for (const sheet of data.sheets ?? []) {
    const title = sheet.properties?.title ?? '';
    for (const grid of sheet.data ?? [])
      for (const [r, row] of (grid.rowData ?? []).entries())
        for (const [c, cell] of (row.values ?? []).entries())
          visit(cell, { sheet: title, row: (grid.startRow ?? 0) + r, column: (grid.startColumn ?? 0) + c });
  }
}
