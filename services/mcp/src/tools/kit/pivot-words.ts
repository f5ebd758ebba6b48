/**
 * A pivot table in words, as set_pivot_table says what it wrote and read_cell_details what is at a
 * cell: its source's columns named by their header text, read in one values.batchGet.
 */
import type { sheets_v4 } from 'googleapis';
import { columnLetters } from './a1.ts';
import { a1Of, type Tab } from './rule-grid.ts';
import type { ToolDeps } from './tool-deps.ts';

type PivotTable = sheets_v4.Schema$PivotTable;

/** The most characters of a column's name in an answer. */
export const NAME_CHARACTERS = 100;
/** A pivot table in words is cut here: filters may list many values. */
const WORDS_CHARACTERS = 2_000;

export const clip = (text: string, most: number) =>
  text.length > most ? `${text.slice(0, most - 1)}…` : text;

/** Each source's header texts (formatted, as a person sees them), in one values.batchGet. */
export async function pivotSourceHeaders(
  { sheets, callGoogle }: Pick<ToolDeps, 'sheets' | 'callGoogle'>,
  userId: string,
  signal: AbortSignal,
  spreadsheetId: string,
  sources: readonly sheets_v4.Schema$GridRange[],
  tabs: readonly Tab[],
): Promise<string[][]> {
  const ranges = sources.map((source) =>
    a1Of({ ...source, endRowIndex: (source.startRowIndex ?? 0) + 1 }, tabs),
  );
  const { data } = await callGoogle(userId, signal, (request) =>
    sheets.spreadsheets.values.batchGet({ spreadsheetId, ranges, majorDimension: 'ROWS' }, request),
  );
  return sources.map((source, index) => {
    const width = (source.endColumnIndex ?? 0) - (source.startColumnIndex ?? 0);
    const row = data.valueRanges?.[index]?.values?.[0] ?? [];
    return Array.from({ length: width }, (_, offset) => String(row[offset] ?? ''));
  });
}

/**
 * `from Sales!A1:D7: rows Region; columns Year; values SUM of Units; filters Region in ["East"]`:
 * a pivot table in words, its columns by their header text (by letter when the header has none).
 */
export function describePivot(pivot: PivotTable, header: readonly string[], tabs: readonly Tab[]): string {
  const first = pivot.source?.startColumnIndex ?? 0;
  const nameOf = (offset: number | null | undefined) =>
    clip(header[offset ?? 0]?.trim() || columnLetters(first + (offset ?? 0)), NAME_CHARACTERS);
  const parts = [`from ${a1Of(pivot.source ?? undefined, tabs)}`];
  const groupWords = (list: sheets_v4.Schema$PivotGroup[] | undefined) =>
    (list ?? [])
      .map(
        (each) =>
          `${each.label || nameOf(each.sourceColumnOffset)}${each.valueBucket ? ' (by value)' : ''}${each.sortOrder === 'DESCENDING' ? ' (descending)' : ''}${each.showTotals ? '' : ' (no totals)'}`,
      )
      .join(', ');
  if (pivot.rows?.length) parts.push(`rows ${groupWords(pivot.rows)}`);
  if (pivot.columns?.length) parts.push(`columns ${groupWords(pivot.columns)}`);
  if (pivot.values?.length)
    parts.push(
      `values ${pivot.values
        .map(
          (each) => each.name || `${each.summarizeFunction ?? 'SUM'} of ${nameOf(each.sourceColumnOffset)}`,
        )
        .join(', ')}`,
    );
  if (pivot.filterSpecs?.length)
    parts.push(
      `filters ${pivot.filterSpecs
        .map((spec) => {
          const criteria = spec.filterCriteria ?? {};
          const shown = criteria.visibleValues
            ? ` in ${JSON.stringify(criteria.visibleValues.slice(0, 10))}`
            : '';
          const condition = criteria.condition
            ? ` ${criteria.condition.type}${(criteria.condition.values ?? []).map((value) => ` ${JSON.stringify(value.userEnteredValue ?? '')}`).join('')}`
            : '';
          return `${nameOf(spec.columnOffsetIndex)}${shown}${condition}`;
        })
        .join(', ')}`,
    );
  return clip(parts.join('; '), WORDS_CHARACTERS);
}
