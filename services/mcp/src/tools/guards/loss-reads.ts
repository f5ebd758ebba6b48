import { columnLetters, rangeOnSheet } from '../kit/a1.ts';
import { TAB_PROPERTY_FIELDS } from '../kit/first-visible-tab.ts';
import { SEARCH_RANGE_CHARACTERS } from '../kit/search-calls.ts';
import type { ToolContext } from '../kit/tool-definition.ts';
import type { ToolDeps } from '../kit/tool-deps.ts';

/**
 * The most cells one loss description reads to count what would be lost. A tab may hold ten
 * million cells; reading them all to ask a person "are you sure?" would cost the process hundreds
 * of megabytes, so past this the count says "at least" and how many rows it covered.
 */
export const LOSS_COUNT_MAX_CELLS = 100_000;

export interface Tab {
  sheetId: number;
  title: string;
  rows: number;
  columns: number;
  hidden?: boolean;
}

export interface Outline {
  title: string;
  /** In the order of the spreadsheet's tabs; a range without a tab goes to the first visible one. */
  tabs: Tab[];
}

/** A rectangle of one tab: zero-based, end-exclusive rows and columns, inside the tab's grid. */
export interface Area {
  tab: Tab;
  rowStart: number;
  rowEnd: number;
  columnStart: number;
  columnEnd: number;
}

export interface CellCount {
  nonEmpty: number;
  /** Rows of the area read; fewer than the area's when the read budget ran out. */
  countedRows: number;
  complete: boolean;
}

/** The Google reads behind a loss description: the spreadsheet's outline, then its cells counted. */
export function lossReads({ sheets, callGoogle }: ToolDeps) {
  return {
    /** One spreadsheets.get of the title and the tabs' ids, titles, visibility and grid sizes. */
    async outline(spreadsheetId: string, { auth, signal }: ToolContext): Promise<Outline> {
      const { data } = await callGoogle(auth.userId, signal, (request) =>
        sheets.spreadsheets.get(
          {
            spreadsheetId,
            fields: `properties.title,sheets.properties(${TAB_PROPERTY_FIELDS})`,
          },
          request,
        ),
      );
      return {
        title: data.properties?.title ?? '',
        tabs: (data.sheets ?? []).map((sheet) => ({
          sheetId: sheet.properties?.sheetId ?? 0,
          title: sheet.properties?.title ?? '',
          rows: sheet.properties?.gridProperties?.rowCount ?? 0,
          columns: sheet.properties?.gridProperties?.columnCount ?? 0,
          hidden: sheet.properties?.hidden === true,
        })),
      };
    },

    /**
     * The non-empty cells of each area, in at most one values.batchGet of at most
     * LOSS_COUNT_MAX_CELLS cells (whole rows from the top of each area, in order); an area the
     * budget does not reach is counted as far as it went, maybe not at all.
     */
    async count(spreadsheetId: string, areas: readonly Area[], { auth, signal }: ToolContext) {
      let budget = LOSS_COUNT_MAX_CELLS;
      let characters = 0;
      const reads = areas.map((area) => {
        const width = area.columnEnd - area.columnStart;
        const height = area.rowEnd - area.rowStart;
        if (width <= 0 || height <= 0) return { rows: 0, range: undefined, complete: true };
        const rows = Math.min(height, Math.floor(budget / width));
        if (rows <= 0) return { rows: 0, range: undefined, complete: false };
        const range = rangeOnSheet(
          area.tab.title,
          `${columnLetters(area.columnStart)}${area.rowStart + 1}:${columnLetters(area.columnEnd - 1)}${area.rowStart + rows}`,
        );
        // The ranges travel in a GET's query string (search-calls.ts says why that is bounded).
        const length = encodeURIComponent(range).length + '&ranges='.length;
        if (characters + length > SEARCH_RANGE_CHARACTERS)
          return { rows: 0, range: undefined, complete: false };
        characters += length;
        budget -= rows * width;
        return { rows, range, complete: rows === height };
      });
      const ranges = reads.flatMap((read) => (read.range ? [read.range] : []));
      const valueRanges =
        ranges.length === 0
          ? []
          : ((
              await callGoogle(auth.userId, signal, (request) =>
                sheets.spreadsheets.values.batchGet(
                  // FORMULA: a formula whose result is empty text is still something a person wrote.
                  { spreadsheetId, ranges, valueRenderOption: 'FORMULA' },
                  request,
                ),
              )
            ).data.valueRanges ?? []);
      let next = 0;
      return reads.map((read): CellCount => {
        // valueRanges come back in the order the ranges were asked.
        const values = read.range ? ((valueRanges[next++]?.values ?? []) as unknown[][]) : [];
        return { nonEmpty: nonEmptyCells(values), countedRows: read.rows, complete: read.complete };
      });
    },
  };
}

export type LossReads = ReturnType<typeof lossReads>;

function nonEmptyCells(rows: unknown[][]): number {
  let count = 0;
  for (const row of rows)
    for (const cell of row ?? []) if (cell !== '' && cell !== null && cell !== undefined) count++;
  return count;
}
