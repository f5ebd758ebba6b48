import { z } from 'zod';
import { ToolError } from '../../../errors/tool-error.ts';
import { amount } from '../../guards/loss-phrases.ts';
import { CHANGE } from '../../kit/annotations.ts';
import { dryRun, dryRunOutput, sheetId, spreadsheetId } from '../../kit/common-schemas.ts';
import { spreadsheetBatchUpdate } from '../../kit/spreadsheet-batch-update.ts';
import { tabOf } from '../../kit/tab-ref.ts';
import { defineTool } from '../../kit/tool-definition.ts';
import type { ToolDeps } from '../../kit/tool-deps.ts';
import { a1Of, dryRunText, readEditTabs, sizeOf } from './edit-grid.ts';

/** freeze: keep a tab's first rows or columns in view (docs/design.md §11). */
export function freezeTools(deps: ToolDeps) {
  const batchUpdate = spreadsheetBatchUpdate(deps);
  return [
    defineTool({
      name: 'freeze',
      toolset: 'structure',
      title: 'Freeze rows or columns',
      description: 'Freezes the first rows or columns of a tab; 0 unfreezes.',
      scope: 'sheets:write',
      annotations: { ...CHANGE, idempotentHint: true },
      inputSchema: z.object({
        spreadsheetId,
        sheetId,
        rows: z.number().int().min(0).max(10_000).optional(),
        columns: z.number().int().min(0).max(1_000).optional(),
        dryRun,
      }),
      outputSchema: z.object({
        sheetId: z.number(),
        frozenRows: z.number().nullable(),
        frozenColumns: z.number().nullable(),
        dryRun: dryRunOutput,
      }),
      async run(input, { auth, signal }) {
        if (input.rows === undefined && input.columns === undefined)
          throw new ToolError('name rows, columns or both to freeze (0 unfreezes)');
        const tab = tabOf(await readEditTabs(deps, auth.userId, signal, input.spreadsheetId), input.sheetId);
        if ((input.rows ?? 0) >= tab.rows || (input.columns ?? 0) >= tab.columns)
          throw new ToolError(
            `the tab ${JSON.stringify(tab.title)} has ${sizeOf(tab)}: at least one row and one column must stay unfrozen`,
          );
        // As Sheets refuses to: a frozen edge may not cut through merged cells.
        const cut = tab.merges.find(
          (merge) =>
            (input.rows !== undefined &&
              merge.startRowIndex < input.rows &&
              input.rows < merge.endRowIndex) ||
            (input.columns !== undefined &&
              merge.startColumnIndex < input.columns &&
              input.columns < merge.endColumnIndex),
        );
        if (cut)
          throw new ToolError(
            `freezing there would cut through the merged cells ${a1Of(tab, cut)}; unmerge_cells them first or freeze past them`,
          );
        const fields = [
          ...(input.rows === undefined ? [] : ['gridProperties.frozenRowCount']),
          ...(input.columns === undefined ? [] : ['gridProperties.frozenColumnCount']),
        ];
        const result = {
          sheetId: tab.sheetId,
          frozenRows: input.rows ?? null,
          frozenColumns: input.columns ?? null,
        };
        const parts = [
          ...(input.rows === undefined ? [] : [amount(input.rows, 'row')]),
          ...(input.columns === undefined ? [] : [amount(input.columns, 'column')]),
        ].join(' and ');
        const sentence = `freeze ${parts} of the tab ${JSON.stringify(tab.title)}`;
        if (input.dryRun)
          return { structuredContent: { ...result, dryRun: true }, text: dryRunText(sentence) };
        await batchUpdate(auth.userId, signal, input.spreadsheetId, [
          {
            updateSheetProperties: {
              properties: {
                sheetId: tab.sheetId,
                gridProperties: {
                  ...(input.rows === undefined ? {} : { frozenRowCount: input.rows }),
                  ...(input.columns === undefined ? {} : { frozenColumnCount: input.columns }),
                },
              },
              fields: fields.join(','),
            },
          },
        ]);
        return { structuredContent: result, text: `Froze ${parts} of the tab ${JSON.stringify(tab.title)}.` };
      },
    }),
  ];
}
