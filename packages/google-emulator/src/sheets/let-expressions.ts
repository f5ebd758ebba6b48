/**
 * Sheets' LET (https://support.google.com/docs/answer/13190535): `LET(name1, value_expression1,
 * [name2, value_expression2, …], formula_expression)` names values for the formula expression; a
 * value expression may use the names before it. HyperFormula has no LET, and a function plugin
 * cannot bind names it parses as named ranges, so each LET is written out before evaluation: every
 * name in the expressions after it replaced by its value expression, in parentheses. The innermost
 * LET is written out first, so an inner name hides an outer one of the same spelling. A value is
 * then computed wherever its name is used, which differs from Sheets only for volatile functions
 * (RAND, NOW) used through a name more than once (README-sheets.md).
 */

const LET_CALL = /(?<![\w.$])LET\s*\(/gi;
const NAME = /^[A-Za-z_][\w.]*$/;
/** A cell reference (A1, $AB$12) or R1C1-looking name, which Sheets refuses as a LET name. */
const CELL_LIKE = /^(\$?[A-Za-z]{1,3}\$?\d+|[Rr]\d*[Cc]\d*)$/;
/** Past this length a written-out formula (names used inside names, many times) is left as it was. */
const MAX_EXPANDED = 50_000;

/** The formula with each LET written out, or as given when one cannot be (left to report `#NAME?`). */
export function expandLet(formula: string): string {
  let current = formula;
  for (;;) {
    const call = innermostLet(current);
    if (!call) return current;
    const written = writeOut(call.args);
    if (written === undefined) return formula;
    current = `${current.slice(0, call.start)}(${written})${current.slice(call.end)}`;
    if (current.length > MAX_EXPANDED) return formula;
  }
}

interface LetCall {
  start: number;
  /** Just past its closing parenthesis. */
  end: number;
  args: string[];
}

/** The last LET call opened (outside string literals) whose arguments hold no other. */
function innermostLet(formula: string): LetCall | undefined {
  const starts: Array<{ start: number; open: number }> = [];
  for (const match of formula.matchAll(LET_CALL))
    if (!insideString(formula, match.index))
      starts.push({ start: match.index, open: match.index + match[0].length });
  for (let index = starts.length - 1; index >= 0; index--) {
    const { start, open } = starts[index] as { start: number; open: number };
    const parsed = argumentsFrom(formula, open);
    if (parsed) return { start, end: parsed.end, args: parsed.args };
  }
  return undefined;
}

function insideString(formula: string, at: number): boolean {
  let inside = false;
  for (let index = 0; index < at; index++) if (formula[index] === '"') inside = !inside;
  return inside;
}

/** The top-level comma-separated arguments from just after `(` to the matching `)`. */
function argumentsFrom(formula: string, open: number): { args: string[]; end: number } | undefined {
  const args: string[] = [];
  let depth = 0;
  let from = open;
  for (let index = open; index < formula.length; index++) {
    const char = formula[index];
    if (char === '"' || char === "'") {
      const close = formula.indexOf(char, index + 1);
      if (close < 0) return undefined;
      index = close;
    } else if (char === '(' || char === '{') depth++;
    else if (char === '}') depth--;
    else if (char === ')') {
      if (depth === 0) {
        args.push(formula.slice(from, index));
        return { args, end: index + 1 };
      }
      depth--;
    } else if (char === ',' && depth === 0) {
      args.push(formula.slice(from, index));
      from = index + 1;
    }
  }
  return undefined;
}

/** LET's arguments as one expression, or undefined when they are not names and values. */
function writeOut(args: string[]): string | undefined {
  if (args.length < 3 || args.length % 2 === 0) return undefined;
  const names = args
    .slice(0, -1)
    .filter((_, index) => index % 2 === 0)
    .map((name) => name.trim());
  if (names.some((name) => !NAME.test(name) || CELL_LIKE.test(name))) return undefined;
  const lowered = names.map((name) => name.toLowerCase());
  if (new Set(lowered).size !== names.length) return undefined;
  // The last name first: the body then holds the later values, with the earlier names they use.
  const parts = args.map((arg) => arg.trim());
  let body = parts[parts.length - 1] as string;
  for (let pair = names.length - 1; pair >= 0; pair--)
    body = replaceName(body, names[pair] as string, `(${parts[pair * 2 + 1]})`);
  return body;
}

/**
 * The expression with each use of the name (any case; not a function's name, a tab's, nor inside
 * a string literal or a quoted tab name) replaced by the value.
 */
function replaceName(expression: string, name: string, value: string): string {
  const use = new RegExp(String.raw`(?<![\w.$!'])${escapeRegExp(name)}(?![\w.(!])`, 'gi');
  return expression
    .split(/("(?:[^"]|"")*"|'(?:[^']|'')*')/)
    .map((part, index) => (index % 2 === 1 ? part : part.replace(use, () => value)))
    .join('');
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
