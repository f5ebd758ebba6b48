import { z } from 'zod';
import { MAX_WRITE_CELLS } from '../../settings.ts';
import { googleIdInput } from './google-ids.ts';
import { cellsIn, tooManyCells } from './write-limits.ts';

/** A spreadsheet's id, or its URL (google-ids.ts): the tool is given the id. */
export const spreadsheetId = googleIdInput('spreadsheet', { min: 10, max: 200 });

export const a1Range = z.string().min(1).max(500).describe('A1 or a tab name.');

/** A tab by its sheetId or its name; kit/tab-ref.ts finds it among the tabs. */
export const sheetId = z
  .union([z.number().int().min(0), z.string().min(1).max(100)])
  .describe('Or the tab name.');

/** The input of a tool listing objects of every tab or of one: `things` is what it lists ("rules"). */
export const perTabListInput = (things: string) =>
  z.object({
    spreadsheetId,
    sheetId: sheetId.optional().describe(`Only this tab's ${things}.`),
  });

export const cellValue = z.union([z.string().max(50_000), z.number(), z.boolean(), z.null()]);
// The rows are bounded as the cells are, in the refinement: a bound of rows in tools/list would say
// again, less exactly, what the description says.
export const rows = z
  .array(z.array(cellValue).max(1_000))
  .superRefine((values, context) => {
    if (values.length > MAX_WRITE_CELLS || cellsIn(values) > MAX_WRITE_CELLS)
      context.addIssue({ code: 'custom', message: tooManyCells(values) });
  })
  .describe(`Rows; =… is a formula unless RAW; at most ${MAX_WRITE_CELLS.toLocaleString('en-US')} cells.`);

export const valueRender = z
  .enum(['FORMATTED_VALUE', 'UNFORMATTED_VALUE', 'FORMULA'])
  .default('FORMATTED_VALUE');

export const valueInput = z.enum(['USER_ENTERED', 'RAW']).default('USER_ENTERED');

export const pageOffset = z.number().int().min(0).max(10_000_000).default(0);
export const pageLimit = z.number().int().min(1).max(2_000).default(200);

export const overwriteFormulas = z.boolean().default(false).describe('Needed to write over formulas.');
export const dryRun = z.boolean().default(false);
export const ifRevision = z
  .string()
  .max(200)
  .optional()
  .describe('From a read: refused if those cells changed since.');
/** In a result only when the call was a dry run. */
export const dryRunOutput = z.literal(true).optional();
/** In a journaled write's result: its change journal entry, which undo_change takes. */
export const changeIdOutput = z
  .string()
  .optional()
  .describe('The change journal entry: undo_change can undo it.');
/** In a destructive call's dry run: what it would destroy, or null when nothing. */
export const wouldLoseOutput = z.string().nullable().optional();
/** The members a journaled destructive write's result ends with: dry run, what it would lose, its change. */
export const destructiveWriteOutput = {
  dryRun: dryRunOutput,
  wouldLose: wouldLoseOutput,
  changeId: changeIdOutput,
};
/** A short token for exactly what was read (docs/design.md §11); pass it as ifRevision to a write. */
export const revisionOutput = z.string();

export const anyFileId = googleIdInput('file', { min: 5, max: 200 });
