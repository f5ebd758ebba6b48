import type { sheets_v4 } from 'googleapis';
import type { spreadsheetBatchUpdate } from './spreadsheet-batch-update.ts';
import type { ToolContext, ToolOutput } from './tool-definition.ts';

/**
 * The end of a tool that deletes one object it has found and read (a chart, a table, a rule…): a
 * dry run answers what would go and sends nothing; a real call sends the one request and answers
 * what went. `would` completes "Dry run: would …"; `did` is the whole sentence after the change.
 */
export async function deleteFound(
  batchUpdate: ReturnType<typeof spreadsheetBatchUpdate>,
  { auth, signal }: Pick<ToolContext, 'auth' | 'signal'>,
  input: { spreadsheetId: string; dryRun: boolean },
  found: { deleted: object; request: sheets_v4.Schema$Request; would: string; did: string },
): Promise<ToolOutput> {
  const { deleted } = found;
  if (input.dryRun)
    return {
      structuredContent: { deleted, dryRun: true },
      text: `Dry run: would ${found.would}. Nothing was changed.`,
    };
  await batchUpdate(auth.userId, signal, input.spreadsheetId, [found.request]);
  return { structuredContent: { deleted }, text: found.did };
}
