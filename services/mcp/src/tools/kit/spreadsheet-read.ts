import type { sheets_v4 } from 'googleapis';
import type { ToolDeps } from './tool-deps.ts';

/**
 * `spreadsheets.get` of a field mask for one user: how the rules and charts tools read the objects
 * (rules, ranges, filters, tables, charts) they list and change.
 */
export function spreadsheetRead({ sheets, callGoogle }: Pick<ToolDeps, 'sheets' | 'callGoogle'>) {
  return async function readSpreadsheet(
    userId: string,
    signal: AbortSignal,
    spreadsheetId: string,
    fields: string,
  ): Promise<sheets_v4.Schema$Spreadsheet> {
    const { data } = await callGoogle(userId, signal, (request) =>
      sheets.spreadsheets.get({ spreadsheetId, fields }, request),
    );
    return data;
  };
}
