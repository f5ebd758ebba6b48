import { z } from 'zod';
import { ToolError } from '../../../errors/tool-error.ts';
import { amount } from '../../guards/loss-phrases.ts';
import { a1Range, dryRun, dryRunOutput, spreadsheetId } from '../../kit/common-schemas.ts';
import { spreadsheetBatchUpdate } from '../../kit/spreadsheet-batch-update.ts';
import { defineTool } from '../../kit/tool-definition.ts';
import type { ToolDeps } from '../../kit/tool-deps.ts';
import {
  type Area,
  a1Of,
  cellCount,
  checkOnGrid,
  DESTRUCTIVE,
  describeOverwrite,
  dryRunText,
  readEditTabs,
  resolveArea,
  type Tab,
} from './edit-grid.ts';

/** The cells an autofill writes: `count` rows or columns beside the source, in its direction. */
interface FillInput {
  spreadsheetId: string;
  source: string;
  direction: 'down' | 'up' | 'right' | 'left';
  count: number;
}

function fillArea(tabs: Tab[], input: FillInput): { tab: Tab; area: Area; filled: Area } {
  const { tab, area } = resolveArea(tabs, input.source, 'source');
  const filled = { ...area };
  if (input.direction === 'down') {
    filled.startRowIndex = area.endRowIndex;
    filled.endRowIndex = area.endRowIndex + input.count;
  } else if (input.direction === 'up') {
    filled.startRowIndex = area.startRowIndex - input.count;
    filled.endRowIndex = area.startRowIndex;
  } else if (input.direction === 'right') {
    filled.startColumnIndex = area.endColumnIndex;
    filled.endColumnIndex = area.endColumnIndex + input.count;
  } else {
    filled.startColumnIndex = area.startColumnIndex - input.count;
    filled.endColumnIndex = area.startColumnIndex;
  }
  if (filled.startRowIndex < 0 || filled.startColumnIndex < 0)
    throw new ToolError(
      `filling ${input.count} ${input.direction} from ${input.source} would go before the first row or column`,
    );
  checkOnGrid(tab, filled, `filling ${input.count} ${input.direction} from ${input.source}`);
  return { tab, area, filled };
}

/** autofill: extend a range as the fill handle does (docs/design.md §11). */
export function autofillTools(deps: ToolDeps) {
  const batchUpdate = spreadsheetBatchUpdate(deps);
  return [
    defineTool({
      name: 'autofill',
      toolset: 'structure',
      title: 'Fill a series or formula',
      description: 'Extends a range by count rows or columns as the fill handle does.',
      scope: 'sheets:write',
      annotations: DESTRUCTIVE,
      inputSchema: z.object({
        spreadsheetId,
        source: a1Range.describe('Two rows give a series its step.'),
        direction: z.enum(['down', 'up', 'right', 'left']).default('down'),
        count: z.number().int().min(1).max(100_000),
        dryRun,
      }),
      outputSchema: z.object({
        source: z.string(),
        filled: z.string(),
        cells: z.number(),
        dryRun: dryRunOutput,
      }),
      async run(input, { auth, signal }) {
        const tabs = await readEditTabs(deps, auth.userId, signal, input.spreadsheetId);
        const { tab, area, filled } = fillArea(tabs, input);
        const result = { source: a1Of(tab, area), filled: a1Of(tab, filled), cells: cellCount(filled) };
        if (input.dryRun)
          return {
            structuredContent: { ...result, dryRun: true },
            text: dryRunText(`fill ${result.filled} from ${result.source}`),
          };
        const rows = input.direction === 'down' || input.direction === 'up';
        await batchUpdate(auth.userId, signal, input.spreadsheetId, [
          {
            autoFill: {
              sourceAndDestination: {
                source: area,
                dimension: rows ? 'ROWS' : 'COLUMNS',
                fillLength:
                  input.direction === 'down' || input.direction === 'right' ? input.count : -input.count,
              },
            },
          },
        ]);
        return {
          structuredContent: result,
          text: `Filled ${result.filled} from ${result.source} (${amount(result.cells, 'cell')}).`,
        };
      },
      describeLoss: describeOverwrite(deps, (tabs, input: FillInput) => {
        const { tab, filled } = fillArea(tabs, input);
        return { tab, area: filled };
      }),
    }),
  ];
}
