/**
 * IMPORTRANGE(spreadsheet_url, range_string) (https://support.google.com/docs/answer/3093340):
 * the values of a range of another spreadsheet, named by its URL or id, the range as
 * `[sheet_name!]range` ("by default IMPORTRANGE will import from the given range of the first
 * sheet"). Google asks a person to allow access the first time a spreadsheet imports from a new
 * source; the emulator has no such step, so it imports from spreadsheets of the importing one's
 * owner, and for any other (or one that does not exist) answers `#REF!` "You need to connect these
 * sheets.", as the cell reads before access is allowed.
 *
 * The formula's own spreadsheet is not known to HyperFormula's functions: `withImportOrigin`
 * writes its id into each IMPORTRANGE call as a first argument before evaluation.
 */
import { resolveRange } from './a1-notation.ts';
import { effectiveCell } from './cell-values.ts';
import { evaluateSpreadsheet } from './formulas.ts';
import type { SpreadsheetModel } from './model.ts';
import type { QueryValue } from './query-language.ts';

/** Where IMPORTRANGE finds spreadsheets and their owners: one per emulator (sheets-part.ts). */
export interface ImportSources {
  spreadsheet(id: string): SpreadsheetModel | undefined;
  owner(id: string): string | undefined;
}

const registered = new Set<ImportSources>();

export function addImportSources(sources: ImportSources): () => void {
  registered.add(sources);
  return () => registered.delete(sources);
}

export const NOT_CONNECTED = 'You need to connect these sheets.';

export type ImportResult = { values: QueryValue[][] } | { error: string };

/** Spreadsheets being evaluated for an import, to stop one that imports itself through others. */
const importing = new Set<string>();

/** The area an import reads (rows × columns), without evaluating it; undefined when it cannot. */
export function importSize(
  origin: string,
  url: string,
  range: string,
): { rows: number; columns: number } | undefined {
  const found = resolveImport(origin, url, range);
  if ('error' in found) return undefined;
  return {
    rows: found.bounds.endRow - found.bounds.startRow,
    columns: found.bounds.endColumn - found.bounds.startColumn,
  };
}

export function importRange(origin: string, url: string, range: string): ImportResult {
  const found = resolveImport(origin, url, range);
  if ('error' in found) return found;
  const { source, sheetIndex, bounds } = found;
  if (importing.has(source.spreadsheetId))
    return {
      error: 'Circular dependency detected. To resolve with iterative calculation, see File > Settings.',
    };
  importing.add(source.spreadsheetId);
  try {
    const evaluation = evaluateSpreadsheet(source);
    const sheet = source.sheets[sheetIndex];
    const values: QueryValue[][] = [];
    for (let row = bounds.startRow; row < bounds.endRow; row++) {
      const line: QueryValue[] = [];
      for (let column = bounds.startColumn; column < bounds.endColumn; column++) {
        const value = effectiveCell(
          evaluation,
          sheetIndex,
          row,
          column,
          sheet?.rows[row]?.[column],
        ).effectiveValue;
        line.push(value?.numberValue ?? value?.stringValue ?? value?.boolValue ?? null);
      }
      values.push(line);
    }
    return { values };
  } finally {
    importing.delete(source.spreadsheetId);
  }
}

function resolveImport(
  origin: string,
  url: string,
  range: string,
):
  | {
      source: SpreadsheetModel;
      sheetIndex: number;
      bounds: { startRow: number; endRow: number; startColumn: number; endColumn: number };
    }
  | { error: string } {
  const id = /\/spreadsheets\/d\/([\w-]+)/.exec(url)?.[1] ?? url.trim();
  for (const sources of registered) {
    if (!sources.spreadsheet(origin)) continue;
    const source = sources.spreadsheet(id);
    const owner = sources.owner(origin);
    if (!source || owner === undefined || sources.owner(id) !== owner) return { error: NOT_CONNECTED };
    try {
      const resolved = resolveRange(source, range);
      return { source, sheetIndex: source.sheets.indexOf(resolved.sheet), bounds: resolved.bounds };
    } catch {
      return { error: `Unable to parse range: ${range}` };
    }
  }
  return { error: NOT_CONNECTED };
}

const STRING_LITERAL = /("(?:[^"]|"")*")/;

/** Each `IMPORTRANGE(` outside string literals given the formula's spreadsheet id as a first argument. */
export function withImportOrigin(formula: string, spreadsheetId: string): string {
  if (!/importrange\s*\(/i.test(formula)) return formula;
  return formula
    .split(STRING_LITERAL)
    .map((part, index) =>
      index % 2 === 1 ? part : part.replace(/\bIMPORTRANGE\s*\(/gi, (call) => `${call}"${spreadsheetId}",`),
    )
    .join('');
}
