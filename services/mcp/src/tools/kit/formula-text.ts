/**
 * What a formula's text says before Google evaluates it off the person's tabs (formula-scratch.ts):
 * whether it reaches outside the spreadsheet, and whether it names a cell without its tab (which a
 * scratch tab would read as its own, empty, cells). Read from the text by hand: no parser of
 * Sheets' formula grammar is published as a library, and these checks need only its tokens —
 * string literals, quoted tab names, function names and A1 references.
 */

/**
 * Functions that fetch from outside the spreadsheet (Sheets function list, "Web" functions, and
 * IMPORTRANGE, which reads another spreadsheet; sources in docs/design.md §11.10). Refused by
 * evaluate_formulas outright; in what other tools write, an outbound action
 * (tools/guards/fetch-formulas.ts) held to the operator's OUTBOUND_FETCH_FORMULAS.
 */
export const OUTBOUND_FUNCTIONS = [
  'IMPORTXML',
  'IMPORTDATA',
  'IMPORTHTML',
  'IMPORTFEED',
  'IMPORTRANGE',
  'IMAGE',
] as const;

/** The text with its string literals ("…", "" inside) and quoted tab names ('…', '' inside) blanked. */
export function codeOf(formula: string): string {
  return formula.replace(/"(?:[^"]|"")*"?|'(?:[^']|'')*'?/g, (quoted) =>
    quoted.startsWith("'") ? "'t'" : '""',
  );
}

const OUTBOUND = new RegExp(`(?<![\\w.])(${OUTBOUND_FUNCTIONS.join('|')})\\s*\\(`, 'i');

/** The first outbound function the formula calls, upper-case; undefined when none. */
export function outboundFunctionIn(formula: string): string | undefined {
  return OUTBOUND.exec(codeOf(formula))?.[1]?.toUpperCase();
}

/**
 * An A1 reference not after `!` (a cell `B2`, a range `B2:C9`, columns `A:D`, rows `2:9`): the
 * first one, as written; undefined when every reference names its tab. A name followed by `(` is a
 * function (`LOG10(`), one inside a longer word a named range or a number (`1E10`).
 */
const BARE_REFERENCE =
  /(?<![\w!.:$'"])(\$?[A-Z]{1,3}\$?\d+(?::\$?[A-Z]{1,3}\$?\d*)?|\$?[A-Z]{1,3}:\$?[A-Z]{1,3}(?:\$?\d+)?|\$?\d+:\$?\d+)(?![\w(!.])/i;

export function bareReferenceIn(formula: string): string | undefined {
  return BARE_REFERENCE.exec(codeOf(formula))?.[1];
}

/** Why a formula cannot be evaluated off the tabs, in words; undefined when it can. */
export function evaluationRefusal(formula: string): string | undefined {
  if (!formula.startsWith('=') || formula.trim().length < 2)
    return `"${formula.slice(0, 40)}" is not a formula: it must start with =.`;
  const outbound = outboundFunctionIn(formula);
  if (outbound)
    return `${outbound} fetches from outside the spreadsheet and is not evaluated here; read the data it would fetch instead.`;
  const code = codeOf(formula);
  let depth = 0;
  for (const character of code) {
    depth += character === '(' ? 1 : character === ')' ? -1 : 0;
    if (depth < 0) break;
  }
  if (depth !== 0) return 'its parentheses do not balance.';
  const bare = bareReferenceIn(formula);
  if (bare)
    return `${bare} has no tab name; formulas here are evaluated off every tab, so name it: Orders!${bare.replace(/^\$/, '')}.`;
  return undefined;
}
