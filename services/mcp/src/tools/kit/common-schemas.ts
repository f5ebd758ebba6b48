import { z } from 'zod';
import { MAX_WRITE_CELLS } from '../../settings.ts';
import { googleIdInput } from './google-ids.ts';
import { cellsIn, tooManyCells } from './write-limits.ts';

/** A spreadsheet's id, or its URL (google-ids.ts): the tool is given the id. */
export const spreadsheetId = googleIdInput('spreadsheet', { min: 10, max: 200 }).describe(
  'The spreadsheet id or URL.',
);

export const a1Range = z
  .string()
  .min(1)
  .max(500)
  .describe("A range in A1 notation, e.g. 'My tab'!A1:C9, Sheet1!A:A or a tab name alone for the whole tab.");

/** A tab by its sheetId or its name; kit/tab-ref.ts finds it among the tabs. */
export const sheetId = z
  .union([z.number().int().min(0), z.string().min(1).max(100)])
  .describe("A tab: its sheetId (a URL's #gid=) or its name.");

/** The input of a tool listing objects of every tab or of one: `things` is what it lists ("rules"). */
export const perTabListInput = (things: string) =>
  z.object({
    spreadsheetId,
    sheetId: sheetId.optional().describe(`Only this tab's ${things} (its name or sheetId).`),
  });

export const cellValue = z.union([z.string().max(50_000), z.number(), z.boolean(), z.null()]);
export const rows = z
  .array(z.array(cellValue).max(1_000))
  .max(MAX_WRITE_CELLS, { error: (issue) => tooManyCells(issue.input as unknown[][]) })
  .superRefine((values, context) => {
    if (cellsIn(values) > MAX_WRITE_CELLS)
      context.addIssue({ code: 'custom', message: tooManyCells(values) });
  })
  .describe(
    `Rows of cells, e.g. [["Name","Total"],["Ada",12]]. Strings starting with = are formulas when interpreted. At most ${MAX_WRITE_CELLS.toLocaleString('en-US')} cells a call.`,
  );

export const valueRender = z
  .enum(['FORMATTED_VALUE', 'UNFORMATTED_VALUE', 'FORMULA'])
  .default('FORMATTED_VALUE')
  .describe(
    'FORMATTED_VALUE as shown in the sheet, UNFORMATTED_VALUE raw numbers, FORMULA the formulas themselves.',
  );

export const valueInput = z
  .enum(['USER_ENTERED', 'RAW'])
  .default('USER_ENTERED')
  .describe('USER_ENTERED parses values as if typed (numbers, dates, formulas); RAW stores them as given.');

export const pageOffset = z
  .number()
  .int()
  .min(0)
  .max(10_000_000)
  .default(0)
  .describe('Skip this many rows of the range (paging).');
export const pageLimit = z
  .number()
  .int()
  .min(1)
  .max(2_000)
  .default(200)
  .describe('At most this many rows are returned; the result says how to fetch the rest.');

export const overwriteFormulas = z
  .boolean()
  .default(false)
  .describe('Replace cells that hold formulas; without it such a write is refused, naming them.');
export const dryRun = z.boolean().default(false).describe('Only say what would change; nothing is changed.');
export const ifRevision = z
  .string()
  .max(200)
  .optional()
  .describe(
    'The revision of a read (read_range, read_ranges) of an area holding the cells the values change: refused if they changed since.',
  );
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

export const anyFileId = googleIdInput('file', { min: 5, max: 200 }).describe(
  'The file’s id or URL: a spreadsheet, or any Drive file.',
);
