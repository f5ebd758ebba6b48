import { z } from 'zod';
import { ToolError } from '../../../errors/tool-error.ts';
import { amount } from '../../guards/loss-phrases.ts';
import { CHANGE } from '../../kit/annotations.ts';
import { a1Range, dryRun, dryRunOutput, spreadsheetId } from '../../kit/common-schemas.ts';
import { spreadsheetBatchUpdate } from '../../kit/spreadsheet-batch-update.ts';
import { defineTool } from '../../kit/tool-definition.ts';
import type { ToolDeps } from '../../kit/tool-deps.ts';
import {
  a1Of,
  cellCount,
  DESTRUCTIVE,
  dryRunText,
  heightOf,
  inside,
  overlaps,
  readEditTabs,
  resolveArea,
  widthOf,
} from './edit-grid.ts';

const MERGE_TYPES = { all: 'MERGE_ALL', columns: 'MERGE_COLUMNS', rows: 'MERGE_ROWS' } as const;

/** merge_cells and unmerge_cells (docs/design.md §11). */
export function mergeTools(deps: ToolDeps) {
  const batchUpdate = spreadsheetBatchUpdate(deps);
  return [
    defineTool({
      name: 'merge_cells',
      toolset: 'structure',
      title: 'Merge cells',
      description: 'Merges a range; only the top-left value stays.',
      scope: 'sheets:write',
      annotations: DESTRUCTIVE,
      inputSchema: z.object({
        spreadsheetId,
        range: a1Range,
        mergeType: z.enum(['all', 'columns', 'rows']).default('all'),
        dryRun,
      }),
      outputSchema: z.object({
        range: z.string(),
        mergeType: z.string(),
        merges: z.number(),
        dryRun: dryRunOutput,
      }),
      async run(input, { auth, signal }) {
        const tabs = await readEditTabs(deps, auth.userId, signal, input.spreadsheetId);
        const { tab, area } = resolveArea(tabs, input.range);
        const merges =
          input.mergeType === 'all' ? 1 : input.mergeType === 'columns' ? widthOf(area) : heightOf(area);
        const each =
          input.mergeType === 'all'
            ? cellCount(area)
            : input.mergeType === 'columns'
              ? heightOf(area)
              : widthOf(area);
        if (each < 2)
          throw new ToolError(
            `merging ${input.range} by ${input.mergeType} would merge single cells: a merge needs at least two`,
          );
        const clash = tab.merges.find((merge) => overlaps(merge, area) && !inside(merge, area));
        if (clash)
          throw new ToolError(
            `${input.range} overlaps the merged cells ${a1Of(tab, clash)} without covering them; unmerge_cells them first or merge a range that covers them`,
          );
        const result = { range: a1Of(tab, area), mergeType: input.mergeType, merges };
        const sentence = `merge ${result.range} (${amount(merges, 'merged area')}; only each area's top-left value is kept)`;
        if (input.dryRun)
          return { structuredContent: { ...result, dryRun: true }, text: dryRunText(sentence) };
        await batchUpdate(auth.userId, signal, input.spreadsheetId, [
          { mergeCells: { range: area, mergeType: MERGE_TYPES[input.mergeType] } },
        ]);
        return {
          structuredContent: result,
          text: `Merged ${result.range} (${amount(merges, 'merged area')}).`,
        };
      },
    }),
    defineTool({
      name: 'unmerge_cells',
      toolset: 'structure',
      title: 'Unmerge cells',
      description: 'Splits the merged areas touching a range.',
      scope: 'sheets:write',
      annotations: { ...CHANGE, idempotentHint: true },
      inputSchema: z.object({ spreadsheetId, range: a1Range, dryRun }),
      outputSchema: z.object({ range: z.string(), unmerged: z.array(z.string()), dryRun: dryRunOutput }),
      async run(input, { auth, signal }) {
        const tabs = await readEditTabs(deps, auth.userId, signal, input.spreadsheetId);
        const { tab, area } = resolveArea(tabs, input.range);
        const unmerged = tab.merges.filter((merge) => overlaps(merge, area)).map((merge) => a1Of(tab, merge));
        const result = { range: a1Of(tab, area), unmerged };
        const what = unmerged.length === 0 ? 'no merged cells' : unmerged.join(', ');
        if (input.dryRun)
          return { structuredContent: { ...result, dryRun: true }, text: dryRunText(`unmerge ${what}`) };
        if (unmerged.length > 0)
          await batchUpdate(auth.userId, signal, input.spreadsheetId, [{ unmergeCells: { range: area } }]);
        return {
          structuredContent: result,
          text: unmerged.length === 0 ? `${result.range} has no merged cells.` : `Unmerged ${what}.`,
        };
      },
    }),
  ];
}
