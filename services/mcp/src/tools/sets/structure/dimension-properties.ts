import type { sheets_v4 } from 'googleapis';
import { z } from 'zod';
import { ToolError } from '../../../errors/tool-error.ts';
import { amount } from '../../guards/loss-phrases.ts';
import { CHANGE } from '../../kit/annotations.ts';
import { dryRun, dryRunOutput, sheetId, spreadsheetId } from '../../kit/common-schemas.ts';
import { spreadsheetBatchUpdate } from '../../kit/spreadsheet-batch-update.ts';
import { tabOf } from '../../kit/tab-ref.ts';
import { defineTool } from '../../kit/tool-definition.ts';
import type { ToolDeps } from '../../kit/tool-deps.ts';
import { dryRunText, readEditTabs, type Tab } from './edit-grid.ts';

function dimensionArea(
  tab: Tab,
  dimension: 'ROWS' | 'COLUMNS',
  startIndex: number,
  endIndex: number,
): sheets_v4.Schema$DimensionRange {
  if (endIndex <= startIndex) throw new ToolError('endIndex must be greater than startIndex');
  const count = dimension === 'ROWS' ? tab.rows : tab.columns;
  if (endIndex > count)
    throw new ToolError(
      `endIndex ${endIndex} is past the tab ${JSON.stringify(tab.title)}, which has ${amount(count, dimension === 'ROWS' ? 'row' : 'column')}`,
    );
  return { sheetId: tab.sheetId, dimension, startIndex, endIndex };
}

/** set_dimension_properties: size, fit or hide rows and columns (docs/design.md §11). */
export function dimensionPropertyTools(deps: ToolDeps) {
  const batchUpdate = spreadsheetBatchUpdate(deps);
  return [
    defineTool({
      name: 'set_dimension_properties',
      toolset: 'structure',
      title: 'Size or hide rows or columns',
      description: 'Sizes, fits, hides or shows rows or columns.',
      scope: 'sheets:write',
      annotations: { ...CHANGE, idempotentHint: true },
      inputSchema: z.object({
        spreadsheetId,
        sheetId,
        dimension: z.enum(['ROWS', 'COLUMNS']),
        startIndex: z.number().int().min(0).describe('Zero-based.'),
        endIndex: z.number().int().min(1).describe('Exclusive.'),
        pixelSize: z.number().int().min(0).max(10_000).optional(),
        fitToData: z.boolean().optional(),
        hidden: z.boolean().optional(),
        dryRun,
      }),
      outputSchema: z.object({
        sheetId: z.number(),
        dimension: z.string(),
        startIndex: z.number(),
        endIndex: z.number(),
        changed: z.array(z.string()),
        dryRun: dryRunOutput,
      }),
      async run(input, { auth, signal }) {
        if (input.pixelSize !== undefined && input.fitToData)
          throw new ToolError('give pixelSize or fitToData, not both');
        if (input.pixelSize === undefined && !input.fitToData && input.hidden === undefined)
          throw new ToolError('name pixelSize, fitToData or hidden');
        const tab = tabOf(await readEditTabs(deps, auth.userId, signal, input.spreadsheetId), input.sheetId);
        const range = dimensionArea(tab, input.dimension, input.startIndex, input.endIndex);
        const properties: sheets_v4.Schema$DimensionProperties = {};
        const fields: string[] = [];
        if (input.pixelSize !== undefined) {
          properties.pixelSize = input.pixelSize;
          fields.push('pixelSize');
        }
        if (input.hidden !== undefined) {
          properties.hiddenByUser = input.hidden;
          fields.push('hiddenByUser');
        }
        const requests: sheets_v4.Schema$Request[] = [];
        if (fields.length > 0)
          requests.push({ updateDimensionProperties: { range, properties, fields: fields.join(',') } });
        if (input.fitToData) requests.push({ autoResizeDimensions: { dimensions: range } });
        const changed = [
          ...(input.pixelSize === undefined ? [] : [`${input.pixelSize} px`]),
          ...(input.fitToData ? ['fitted to data'] : []),
          ...(input.hidden === undefined ? [] : [input.hidden ? 'hidden' : 'shown']),
        ];
        const span = `${input.dimension.toLowerCase()} ${input.startIndex}–${input.endIndex - 1} (zero-based) of the tab ${JSON.stringify(tab.title)}`;
        const result = {
          sheetId: tab.sheetId,
          dimension: input.dimension,
          startIndex: input.startIndex,
          endIndex: input.endIndex,
          changed,
        };
        if (input.dryRun)
          return {
            structuredContent: { ...result, dryRun: true },
            text: dryRunText(`set ${span}: ${changed.join(', ')}`),
          };
        await batchUpdate(auth.userId, signal, input.spreadsheetId, requests);
        return { structuredContent: result, text: `Set ${span}: ${changed.join(', ')}.` };
      },
    }),
  ];
}
