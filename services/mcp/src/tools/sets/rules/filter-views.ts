/**
 * What the filter tools share: sort and criteria as the tools take them (columns by their letter)
 * turned into Google's SortSpec and FilterSpec, checked against the filter's range before Google
 * sees them, and a BasicFilter or FilterView read back as the tools show it.
 */
import type { sheets_v4 } from 'googleapis';
import { z } from 'zod';
import { ToolError } from '../../../errors/tool-error.ts';
import { columnLetters } from '../../kit/a1.ts';
import { a1Of, type Tab } from '../../kit/rule-grid.ts';
import {
  conditionGiven,
  conditionOf,
  conditionValues,
  FORMAT_CONDITIONS,
  formatCondition,
  valuesOf,
} from './rule-conditions.ts';

// Checked by a refinement rather than a regex so that tools/list says "Its letter." once, not
// again as a pattern.
const column = z
  .string()
  .refine((letters) => /^[A-Za-z]{1,3}$/.test(letters), 'a column letter such as C')
  .describe('Its letter.');

export const sortInput = z
  .array(z.object({ column, order: z.enum(['ASCENDING', 'DESCENDING']).default('ASCENDING') }))
  .max(26)
  .optional();

export const criteriaInput = z
  .array(
    z.object({
      column,
      hiddenValues: z.array(z.string().max(1_000)).max(500).optional(),
      condition: formatCondition.optional(),
      values: conditionValues,
    }),
  )
  .max(26)
  .optional()
  .describe('One per column.');

export const filterOutput = z.object({
  sheetId: z.number(),
  /** Null for a tab's basic filter. */
  filterViewId: z.number().nullable(),
  title: z.string().nullable(),
  range: z.string(),
  sort: z.array(z.object({ column: z.string(), order: z.string() })),
  criteria: z.array(
    z.object({
      column: z.string(),
      hiddenValues: z.array(z.string()),
      condition: z.string().nullable(),
      values: z.array(z.string()),
    }),
  ),
});
export type FilterView = z.infer<typeof filterOutput>;

function columnIndexOf(letters: string): number {
  return [...letters.toUpperCase()].reduce((total, letter) => total * 26 + letter.charCodeAt(0) - 64, 0) - 1;
}

/** The columns a GridRange spans on its tab (an open side reaches the tab's edge). */
function columnsOf(range: sheets_v4.Schema$GridRange, tab: Tab): [start: number, end: number] {
  return [range.startColumnIndex ?? 0, range.endColumnIndex ?? tab.columnCount];
}

function checkedColumn(letters: string, range: sheets_v4.Schema$GridRange, tab: Tab, what: string): number {
  const index = columnIndexOf(letters);
  const [start, end] = columnsOf(range, tab);
  if (index < start || index >= end)
    throw new ToolError(
      `${what} column ${letters.toUpperCase()} is outside the filter's columns (${columnLetters(start)} to ${columnLetters(end - 1)})`,
    );
  return index;
}

export function sortSpecsOf(
  sort: z.infer<typeof sortInput>,
  range: sheets_v4.Schema$GridRange,
  tab: Tab,
): sheets_v4.Schema$SortSpec[] {
  const seen = new Set<number>();
  return (sort ?? []).map((each) => {
    const index = checkedColumn(each.column, range, tab, 'the sort');
    if (seen.has(index)) throw new ToolError(`the sort names column ${each.column.toUpperCase()} twice`);
    seen.add(index);
    return { dimensionIndex: index, sortOrder: each.order };
  });
}

export function filterSpecsOf(
  criteria: z.infer<typeof criteriaInput>,
  range: sheets_v4.Schema$GridRange,
  tab: Tab,
): sheets_v4.Schema$FilterSpec[] {
  const seen = new Set<number>();
  return (criteria ?? []).map((each) => {
    const index = checkedColumn(each.column, range, tab, 'a criterion');
    if (seen.has(index))
      throw new ToolError(`the criteria name column ${each.column.toUpperCase()} twice: give one per column`);
    seen.add(index);
    if (!each.hiddenValues?.length && !each.condition)
      throw new ToolError(
        `the criterion for column ${each.column.toUpperCase()} needs hiddenValues or a condition`,
      );
    if (!each.condition && each.values.length > 0)
      throw new ToolError(`values for column ${each.column.toUpperCase()} need a condition`);
    const filterCriteria: sheets_v4.Schema$FilterCriteria = {
      ...(each.hiddenValues?.length ? { hiddenValues: each.hiddenValues } : {}),
      ...(each.condition ? { condition: criterionCondition(each.condition, each.values, each.column) } : {}),
    };
    return { columnIndex: index, filterCriteria };
  });
}

/** A basic filter (filterViewId null) or a filter view as the tools show it. */
export function filterView(
  filter: sheets_v4.Schema$BasicFilter | sheets_v4.Schema$FilterView,
  sheetId: number,
  tabs: readonly Tab[],
): FilterView {
  const view = filter as sheets_v4.Schema$FilterView;
  const specs: sheets_v4.Schema$FilterSpec[] =
    filter.filterSpecs ??
    Object.entries(filter.criteria ?? {}).map(([index, filterCriteria]) => ({
      columnIndex: Number(index),
      filterCriteria,
    }));
  return {
    sheetId,
    filterViewId: view.filterViewId ?? null,
    title: view.title ?? null,
    range: a1Of(filter.range ?? { sheetId }, tabs),
    sort: (filter.sortSpecs ?? []).map((spec) => ({
      column: columnLetters(spec.dimensionIndex ?? 0),
      order: spec.sortOrder ?? 'ASCENDING',
    })),
    criteria: specs.map((spec) => ({
      column: columnLetters(spec.columnIndex ?? 0),
      hiddenValues: spec.filterCriteria?.hiddenValues ?? [],
      condition: spec.filterCriteria?.condition?.type ?? null,
      values: valuesOf(spec.filterCriteria?.condition),
    })),
  };
}

/** `"Open ones" on Data!A1:C9, sorted by B descending, C: hides Done` — for the text of a result. */
export function describeFilter(view: FilterView): string {
  const parts = [view.range];
  if (view.sort.length)
    parts.push(
      `sorted by ${view.sort.map((each) => `${each.column} ${each.order.toLowerCase()}`).join(', ')}`,
    );
  for (const each of view.criteria) {
    const rules = [
      each.hiddenValues.length ? `hides ${each.hiddenValues.join(', ')}` : '',
      each.condition ? `${each.condition}${each.values.length ? ` ${each.values.join(', ')}` : ''}` : '',
    ].filter(Boolean);
    parts.push(`${each.column}: ${rules.join(' and ')}`);
  }
  const title = view.title === null ? '' : `${JSON.stringify(view.title)} `;
  return `${title}on ${parts.join(', ')}`;
}

function criterionCondition(text: string, values: readonly string[], column: string) {
  const given = conditionGiven(
    text,
    values,
    FORMAT_CONDITIONS,
    `the condition for column ${column.toUpperCase()}`,
  );
  return conditionOf(given.type, given.values);
}
