import type { sheets_v4 } from 'googleapis';
import { z } from 'zod';
import { ToolError } from '../../errors/tool-error.ts';
import { columnLetters, gridBounds, quoteSheetName, rangeOnSheet, splitRange } from './a1.ts';
import { spreadsheetId } from './common-schemas.ts';
import type { ToolDeps } from './tool-deps.ts';

/**
 * evaluate_formulas' `imports` (docs/design.md §11.3): ranges of other spreadsheets read by
 * Sheetgate with the person's access and laid into hidden tabs of the evaluated spreadsheet for the
 * call (formula-scratch.ts adds and removes them with its scratch tab), so a formula compares two
 * files without IMPORTRANGE, whose one-time "Allow access" Google asks for in its UI, and without
 * the rows passing through the model.
 */

export const MAX_IMPORTS = 3;
/** Cells all of a call's imports carry together: rows read × the range's columns. */
export const MAX_IMPORT_CELLS = 100_000;

/** A tab name a formula writes without quotes, which no cell reference or function can be taken for. */
const PLAIN_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,49}$/;

export const formulaImports = z
  .array(
    z.object({
      name: z
        .string()
        .max(200)
        .refine((name) => PLAIN_NAME.test(name) && quoteSheetName(name) === name, {
          message:
            'a name is a plain tab name: a letter, then letters, digits or _, at most 50, not a cell or column (Term1, not A1 or Big)',
        }),
      spreadsheetId,
      range: z.string().min(1).max(500),
    }),
  )
  // Counted here rather than by .max: the schema's maxItems would cost every conversation bytes.
  .superRefine((imports, context) => {
    if (imports.length > MAX_IMPORTS)
      context.addIssue({ code: 'custom', message: `at most ${MAX_IMPORTS} imports a call` });
    const seen = new Set<string>();
    for (const [index, { name }] of imports.entries()) {
      if (seen.has(name.toLowerCase()))
        context.addIssue({ code: 'custom', path: [index, 'name'], message: `"${name}" is named twice` });
      seen.add(name.toLowerCase());
    }
  });

export type FormulaImport = z.output<typeof formulaImports>[number];

/** An import as read: its values from the top-left, each row `columns` wide. */
export interface ImportedTab {
  name: string;
  rows: sheets_v4.Schema$RowData[];
  columns: number;
  /** Rows read × columns: what it counts against MAX_IMPORT_CELLS. */
  cells: number;
}

type Value = string | number | boolean | null | undefined;

/**
 * Reads each import with one `values.get` (unformatted values, dates and times as serial numbers, so
 * numbers stay numbers; an error cell comes as its text). A range must name its columns: the rows
 * asked for are cut to what the cell bound leaves, plus one to tell a range that passes it.
 */
export async function readImports(
  { sheets, callGoogle }: Pick<ToolDeps, 'sheets' | 'callGoogle'>,
  userId: string,
  signal: AbortSignal,
  imports: readonly FormulaImport[],
): Promise<ImportedTab[]> {
  const asked = imports.map((entry) => ({ entry, ...boundedRead(entry) }));
  const read: ImportedTab[] = [];
  let left = MAX_IMPORT_CELLS;
  for (const { entry, title, bounds, columns } of asked) {
    const allowed = Math.floor(left / columns);
    const top = bounds.startRowIndex ?? 0;
    const end = Math.min(bounds.endRowIndex ?? Number.POSITIVE_INFINITY, top + allowed + 1);
    const cells = `${columnLetters(bounds.startColumnIndex!)}${top + 1}:${columnLetters(bounds.endColumnIndex! - 1)}${end}`;
    const range = title === undefined ? cells : rangeOnSheet(title, cells);
    let values: Value[][];
    try {
      const { data } = await callGoogle(userId, signal, (request) =>
        sheets.spreadsheets.values.get(
          {
            spreadsheetId: entry.spreadsheetId,
            range,
            valueRenderOption: 'UNFORMATTED_VALUE',
            dateTimeRenderOption: 'SERIAL_NUMBER',
            fields: 'values',
          },
          request,
        ),
      );
      values = (data.values ?? []) as Value[][];
    } catch (error) {
      if (error instanceof Error) throw new ToolError(`imports "${entry.name}": ${error.message}`);
      throw error;
    }
    if (values.length > allowed)
      throw new ToolError(
        `imports "${entry.name}": ${entry.range} holds more than ${allowed.toLocaleString('en-US')} rows of ${columns} columns; imports carry at most ${MAX_IMPORT_CELLS.toLocaleString('en-US')} cells in all. Narrow its rows or columns.`,
      );
    const rows = values.map((row) => ({
      values: Array.from({ length: columns }, (_, c) => cellOf(row[c])),
    }));
    read.push({ name: entry.name, rows, columns, cells: rows.length * columns });
    left -= rows.length * columns;
  }
  return read;
}

/** The tab and columns an import reads; refused in words when the range does not bound its columns. */
function boundedRead(entry: FormulaImport) {
  const { sheetTitle, cells } = splitRange(entry.range);
  const bounds = gridBounds(cells);
  if (bounds?.startColumnIndex === undefined || bounds.endColumnIndex === undefined)
    throw new ToolError(
      `imports "${entry.name}": name the columns of ${entry.range}, as Scores!A:D or Scores!A2:D500.`,
    );
  return { title: sheetTitle, bounds, columns: bounds.endColumnIndex - bounds.startColumnIndex };
}

/** A value as written into the import tab: text stays text (a leading = or ' included). */
function cellOf(value: Value): sheets_v4.Schema$CellData {
  if (value === undefined || value === null || value === '') return {};
  if (typeof value === 'number') return { userEnteredValue: { numberValue: value } };
  if (typeof value === 'boolean') return { userEnteredValue: { boolValue: value } };
  return { userEnteredValue: { stringValue: value } };
}
