import { z } from 'zod';
import type { AuthInfo } from '../../auth/auth-info.ts';
import { ToolError } from '../../errors/tool-error.ts';
import { columnLetters, gridBounds, rangeOnSheet, splitRange } from './a1.ts';
import { readCells } from './cells-read.ts';
import type { ToolDeps } from './tool-deps.ts';

/**
 * Whether the formulas a write put in cells evaluate to errors, said with Google's own error: a
 * write Google accepted may still leave `#REF!` or `#ERROR!` in its cells, and its answer gives
 * only counts. One spreadsheets.get of the written formula cells reads each one's
 * `effectiveValue.errorValue` (Sheets API CellData: "for cells with formulas, this is the
 * calculated value"; ErrorValue: its `type` and "a message with more information about the error",
 * https://developers.google.com/workspace/sheets/api/reference/rest/v4/spreadsheets/other#ErrorValue);
 * a write with no formula reads nothing more.
 */

/** The most cells an answer lists; the count says how many there are. */
export const LISTED_FORMULA_ERRORS = 20;

const formulaError = z.object({ cell: z.string(), error: z.string(), message: z.string() });
export type FormulaError = z.infer<typeof formulaError>;

/** The fields a value write's structured result has when it wrote formulas. */
export const formulaErrorsOutput = {
  formulaErrors: z
    .array(formulaError)
    .optional()
    .describe(
      `Written formulas that evaluate to an error (the first ${LISTED_FORMULA_ERRORS}): the cell, what it shows (#REF!) and Google's message.`,
    ),
  formulaErrorCount: z
    .number()
    .optional()
    .describe('How many written formulas evaluate to an error; absent when none was written.'),
};

/** A block of values as written: Google's answered range (its top-left cell is the first value's). */
export interface WrittenBlock {
  range: string;
  values: readonly (readonly unknown[])[];
}

export interface FormulaCheck {
  /** For the structured result: empty when no formula was written. */
  output: { formulaErrors?: FormulaError[]; formulaErrorCount?: number };
  /** Said after the write's first clause: ", but 2 formulas evaluate to an error (below)". */
  clause: string;
  /** The listed cells, one line each, to end the answer with. */
  list: string;
}

const NO_FORMULAS: FormulaCheck = { output: {}, clause: '', list: '' };

/** Sheets API ErrorType: the text a cell shows for each. */
export const SHOWN_ERRORS: Record<string, string> = {
  ERROR: '#ERROR!',
  NULL_VALUE: '#NULL!',
  DIVIDE_BY_ZERO: '#DIV/0!',
  VALUE: '#VALUE!',
  REF: '#REF!',
  NAME: '#NAME?',
  NUM: '#NUM!',
  N_A: '#N/A',
};

interface FormulaCell {
  sheet: string;
  row: number;
  column: number;
}

const keyOf = (sheet: string, row: number, column: number) => `${sheet}\n${row}\n${column}`;

/**
 * USER_ENTERED parses a string starting with = as a formula, as typed into Sheets (text behind an
 * apostrophe, `'=1+1`, stays text); RAW stores every string as text.
 */
function isFormula(value: unknown): value is string {
  return typeof value === 'string' && value.length > 1 && value.startsWith('=');
}

/** The cells of `blocks` holding formulas, in the order written; a later block's cell replaces an earlier one's. */
function formulaCells(blocks: readonly WrittenBlock[]): { cells: FormulaCell[]; ranges: string[] } {
  const written = new Map<string, FormulaCell | undefined>();
  const ranges: string[] = [];
  for (const block of blocks) {
    const { sheetTitle, cells } = splitRange(block.range);
    const sheet = sheetTitle ?? '';
    const corner = gridBounds(cells) ?? {};
    const top = corner.startRowIndex ?? 0;
    const left = corner.startColumnIndex ?? 0;
    let box: { top: number; bottom: number; left: number; right: number } | undefined;
    for (const [r, row] of block.values.entries()) {
      for (const [c, value] of row.entries()) {
        if (value === null) continue;
        const key = keyOf(sheet, top + r, left + c);
        written.delete(key);
        if (!isFormula(value)) {
          written.set(key, undefined);
          continue;
        }
        written.set(key, { sheet, row: top + r, column: left + c });
        box = box
          ? {
              top: box.top,
              bottom: top + r,
              left: Math.min(box.left, left + c),
              right: Math.max(box.right, left + c),
            }
          : { top: top + r, bottom: top + r, left: left + c, right: left + c };
      }
    }
    if (box)
      ranges.push(
        rangeOnSheet(
          sheet,
          `${columnLetters(box.left)}${box.top + 1}:${columnLetters(box.right)}${box.bottom + 1}`,
        ),
      );
  }
  return { cells: [...written.values()].filter((cell) => cell !== undefined), ranges };
}

/**
 * Reads the errors of the formulas `blocks` wrote (after the write, and after it is journaled).
 * A failed read leaves the write as done and says its formulas were not checked.
 */
export async function checkWrittenFormulas(
  deps: ToolDeps,
  auth: AuthInfo,
  signal: AbortSignal,
  spreadsheetId: string,
  valueInputOption: 'USER_ENTERED' | 'RAW',
  blocks: readonly WrittenBlock[],
): Promise<FormulaCheck> {
  if (valueInputOption === 'RAW') return NO_FORMULAS;
  const { cells, ranges } = formulaCells(blocks);
  if (cells.length === 0) return NO_FORMULAS;
  const errors = new Map<string, { type: string; message: string }>();
  try {
    await readCells(
      deps,
      auth,
      signal,
      spreadsheetId,
      { ranges, cellFields: 'effectiveValue(errorValue)' },
      (cell, at) => {
        const error = cell.effectiveValue?.errorValue;
        // LOADING is a formula still being calculated (IMPORTRANGE and the like), not an error.
        if (!error?.type || error.type === 'LOADING') return;
        errors.set(keyOf(at.sheet, at.row, at.column), { type: error.type, message: error.message ?? '' });
      },
    );
  } catch (error) {
    if (!(error instanceof ToolError) || signal.aborted) throw error;
    return {
      output: {},
      clause: `; its formulas could not be checked for errors (${error.message})`,
      list: '',
    };
  }
  const failing = cells.filter((cell) => errors.has(keyOf(cell.sheet, cell.row, cell.column)));
  const listed = failing.slice(0, LISTED_FORMULA_ERRORS).map((cell): FormulaError => {
    const error = errors.get(keyOf(cell.sheet, cell.row, cell.column)) as { type: string; message: string };
    return {
      cell: rangeOnSheet(cell.sheet, `${columnLetters(cell.column)}${cell.row + 1}`),
      error: SHOWN_ERRORS[error.type] ?? error.type,
      message: error.message,
    };
  });
  const output = { formulaErrors: listed, formulaErrorCount: failing.length };
  if (failing.length === 0) return { output, clause: '', list: '' };
  const how =
    failing.length === 1
      ? '1 formula evaluates'
      : `${failing.length.toLocaleString('en-US')} formulas evaluate`;
  const which = failing.length > listed.length ? `the first ${listed.length} below` : 'below';
  return {
    output,
    clause: `, but ${how} to an error (${which})`,
    list: listed.map((entry) => `\n- ${entry.cell}: ${entry.error} ${entry.message}`.trimEnd()).join(''),
  };
}
