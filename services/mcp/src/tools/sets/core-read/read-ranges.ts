import { z } from 'zod';
import { normalizeRange } from '../../kit/a1.ts';
import { READ } from '../../kit/annotations.ts';
import {
  a1Range,
  pageLimit,
  pageOffset,
  spreadsheetId,
  valueRangeOutput,
  valueRender,
} from '../../kit/common-schemas.ts';
import { isPastGridError, isUnknownRangeError, type PageWindow, pageWindow } from '../../kit/page-window.ts';
import { type PageBudget, page, pageBudget, pagingNotice } from '../../kit/paging.ts';
import { renderRows } from '../../kit/render.ts';
import { revisionOf } from '../../kit/revision.ts';
import { defineTool } from '../../kit/tool-definition.ts';
import type { ToolDeps } from '../../kit/tool-deps.ts';

/** read_range and read_ranges: values of one range or several, paged (docs/design.md §11). */
export function readRangeTools({ sheets, callGoogle }: ToolDeps) {
  return [
    defineTool({
      name: 'read_range',
      toolset: 'core-read',
      title: 'Read a range',
      description:
        'Reads the values of one range, a page at a time (at most `limit` rows and about 60,000 characters), fetching only that page from Google; the result says how to get the next one, and its `revision` (pass it to a write as ifRevision). A blank stretch of more than 500 rows ends the paging: read a range that starts below it.',
      scope: 'sheets:read',
      annotations: READ,
      inputSchema: z.object({
        spreadsheetId,
        range: a1Range,
        valueRenderOption: valueRender,
        offset: pageOffset,
        limit: pageLimit,
      }),
      outputSchema: valueRangeOutput,
      async run(input, { auth, signal }) {
        const range = normalizeRange(input.range);
        const readRows = async (asked: string): Promise<{ range: string; values: unknown[][] }> => {
          try {
            const { data } = await callGoogle(auth.userId, signal, (request) =>
              sheets.spreadsheets.values.get(
                {
                  spreadsheetId: input.spreadsheetId,
                  range: asked,
                  valueRenderOption: input.valueRenderOption,
                },
                request,
              ),
            );
            return { range: data.range ?? asked, values: (data.values ?? []) as unknown[][] };
          } catch (error) {
            // The page starts below the tab's last row: the data ended before it.
            if (asked !== range && isPastGridError(error)) return { range, values: [] };
            throw error;
          }
        };
        let window = pageWindow(range, input.offset, input.limit);
        let read: { range: string; values: unknown[][] };
        if (window.kind === 'past-end') read = { range, values: [] };
        else if (window.kind === 'whole') read = await readRows(range);
        else {
          try {
            read = await readRows(window.range);
          } catch (error) {
            if (!(window.maybeNamedRange && isUnknownRangeError(error))) throw error;
            // No tab of that name: a named range, which has no row window; read it whole.
            window = { kind: 'whole' };
            read = await readRows(range);
          }
        }
        const result = pageOf(read.values, window, input.offset, input.limit, pageBudget());
        const revision = revisionOf(
          input.valueRenderOption,
          range,
          input.offset,
          result.values,
          result.nextOffset === null,
        );
        return {
          structuredContent: { range: read.range, ...result, revision },
          text: `${read.range}\n${renderRows(result.values)}${pagingNotice(range, result.nextOffset, result.totalRows === null ? null : result.totalRows - input.offset - result.returnedRows)}`,
        };
      },
    }),
    defineTool({
      name: 'read_ranges',
      toolset: 'core-read',
      title: 'Read several ranges',
      description:
        'Reads several ranges of one spreadsheet in one call: the first `limitPerRange` rows of each, within one page budget for the whole call. Fetch the rest of a range with read_range and the offset the result names.',
      scope: 'sheets:read',
      annotations: READ,
      inputSchema: z.object({
        spreadsheetId,
        ranges: z.array(a1Range).min(1).max(50),
        valueRenderOption: valueRender,
        limitPerRange: pageLimit,
      }),
      outputSchema: z.object({ valueRanges: z.array(valueRangeOutput) }),
      async run(input, { auth, signal }) {
        const ranges = input.ranges.map(normalizeRange);
        let windows = ranges.map((range) => pageWindow(range, 0, input.limitPerRange));
        const batchGet = (asked: string[]) =>
          callGoogle(auth.userId, signal, (request) =>
            sheets.spreadsheets.values.batchGet(
              {
                spreadsheetId: input.spreadsheetId,
                ranges: asked,
                valueRenderOption: input.valueRenderOption,
              },
              request,
            ),
          );
        const askedOf = (all: PageWindow[]) =>
          ranges.map((range, index) => {
            const window = all[index]!;
            return window.kind === 'rows' ? window.range : range;
          });
        let asked = askedOf(windows);
        let data: Awaited<ReturnType<typeof batchGet>>['data'];
        try {
          ({ data } = await batchGet(asked));
        } catch (error) {
          if (
            !(
              isUnknownRangeError(error) &&
              windows.some((window) => window.kind === 'rows' && window.maybeNamedRange)
            )
          )
            throw error;
          // A bare name was no tab's: read those names whole (named ranges have no row window).
          windows = windows.map((window) =>
            window.kind === 'rows' && window.maybeNamedRange ? { kind: 'whole' } : window,
          );
          asked = askedOf(windows);
          ({ data } = await batchGet(asked));
        }
        const budget = pageBudget();
        const valueRanges = ranges.map((range, index) => {
          const valueRange = data.valueRanges?.[index];
          const values = (valueRange?.values ?? []) as unknown[][];
          const result = pageOf(values, windows[index]!, 0, input.limitPerRange, budget);
          const revision = revisionOf(
            input.valueRenderOption,
            range,
            0,
            result.values,
            result.nextOffset === null,
          );
          return { range: valueRange?.range ?? asked[index] ?? range, asked: range, ...result, revision };
        });
        return {
          structuredContent: { valueRanges: valueRanges.map(({ asked: _, ...valueRange }) => valueRange) },
          text: valueRanges
            .map(
              (valueRange) =>
                `${valueRange.range}\n${valueRange.returnedRows === 0 && valueRange.nextOffset !== null ? '(not returned: this call reached its size budget)' : renderRows(valueRange.values)}${pagingNotice(valueRange.asked, valueRange.nextOffset, valueRange.totalRows === null ? null : valueRange.totalRows - valueRange.returnedRows)}`,
            )
            .join('\n\n'),
        };
      },
    }),
  ];
}

/**
 * One page of a range's values: `values` are the window's rows (its first row is row `offset` of
 * the range) or, for a range read whole, the range's rows. The total is known when the data ended
 * within what was read; a full window says only that more rows may follow.
 */
function pageOf(values: unknown[][], window: PageWindow, offset: number, limit: number, budget: PageBudget) {
  if (window.kind !== 'rows') {
    const { rows, nextOffset } = page(values, window.kind === 'whole' ? offset : 0, limit, budget);
    return {
      values: rows,
      totalRows: window.kind === 'whole' ? values.length : null,
      offset,
      returnedRows: rows.length,
      nextOffset,
    };
  }
  const { rows, nextOffset } = page(values, 0, limit, budget);
  const ended = window.lastOfRange || values.length < window.rows;
  return {
    values: rows,
    totalRows: ended ? offset + values.length : null,
    offset,
    returnedRows: rows.length,
    nextOffset: nextOffset === null && ended ? null : offset + rows.length,
  };
}
