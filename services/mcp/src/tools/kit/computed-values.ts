import type { sheets_v4 } from 'googleapis';
import { ToolError } from '../../errors/tool-error.ts';
import { SHOWN_ERRORS } from './formula-errors.ts';
import { evaluateOffTabs, MAX_EVALUATED_FORMULAS, RESULT_COLUMNS, rowsKeptOf } from './formula-scratch.ts';
import { evaluationRefusal } from './formula-text.ts';
import type { ToolDeps } from './tool-deps.ts';

type Cell = string | number | boolean | null;

const isFormula = (value: unknown): value is string => typeof value === 'string' && value.startsWith('=');

/**
 * write_range's `valuesOnly` (issue 36, item 2): `values` with every formula replaced by what it
 * computes, evaluated off the tabs (formula-scratch.ts), an array result filling the cells from its
 * formula's down and right, as it would spill. What is written then is values as USER_ENTERED reads
 * them: numbers and true/false as they are, a date or time as Sheets shows it (read back as one),
 * text behind an apostrophe (kept as text, whatever it looks like). Refused before anything is
 * written: an error result, a result cut by the scratch tab, or one that would cover a given value
 * or another result (where Sheets would show #REF!).
 */
export async function computedValues(
  deps: Pick<ToolDeps, 'sheets' | 'callGoogle'>,
  userId: string,
  signal: AbortSignal,
  spreadsheetId: string,
  values: readonly (readonly Cell[])[],
): Promise<Cell[][]> {
  const at: Array<[row: number, column: number]> = [];
  for (const [r, row] of values.entries())
    for (const [c, value] of row.entries()) if (isFormula(value)) at.push([r, c]);
  if (at.length === 0) throw new ToolError('valuesOnly computes formulas, and values holds none (=…).');
  if (at.length > MAX_EVALUATED_FORMULAS)
    throw new ToolError(
      `valuesOnly computes at most ${MAX_EVALUATED_FORMULAS} formulas a call; values holds ${at.length}.`,
    );
  const name = ([r, c]: [number, number]) => `values[${r}][${c}]`;
  for (const cell of at) {
    const refusal = evaluationRefusal(values[cell[0]]![cell[1]] as string);
    if (refusal) throw new ToolError(`Nothing was written: ${name(cell)}: ${refusal}`);
  }
  const evaluations = await evaluateOffTabs(
    deps,
    userId,
    signal,
    spreadsheetId,
    at.map(([r, c]) => values[r]![c] as string),
  );
  const out: Cell[][] = values.map((row) => [...row]);
  const filledBy = new Map<string, string>();
  for (const [index, evaluation] of evaluations.entries()) {
    const cell = at[index]!;
    const [top, left] = cell;
    if (evaluation.error)
      throw new ToolError(
        `Nothing was written: ${name(cell)} evaluates to ${evaluation.error.error} ${evaluation.error.message}`.trimEnd(),
      );
    if (evaluation.rows > rowsKeptOf(at.length) || evaluation.columns > RESULT_COLUMNS)
      throw new ToolError(
        `Nothing was written: ${name(cell)} computes ${evaluation.rows} rows × ${evaluation.columns} columns; valuesOnly writes at most ${rowsKeptOf(at.length)} × ${RESULT_COLUMNS} from one formula here. Narrow it (QUERY's "limit … offset …") and write the rest below.`,
      );
    for (let r = 0; r < Math.max(1, evaluation.rows); r++)
      for (let c = 0; c < Math.max(1, evaluation.columns); c++) {
        const row = top + r;
        const column = left + c;
        const key = `${row}:${column}`;
        const given = r === 0 && c === 0 ? null : (values[row]?.[column] ?? null);
        const other = filledBy.get(key);
        if (given !== null || other)
          throw new ToolError(
            `Nothing was written: the result of ${name(cell)} (${evaluation.rows} × ${evaluation.columns}) would cover ${other ? `the result of ${other}` : `values[${row}][${column}]`}; move one of them.`,
          );
        filledBy.set(key, name(cell));
        out[row] ??= [];
        const value = writtenValue(evaluation.cells[r]?.[c]);
        if (typeof value === 'string' && value.startsWith('#'))
          throw new ToolError(
            `Nothing was written: the result of ${name(cell)} holds ${value} at row ${r + 1}, column ${c + 1}.`,
          );
        out[row]![column] = value;
      }
  }
  // Rows a result added below the given ones are dense up to their last cell (no holes in JSON).
  return out.map((row) => Array.from(row ?? [], (value) => value ?? null));
}

/** A result's cell as USER_ENTERED reads it back as the same value; an error as its text (refused by the caller). */
function writtenValue(cell: sheets_v4.Schema$CellData | undefined): Cell {
  const value = cell?.effectiveValue;
  if (!value) return '';
  if (value.errorValue) return SHOWN_ERRORS[value.errorValue.type ?? ''] ?? '#ERROR!';
  if (value.boolValue != null) return value.boolValue;
  if (value.numberValue != null) {
    const type = cell?.effectiveFormat?.numberFormat?.type;
    const dated = type === 'DATE' || type === 'TIME' || type === 'DATE_TIME';
    return dated && cell?.formattedValue ? cell.formattedValue : value.numberValue;
  }
  return value.stringValue ? `'${value.stringValue}` : '';
}
