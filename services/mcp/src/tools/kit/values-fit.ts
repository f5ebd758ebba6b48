import { ToolError } from '../../errors/tool-error.ts';
import { columnLetters, gridBounds, splitRange } from './a1.ts';

/**
 * Values that do not fit the range they are written to, refused as Google refuses them (a
 * values.update of rows outside a range of more than one cell), so a dry run says it too: rows
 * past the range's last row first, then columns past its last column. A single cell, a whole tab
 * and an open side (`A:B`, `A2:C`) take any number of rows or columns.
 */
export function checkValuesFit(range: string, values: readonly (readonly unknown[])[]): void {
  const bounds = gridBounds(splitRange(range).cells);
  if (!bounds) return;
  const top = bounds.startRowIndex ?? 0;
  const left = bounds.startColumnIndex ?? 0;
  const { endRowIndex: end, endColumnIndex: right } = bounds;
  if (end === top + 1 && right === left + 1) return;
  const widest = values.reduce((most, row) => Math.max(most, row.length), 0);
  const past =
    end !== undefined && top + values.length > end
      ? `row [${end + 1}]`
      : right !== undefined && left + widest > right
        ? `column [${columnLetters(right)}]`
        : undefined;
  if (past)
    throw new ToolError(
      `Requested writing within range [${range}], but tried writing to ${past}: the values are ${values.length} rows of at most ${widest} cells; give a range as large as the values, or only its first cell`,
    );
}
