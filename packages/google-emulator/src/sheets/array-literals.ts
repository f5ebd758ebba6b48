/**
 * Array literals holding function calls, as HSTACK and VSTACK. Sheets takes any expression in
 * `{…}`, a comma joining side by side and a semicolon stacking below ("Using arrays in Google
 * Sheets", https://support.google.com/docs/answer/6208276): `={SUM(A1:A2),1}` shows the sum and 1
 * side by side. HyperFormula evaluates constants, references and arithmetic in its inline arrays,
 * but a function reading a range there (`{SUM(A1:A2),1}`) finds the range missing from its
 * dependency graph, which never joins ranges read inside an inline array, and throws. Its HSTACK
 * and VSTACK take the same expressions with their ranges joined, so a literal with a function call
 * in it is written as those. A literal of constants, references and arithmetic stays as it is, so
 * that it keeps the engine's own checks (rows of unequal length are an error).
 */

const CALL_OPENED = /[A-Za-z_][\w.]*\s*\($/;

/** `formula` with each array literal that holds a function call written as VSTACK of HSTACKs. */
export function stackArrayLiterals(formula: string): string {
  if (!formula.includes('{')) return formula;
  const [text] = translate(formula, 0, false);
  return text;
}

/**
 * The text from `start` to the end (or, `inLiteral`, to the `}` closing a literal, then the literal
 * itself, translated), and the index past what was read.
 */
function translate(formula: string, start: number, inLiteral: boolean): [string, number] {
  const rows: string[][] = [[]];
  let piece = '';
  let depth = 0;
  let calls = false;
  let index = start;
  while (index < formula.length) {
    const char = formula[index] as string;
    if (char === '"' || char === "'") {
      const end = quotedEnd(formula, index);
      piece += formula.slice(index, end);
      index = end;
      continue;
    }
    if (char === '{') {
      const [literal, end] = translate(formula, index + 1, true);
      piece += literal;
      if (!literal.startsWith('{')) calls = true;
      index = end;
      continue;
    }
    if (inLiteral && depth === 0 && char === '}') {
      (rows.at(-1) as string[]).push(piece);
      if (!calls) return [`{${rows.map((row) => row.join(',')).join(';')}}`, index + 1];
      const stacked = rows.map((row) => `HSTACK(${row.join(',')})`);
      return [stacked.length === 1 ? (stacked[0] as string) : `VSTACK(${stacked.join(',')})`, index + 1];
    }
    if (char === '(') depth++;
    else if (char === ')') depth--;
    if (inLiteral && depth === 0 && (char === ',' || char === ';')) {
      (rows.at(-1) as string[]).push(piece);
      if (char === ';') rows.push([]);
      piece = '';
      index++;
      continue;
    }
    piece += char;
    if (inLiteral && char === '(' && CALL_OPENED.test(piece.slice(-256))) calls = true;
    index++;
  }
  // An unclosed literal is left as written, for the engine to report it as a parse error.
  return [inLiteral ? formula.slice(start - 1) : piece, index];
}

/** The index past the string or quoted tab name opening at `start` (a doubled quote inside). */
function quotedEnd(formula: string, start: number): number {
  const quote = formula[start];
  let index = start + 1;
  while (index < formula.length) {
    if (formula[index] === quote) {
      if (formula[index + 1] === quote) index += 2;
      else return index + 1;
    } else index++;
  }
  return index;
}
