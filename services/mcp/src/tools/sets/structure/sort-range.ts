import { z } from 'zod';
import { ToolError } from '../../../errors/tool-error.ts';
import { amount } from '../../guards/loss-phrases.ts';
import { gridBounds } from '../../kit/a1.ts';
import { a1Range, dryRun, dryRunOutput, spreadsheetId } from '../../kit/common-schemas.ts';
import { spreadsheetBatchUpdate } from '../../kit/spreadsheet-batch-update.ts';
import { defineTool } from '../../kit/tool-definition.ts';
import type { ToolDeps } from '../../kit/tool-deps.ts';
import { a1Of, DESTRUCTIVE, dryRunText, heightOf, readEditTabs, resolveArea } from './edit-grid.ts';

/** sort_range: sort a range's rows by its columns (docs/design.md §11). */
export function sortRangeTools(deps: ToolDeps) {
  const batchUpdate = spreadsheetBatchUpdate(deps);
  return [
    defineTool({
      name: 'sort_range',
      toolset: 'structure',
      title: 'Sort a range',
      description: "Sorts a range's rows by its columns.",
      scope: 'sheets:write',
      annotations: DESTRUCTIVE,
      inputSchema: z.object({
        spreadsheetId,
        range: a1Range,
        sortBy: z
          .array(
            z.object({
              column: z.string().regex(/^[A-Za-z]{1,3}$/, 'a column letter such as B'),
              order: z.enum(['ascending', 'descending']).default('ascending'),
            }),
          )
          .min(1)
          .max(10),
        headerRow: z.boolean().default(false),
        dryRun,
      }),
      outputSchema: z.object({
        range: z.string(),
        rows: z.number(),
        sortBy: z.string(),
        dryRun: dryRunOutput,
      }),
      async run(input, { auth, signal }) {
        const tabs = await readEditTabs(deps, auth.userId, signal, input.spreadsheetId);
        const { tab, area } = resolveArea(tabs, input.range);
        const sorted = { ...area, startRowIndex: area.startRowIndex + (input.headerRow ? 1 : 0) };
        if (heightOf(sorted) < 1) throw new ToolError(`${input.range} has no rows below its header to sort`);
        const sortSpecs = input.sortBy.map(({ column, order }) => {
          const index = gridBounds(`${column}:${column}`)?.startColumnIndex ?? -1;
          if (index < area.startColumnIndex || index >= area.endColumnIndex)
            throw new ToolError(`column ${column.toUpperCase()} is not inside ${input.range}`);
          return { dimensionIndex: index, sortOrder: order === 'ascending' ? 'ASCENDING' : 'DESCENDING' };
        });
        const sortBy = input.sortBy.map(({ column, order }) => `${column.toUpperCase()} ${order}`).join(', ');
        const result = { range: a1Of(tab, sorted), rows: heightOf(sorted), sortBy };
        if (input.dryRun)
          return {
            structuredContent: { ...result, dryRun: true },
            text: dryRunText(`sort ${amount(result.rows, 'row')} of ${result.range} by ${sortBy}`),
          };
        await batchUpdate(auth.userId, signal, input.spreadsheetId, [
          { sortRange: { range: sorted, sortSpecs } },
        ]);
        return { structuredContent: result, text: `Sorted ${result.range} by ${sortBy}.` };
      },
    }),
  ];
}
