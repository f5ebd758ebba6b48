import type { sheets_v4 } from 'googleapis';
import type { ToolDeps } from './tool-deps.ts';

/** `spreadsheets.batchUpdate` for one user: what every structural tool sends its requests through. */
export function spreadsheetBatchUpdate({ sheets, callGoogle }: ToolDeps) {
  return async function batchUpdate(
    userId: string,
    signal: AbortSignal,
    spreadsheetId: string,
    requests: sheets_v4.Schema$Request[],
  ): Promise<sheets_v4.Schema$BatchUpdateSpreadsheetResponse> {
    const { data } = await callGoogle(userId, signal, (request) =>
      sheets.spreadsheets.batchUpdate({ spreadsheetId, requestBody: { requests } }, request),
    );
    return data;
  };
}
