import { z } from 'zod';
import { ToolError } from '../../../errors/tool-error.ts';
import { amount } from '../../guards/loss-phrases.ts';
import { splitRange } from '../../kit/a1.ts';
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
  heightOf,
  readEditTabs,
  resolveArea,
  type Tab,
  widthOf,
} from './edit-grid.ts';

const PASTE_TYPES = {
  all: 'PASTE_NORMAL',
  values: 'PASTE_VALUES',
  formulas: 'PASTE_FORMULA',
  formats: 'PASTE_FORMAT',
} as const;

/**
 * The cells a paste writes (written-area.ts's rule for pastes): a cell or a range that is not a
 * multiple of the source takes the source once from its top-left cell; a multiple repeats it.
 */
interface PasteInput {
  spreadsheetId: string;
  source: string;
  destination: string;
  mode: 'copy' | 'cut';
}

function pasteArea(
  tabs: Tab[],
  input: PasteInput,
): { source: { tab: Tab; area: Area }; destination: { tab: Tab; area: Area }; written: Area } {
  const source = resolveArea(tabs, input.source, 'source');
  // A tab's name alone is its top-left cell: the whole tab would repeat the source all over it.
  const destination = resolveArea(
    tabs,
    splitRange(input.destination).cells === '' ? `${input.destination}!A1` : input.destination,
    'destination',
  );
  const rows = heightOf(source.area);
  const columns = widthOf(source.area);
  const singleCell = cellCount(destination.area) === 1;
  if (
    input.mode === 'cut' &&
    !singleCell &&
    (heightOf(destination.area) !== rows || widthOf(destination.area) !== columns)
  )
    throw new ToolError(
      `a cut moves ${input.source} (${amount(rows, 'row')} × ${amount(columns, 'column')}) as it is: give its destination as one cell or a range of that size, not ${input.destination}`,
    );
  // As Sheets pastes: a multiple of the source's height (width) repeats it, else it is pasted once.
  const repeat = (span: number, unit: number) =>
    input.mode === 'copy' && span > unit && span % unit === 0 ? span / unit : 1;
  const written: Area = {
    sheetId: destination.tab.sheetId,
    startRowIndex: destination.area.startRowIndex,
    endRowIndex: destination.area.startRowIndex + rows * repeat(heightOf(destination.area), rows),
    startColumnIndex: destination.area.startColumnIndex,
    endColumnIndex: destination.area.startColumnIndex + columns * repeat(widthOf(destination.area), columns),
  };
  checkOnGrid(destination.tab, written, `pasting ${input.source} at ${input.destination}`);
  return { source, destination, written };
}

/** copy_range: copy or move a range, keeping formulas and formats (docs/design.md §11). */
export function copyRangeTools(deps: ToolDeps) {
  const batchUpdate = spreadsheetBatchUpdate(deps);
  return [
    defineTool({
      name: 'copy_range',
      toolset: 'structure',
      title: 'Copy or move a range',
      description: 'Copies or cuts a range to another place, as Sheets pastes.',
      scope: 'sheets:write',
      annotations: DESTRUCTIVE,
      inputSchema: z.object({
        spreadsheetId,
        source: a1Range,
        destination: a1Range.describe('A top-left cell or a range (repeating the source).'),
        mode: z.enum(['copy', 'cut']).default('copy'),
        paste: z.enum(['all', 'values', 'formulas', 'formats']).default('all'),
        dryRun,
      }),
      outputSchema: z.object({
        source: z.string(),
        destination: z.string().describe('Every cell written.'),
        mode: z.enum(['copy', 'cut']),
        paste: z.string(),
        cells: z.number(),
        dryRun: dryRunOutput,
      }),
      async run(input, { auth, signal }) {
        const tabs = await readEditTabs(deps, auth.userId, signal, input.spreadsheetId);
        const { source, destination, written } = pasteArea(tabs, input);
        const result = {
          source: a1Of(source.tab, source.area),
          destination: a1Of(destination.tab, written),
          mode: input.mode,
          paste: input.paste,
          cells: cellCount(written),
        };
        const sentence = `${input.mode} ${result.source} to ${result.destination} (${input.paste === 'all' ? 'values, formulas and formats' : input.paste}; ${amount(result.cells, 'cell')} overwritten)`;
        if (input.dryRun)
          return { structuredContent: { ...result, dryRun: true }, text: dryRunText(sentence) };
        const pasteType = PASTE_TYPES[input.paste];
        await batchUpdate(auth.userId, signal, input.spreadsheetId, [
          input.mode === 'cut'
            ? {
                cutPaste: {
                  source: source.area,
                  destination: {
                    sheetId: written.sheetId,
                    rowIndex: written.startRowIndex,
                    columnIndex: written.startColumnIndex,
                  },
                  pasteType,
                },
              }
            : { copyPaste: { source: source.area, destination: written, pasteType } },
        ]);
        return {
          structuredContent: result,
          text: `${input.mode === 'cut' ? 'Moved' : 'Copied'} ${result.source} to ${result.destination} (${amount(result.cells, 'cell')}).`,
        };
      },
      describeLoss: describeOverwrite(deps, (tabs, input: PasteInput) => {
        const { destination, written } = pasteArea(tabs, input);
        return { tab: destination.tab, area: written };
      }),
    }),
  ];
}
