/**
 * A value write reaching past its tab's grid grows the tab (Google adds the rows and columns for
 * values.update and values.batchUpdate), and the answer says so: `growing the tab "Orders" from <n> to
 * <m> rows`. Knowing it takes the grid before the write: one spreadsheets.get of the tabs'
 * sizes, made only when the written cells reach past the grid Sheets gives a new tab, the case of
 * a big block written from A1. A write within that grid reads nothing more; on a tab made smaller,
 * its growth goes unsaid.
 */
import { z } from 'zod';
import { splitRange } from './a1.ts';
import { firstVisibleTab, TAB_PROPERTY_FIELDS } from './first-visible-tab.ts';
import type { ToolContext } from './tool-definition.ts';
import type { ToolDeps } from './tool-deps.ts';
import { areaFrom, type WrittenArea } from './written-area.ts';

/** A new tab's grid (AddSheetRequest without gridProperties, a new spreadsheet's first tab). */
const NEW_TAB = { rows: 1_000, columns: 26 };

export interface TabGrid {
  title: string;
  hidden: boolean;
  rows: number;
  columns: number;
}

/** In a value write's structured result: each tab it grew, as its answer says it. */
export const grownOutput = z
  .array(z.string())
  .optional()
  .describe('Tabs the write grew past their grid: "Big" from 1,000 to 5,000 rows.');

const reachesPastNewTab = (area: WrittenArea | undefined) =>
  area !== undefined && (area.top + area.rows > NEW_TAB.rows || area.left + area.columns > NEW_TAB.columns);

/** The tabs' grids before a write of `areas`, or undefined (no request) when none reaches past a new tab's. */
export async function gridsBefore(
  { sheets, callGoogle }: Pick<ToolDeps, 'sheets' | 'callGoogle'>,
  { auth, signal }: Pick<ToolContext, 'auth' | 'signal'>,
  spreadsheetId: string,
  areas: readonly (WrittenArea | undefined)[],
): Promise<TabGrid[] | undefined> {
  if (!areas.some(reachesPastNewTab)) return undefined;
  const { data } = await callGoogle(auth.userId, signal, (request) =>
    sheets.spreadsheets.get({ spreadsheetId, fields: `sheets.properties(${TAB_PROPERTY_FIELDS})` }, request),
  );
  return (data.sheets ?? []).map((sheet) => ({
    title: sheet.properties?.title ?? '',
    hidden: sheet.properties?.hidden === true,
    rows: sheet.properties?.gridProperties?.rowCount ?? 0,
    columns: sheet.properties?.gridProperties?.columnCount ?? 0,
  }));
}

/**
 * The tabs a write grew, from their grids before it and Google's answered ranges of each block
 * (`"Orders" from <n> to <m> rows`); empty when none grew or the grids were not read.
 */
export function tabsGrown(
  before: readonly TabGrid[] | undefined,
  written: readonly { range: string; values: readonly (readonly unknown[])[] }[],
): string[] {
  if (!before) return [];
  const reach = new Map<TabGrid, { rows: number; columns: number }>();
  for (const block of written) {
    const area = areaFrom(block.range, block.values);
    const title = splitRange(block.range).sheetTitle;
    const tab =
      title === undefined
        ? firstVisibleTab(before)
        : (before.find((each) => each.title === title) ??
          before.find((each) => each.title.toLowerCase() === title.toLowerCase()));
    if (!tab) continue;
    const far = reach.get(tab) ?? { rows: tab.rows, columns: tab.columns };
    reach.set(tab, {
      rows: Math.max(far.rows, area.top + area.rows),
      columns: Math.max(far.columns, area.left + area.columns),
    });
  }
  const count = (value: number) => value.toLocaleString('en');
  return [...reach].flatMap(([tab, far]) => {
    const parts = [
      ...(far.rows > tab.rows ? [`from ${count(tab.rows)} to ${count(far.rows)} rows`] : []),
      ...(far.columns > tab.columns ? [`from ${count(tab.columns)} to ${count(far.columns)} columns`] : []),
    ];
    return parts.length ? [`${JSON.stringify(tab.title)} ${parts.join(' and ')}`] : [];
  });
}

/** `, growing the tab "Orders" from <n> to <m> rows`, or '' when the write grew no tab. */
export function grownClause(grown: readonly string[]): string {
  if (grown.length === 0) return '';
  return `, growing the tab${grown.length > 1 ? 's' : ''} ${grown.join('; ')}`;
}
