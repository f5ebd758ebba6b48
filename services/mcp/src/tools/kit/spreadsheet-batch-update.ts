import type { sheets_v4 } from 'googleapis';
import { activeCapture, capturedBatchUpdate, plainBatchUpdate } from '../../journal/state/state-capture.ts';
import type { ToolDeps } from './tool-deps.ts';

/**
 * `spreadsheets.batchUpdate` for one user: what every structural tool sends its requests through.
 * Within a journaled tool call (kit/journal-writes.ts) it also captures what the requests change,
 * for undo (journal/state/state-capture.ts): one read before, the after-image in the response.
 */
export function spreadsheetBatchUpdate(deps: ToolDeps) {
  return async function batchUpdate(
    userId: string,
    signal: AbortSignal,
    spreadsheetId: string,
    requests: sheets_v4.Schema$Request[],
  ): Promise<sheets_v4.Schema$BatchUpdateSpreadsheetResponse> {
    const capture = activeCapture();
    return capture
      ? capturedBatchUpdate(deps, capture, userId, signal, spreadsheetId, requests)
      : plainBatchUpdate(deps, userId, signal, spreadsheetId, requests);
  };
}
