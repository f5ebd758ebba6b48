import { z } from 'zod';
import { changeNote } from '../../../journal/record-change.ts';
import { quotedName } from '../../guards/loss-phrases.ts';
import { CHANGE } from '../../kit/annotations.ts';
import { changeIdOutput, dryRun, dryRunOutput, sheetId, spreadsheetId } from '../../kit/common-schemas.ts';
import { tabOf, withSheetId } from '../../kit/tab-ref.ts';
import { defineTool } from '../../kit/tool-definition.ts';
import type { ToolDeps } from '../../kit/tool-deps.ts';
import { dryRunText, readEditTabs } from './edit-grid.ts';

/** copy_sheet_to: copy a tab into another spreadsheet (docs/design.md §11). */
export function copySheetToTools(deps: ToolDeps) {
  const { sheets, callGoogle, journal } = deps;
  return [
    defineTool({
      name: 'copy_sheet_to',
      toolset: 'structure',
      title: 'Copy a tab to another spreadsheet',
      description: 'Copies a tab to the end of another spreadsheet, as "Copy of <title>".',
      scope: 'sheets:write',
      journalsItself: true,
      annotations: CHANGE,
      inputSchema: z.object({
        spreadsheetId,
        sheetId,
        destinationSpreadsheetId: spreadsheetId,
        dryRun,
      }),
      // The new tab's id and title are null in a dry run: Google picks them when it copies.
      outputSchema: z.object({
        sheetId: z.number().nullable(),
        title: z.string().nullable(),
        destinationSpreadsheetId: z.string(),
        dryRun: dryRunOutput,
        changeId: changeIdOutput,
      }),
      async run(given, { auth, signal }) {
        if (given.dryRun) {
          // Reads only: the tab must exist, and the destination must be one the person can open.
          const tab = tabOf(
            await readEditTabs(deps, auth.userId, signal, given.spreadsheetId),
            given.sheetId,
          );
          const { data } = await callGoogle(auth.userId, signal, (request) =>
            sheets.spreadsheets.get(
              { spreadsheetId: given.destinationSpreadsheetId, fields: 'properties.title' },
              request,
            ),
          );
          return {
            structuredContent: {
              sheetId: null,
              title: null,
              destinationSpreadsheetId: given.destinationSpreadsheetId,
              dryRun: true,
            },
            text: dryRunText(
              `copy the tab ${JSON.stringify(tab.title)} to the end of ${JSON.stringify(data.properties?.title ?? '')}`,
            ),
          };
        }
        // One request for a sheetId (a name costs a read of the tabs first): copyTo names the tab by
        // sheetId, and Google's refusal of an unknown one is clear.
        const input = await withSheetId(deps, { auth, signal }, given);
        const { data } = await callGoogle(auth.userId, signal, (request) =>
          sheets.spreadsheets.sheets.copyTo(
            {
              spreadsheetId: input.spreadsheetId,
              sheetId: input.sheetId,
              requestBody: { destinationSpreadsheetId: input.destinationSpreadsheetId },
            },
            request,
          ),
        );
        const result = {
          sheetId: data.sheetId ?? 0,
          title: data.title ?? '',
          destinationSpreadsheetId: input.destinationSpreadsheetId,
        };
        const changeId = journal?.record(auth, {
          tool: 'copy_sheet_to',
          spreadsheetId: result.destinationSpreadsheetId,
          ranges: [result.title],
          cells: 0,
          rows: 0,
          summary: `copied a tab of spreadsheet ${input.spreadsheetId} here as ${quotedName(result.title)}`,
          payload: {
            v: 1,
            kind: 'copied-tab',
            spreadsheetId: result.destinationSpreadsheetId,
            sheetId: result.sheetId,
            title: result.title,
            sourceSpreadsheetId: input.spreadsheetId,
          },
        });
        return {
          structuredContent: { ...result, ...(changeId ? { changeId } : {}) },
          text: `Copied the tab to ${JSON.stringify(result.title)} (sheetId ${result.sheetId}) in spreadsheet ${result.destinationSpreadsheetId}.${changeNote(changeId)}`,
        };
      },
    }),
  ];
}
