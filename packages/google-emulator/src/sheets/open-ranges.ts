/**
 * Sheets' open-ended ranges, which HyperFormula does not parse: `C2:C` (column C from row 2 to the
 * end of the tab) and `A2:2` (row 2 from column A to the end); and the whole-column `C:C` and
 * whole-row `2:2`, which HyperFormula takes but as far as its own limits. Google's A1 notation: "`Sheet1!A5:A` refers to all
 * the cells of the first column of Sheet 1, from row 5 onward"
 * (https://developers.google.com/workspace/sheets/api/guides/concepts, "A1 notation"); formulas
 * take the same references. Before evaluation each is closed at the last row or column of its
 * tab's grid, where Google's ends. The bound added is absolute (`C2:C$1000`, `A$1:A$1000`), as it
 * does not move with the formula's cell: filled-down formulas then read alike to HyperFormula,
 * which parses one of them and reuses the parse for the rest (its cache is keyed by the formula's
 * relative form).
 */
import { columnToLetters, lettersToColumn } from './a1-notation.ts';

export interface TabExtent {
  rows: number;
  columns: number;
}

const STRING_LITERAL = /("(?:[^"]|"")*")/;
const SHEET = String.raw`(?:'(?:[^']|'')*'|[A-Za-z_][\w.]*)`;
// Neither kind ends before a `$`: the `$B$1:$B` of `$B$1:$B$4` starts a closed range, not an open one.
const OPEN_RANGE = new RegExp(
  String.raw`(?<![\w.'!$:])(?:(${SHEET})!)?(\$?)([A-Za-z]{1,3})(\$?)(\d+):(?:(\$?[A-Za-z]{1,3})|(\$?\d+))(?![\w(!.:$])`,
  'g',
);
const WHOLE_RANGE = new RegExp(
  String.raw`(?<![\w.'!$:])(?:(${SHEET})!)?(?:(\$?[A-Za-z]{1,3}):(\$?[A-Za-z]{1,3})|(\$?\d+):(\$?\d+))(?![\w(!.:$])`,
  'g',
);

/**
 * The formula with each open-ended or whole range closed at its tab's grid end; `extentOf` answers for a tab
 * named in the formula (`undefined`: the formula's own tab), or undefined when there is no such
 * tab, in which case the range is left for the engine to report.
 */
export function closeOpenRanges(
  formula: string,
  extentOf: (sheet: string | undefined) => TabExtent | undefined,
): string {
  return formula
    .split(STRING_LITERAL)
    .map((part, index) =>
      index % 2 === 1
        ? part
        : part
            .replace(
              OPEN_RANGE,
              (
                match,
                sheet: string | undefined,
                columnDollar: string,
                column: string,
                rowDollar: string,
                row: string,
                endColumn: string | undefined,
                endRow: string | undefined,
              ) => {
                const extent = extentOf(sheet === undefined ? undefined : unquote(sheet));
                if (!extent) return match;
                const start = `${sheet === undefined ? '' : `${sheet}!`}${columnDollar}${column}${rowDollar}${row}`;
                if (endColumn !== undefined) {
                  const lastRow = Math.max(extent.rows, Number(row));
                  return `${start}:${endColumn}$${lastRow}`;
                }
                const lastColumn = Math.max(extent.columns, lettersToColumn(column) + 1);
                return `${start}:$${columnToLetters(lastColumn - 1)}${endRow}`;
              },
            )
            .replace(
              WHOLE_RANGE,
              (
                match,
                sheet: string | undefined,
                column: string | undefined,
                endColumn: string | undefined,
                row: string | undefined,
                endRow: string | undefined,
              ) => {
                const extent = extentOf(sheet === undefined ? undefined : unquote(sheet));
                if (!extent) return match;
                const prefix = sheet === undefined ? '' : `${sheet}!`;
                if (column !== undefined)
                  return `${prefix}${column}$1:${endColumn}$${Math.max(extent.rows, 1)}`;
                return `${prefix}$A${row}:$${columnToLetters(Math.max(extent.columns, 1) - 1)}${endRow}`;
              },
            ),
    )
    .join('');
}

function unquote(sheet: string): string {
  return sheet.startsWith("'") ? sheet.slice(1, -1).replaceAll("''", "'") : sheet;
}
