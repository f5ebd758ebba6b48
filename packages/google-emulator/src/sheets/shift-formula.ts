/**
 * A formula copied or filled to another cell, as Sheets rewrites it: every relative part of an A1
 * reference (`B2`, `B$2`, `$B2`, `Tab!B2:C3`, `B:B`, `2:2`) moves by the distance the formula
 * moved, `$`-anchored parts stay, text and quoted tab names are left alone, and a reference moved before row 1
 * or column A becomes `#REF!`.
 */
import { columnToLetters, lettersToColumn } from './a1-notation.ts';

// A cell (`$A$1`), or a whole column or row in a range (`A:B`, `2:5`); not a function name (`LOG10(`),
// nor part of a longer name.
const REFERENCE =
  /(?<![A-Za-z0-9_.$])(?:(\$?)([A-Za-z]{1,3})(\$?)(\d{1,7})|(\$?)([A-Za-z]{1,3}):(\$?)([A-Za-z]{1,3})|(\$?)(\d{1,7}):(\$?)(\d{1,7}))(?![A-Za-z0-9_(!])/g;

export function shiftFormula(formula: string, rows: number, columns: number): string {
  if (rows === 0 && columns === 0) return formula;
  return formula
    .split(/("(?:[^"]|"")*"|'(?:[^']|'')*')/)
    .map((part, index) => (index % 2 === 1 ? part : shiftReferences(part, rows, columns)))
    .join('');
}

function shiftReferences(text: string, rows: number, columns: number): string {
  return text.replace(REFERENCE, (match, ...groups: Array<string | undefined>) => {
    const [
      cAnchor,
      cLetters,
      rAnchor,
      rDigits,
      aAnchor,
      aLetters,
      bAnchor,
      bLetters,
      xAnchor,
      xDigits,
      yAnchor,
      yDigits,
    ] = groups;
    if (cLetters !== undefined) {
      const column = shiftColumn(cLetters, cAnchor, columns);
      const row = shiftRow(rDigits as string, rAnchor, rows);
      return column === undefined || row === undefined ? '#REF!' : `${cAnchor}${column}${rAnchor}${row}`;
    }
    if (aLetters !== undefined) {
      const first = shiftColumn(aLetters, aAnchor, columns);
      const last = shiftColumn(bLetters as string, bAnchor, columns);
      return first === undefined || last === undefined ? '#REF!' : `${aAnchor}${first}:${bAnchor}${last}`;
    }
    if (xDigits !== undefined) {
      const first = shiftRow(xDigits, xAnchor, rows);
      const last = shiftRow(yDigits as string, yAnchor, rows);
      return first === undefined || last === undefined ? '#REF!' : `${xAnchor}${first}:${yAnchor}${last}`;
    }
    return match;
  });
}

function shiftColumn(letters: string, anchor: string | undefined, by: number): string | undefined {
  if (anchor) return letters;
  const column = lettersToColumn(letters) + by;
  return column < 0 ? undefined : columnToLetters(column);
}

function shiftRow(digits: string, anchor: string | undefined, by: number): string | undefined {
  if (anchor) return digits;
  const row = Number(digits) + by;
  return row < 1 ? undefined : String(row);
}
