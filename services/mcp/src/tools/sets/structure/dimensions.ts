import { z } from 'zod';
import { deletedDimensionSummary, insertedDimensionSummary } from '../../../journal/change-summaries.ts';
import { changeNote } from '../../../journal/record-change.ts';
import { captureDimension } from '../../../journal/sheet-image.ts';
import { lossDescriptions } from '../../guards/loss-descriptions.ts';
import {
  changeIdOutput,
  destructiveWriteOutput,
  dryRun,
  dryRunOutput,
  sheetId,
  spreadsheetId,
} from '../../kit/common-schemas.ts';
import { checkDimensionSpan } from '../../kit/dimension-limits.ts';
import { journalDeletion } from '../../kit/journal-deletion.ts';
import { spreadsheetBatchUpdate } from '../../kit/spreadsheet-batch-update.ts';
import { readTabNames, tabOf, withSheetId } from '../../kit/tab-ref.ts';
import { defineTool } from '../../kit/tool-definition.ts';
import type { ToolDeps } from '../../kit/tool-deps.ts';

const WRITE = { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false };

/** insert_dimension and delete_dimension: rows and columns added to or removed from a tab's grid. */
export function dimensionTools(deps: ToolDeps) {
  const { journal } = deps;
  const batchUpdate = spreadsheetBatchUpdate(deps);
  const losses = lossDescriptions(deps);
  return [
    defineTool({
      name: 'insert_dimension',
      toolset: 'structure',
      title: 'Insert rows or columns',
      description: 'Inserts empty rows or columns into a tab.',
      scope: 'sheets:write',
      journalsItself: true,
      annotations: { ...WRITE, destructiveHint: false, idempotentHint: false },
      inputSchema: z.object({
        spreadsheetId,
        sheetId,
        dimension: z.enum(['ROWS', 'COLUMNS']),
        startIndex: z.number().int().min(0).describe('Zero-based; 0 is before the first.'),
        count: z.number().int().min(1).max(10_000),
        inheritFromBefore: z.boolean().default(false),
        dryRun,
      }),
      outputSchema: z.object({ inserted: z.number(), dryRun: dryRunOutput, changeId: changeIdOutput }),
      async run(given, context) {
        const { auth, signal } = context;
        const input = await withSheetId(deps, context, given);
        if (input.dryRun) {
          const tab = tabOf(await readTabNames(deps, context, input.spreadsheetId), input.sheetId);
          const endIndex = input.startIndex + input.count;
          checkDimensionSpan(tab, { ...input, endIndex }, 'insert');
        }
        if (input.dryRun)
          return {
            structuredContent: { inserted: input.count, dryRun: true },
            text: `Dry run: would insert ${input.count} ${input.dimension.toLowerCase()} at index ${input.startIndex}. Nothing was changed.`,
          };
        const range = {
          sheetId: input.sheetId,
          dimension: input.dimension,
          startIndex: input.startIndex,
          endIndex: input.startIndex + input.count,
        };
        // The journal needs the tab's title: the batchUpdate's response names it, no read first.
        const { data } = await deps.callGoogle(auth.userId, signal, (request) =>
          deps.sheets.spreadsheets.batchUpdate(
            {
              spreadsheetId: input.spreadsheetId,
              ...(journal ? { fields: 'updatedSpreadsheet.sheets.properties(sheetId,title)' } : {}),
              requestBody: {
                requests: [
                  {
                    insertDimension: {
                      range,
                      inheritFromBefore: input.inheritFromBefore && input.startIndex > 0,
                    },
                  },
                ],
                ...(journal ? { includeSpreadsheetInResponse: true } : {}),
              },
            },
            request,
          ),
        );
        const title =
          data.updatedSpreadsheet?.sheets?.find((sheet) => sheet.properties?.sheetId === input.sheetId)
            ?.properties?.title ?? '';
        const inserted = { sheet: title, ...range };
        const changeId = journal?.record(auth, {
          tool: 'insert_dimension',
          spreadsheetId: input.spreadsheetId,
          ranges: [
            `${title} ${input.dimension.toLowerCase()} ${range.startIndex}–${range.endIndex - 1} (zero-based)`,
          ],
          cells: 0,
          rows: input.dimension === 'ROWS' ? input.count : 0,
          summary: insertedDimensionSummary({ ...range, title }),
          payload: { v: 1, kind: 'inserted', inserted },
        });
        return {
          structuredContent: { inserted: input.count, ...(changeId ? { changeId } : {}) },
          text: `Inserted ${input.count} ${input.dimension.toLowerCase()} at index ${input.startIndex}.${changeNote(changeId)}`,
        };
      },
    }),

    defineTool({
      name: 'delete_dimension',
      toolset: 'structure',
      title: 'Delete rows or columns',
      description: 'Deletes rows or columns [startIndex, endIndex) of a tab, zero-based.',
      scope: 'sheets:write',
      journalsItself: true,
      annotations: { ...WRITE, idempotentHint: false },
      inputSchema: z
        .object({
          spreadsheetId,
          sheetId,
          dimension: z.enum(['ROWS', 'COLUMNS']),
          startIndex: z.number().int().min(0),
          endIndex: z.number().int().min(1),
          dryRun,
        })
        .refine((value) => value.endIndex > value.startIndex, {
          message: 'endIndex must be greater than startIndex',
        }),
      outputSchema: z.object({
        deleted: z.number(),
        ...destructiveWriteOutput,
      }),
      async run(given, context) {
        const { auth, signal } = context;
        const input = await withSheetId(deps, context, given);
        if (input.dryRun) {
          const wouldLose = await losses.dimensionDeletion(input, context);
          const count = input.endIndex - input.startIndex;
          return {
            structuredContent: { deleted: count, dryRun: true, wouldLose },
            text: `Dry run, nothing was changed. ${wouldLose ?? `Would delete ${count} empty ${input.dimension.toLowerCase()}.`}`,
          };
        }
        // The change journal keeps the removed cells, to insert them again (two reads first).
        const captured = journal ? await captureDimension(deps, auth, signal, input) : undefined;
        await batchUpdate(auth.userId, signal, input.spreadsheetId, [
          {
            deleteDimension: {
              range: {
                sheetId: input.sheetId,
                dimension: input.dimension,
                startIndex: input.startIndex,
                endIndex: input.endIndex,
              },
            },
          },
        ]);
        const deleted = input.endIndex - input.startIndex;
        const changeId = journalDeletion(
          journal,
          auth,
          captured,
          ({ title, image }) => ({
            tool: 'delete_dimension',
            spreadsheetId: input.spreadsheetId,
            ranges: [
              `${title} ${input.dimension.toLowerCase()} ${input.startIndex}–${input.endIndex - 1} (zero-based)`,
            ],
            cells: image?.rows.reduce((sum, row) => sum + (row.values?.length ?? 0), 0) ?? 0,
            rows: input.dimension === 'ROWS' ? deleted : 0,
            summary: deletedDimensionSummary({ ...input, title }),
          }),
          (dimension) => ({ v: 1, kind: 'dimension', dimension }),
        );
        return {
          structuredContent: { deleted, ...(changeId ? { changeId } : {}) },
          text: `Deleted ${deleted} ${input.dimension.toLowerCase()}.${changeNote(changeId)}`,
        };
      },
      describeLoss: (input, context) => losses.dimensionDeletion(input, context),
    }),
  ];
}
