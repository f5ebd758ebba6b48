import { z } from 'zod';
import { gridBounds, splitRange } from '../../kit/a1.ts';
import { READ } from '../../kit/annotations.ts';
import { readableRanges } from '../../kit/bare-tab.ts';
import { a1Range, pageLimit, pageOffset, spreadsheetId, valueRender } from '../../kit/common-schemas.ts';
import { type Below, type LookBelow, lookBelow } from '../../kit/data-below.ts';
import { isPastGridError, isUnknownRangeError, type PageWindow, pageWindow } from '../../kit/page-window.ts';
import { type PageBudget, pageBudget } from '../../kit/paging.ts';
import {
  type PagePlace,
  type PageStart,
  pageNotice,
  type RangePage,
  startPage,
  valueRangeOutput,
} from '../../kit/range-page.ts';
import { explainRangeRefusals } from '../../kit/range-refusals.ts';
import { renderRows } from '../../kit/render.ts';
import { type RevisionArea, revisionOf, type ValueRender } from '../../kit/revision.ts';
import { defineTool } from '../../kit/tool-definition.ts';
import type { ToolDeps } from '../../kit/tool-deps.ts';

/** What Google answered for a range's window: the range it names (its tab named) and the values from its top. */
interface Answered {
  range: string;
  values: unknown[][];
  /** The read started below the tab's grid: nothing there. */
  pastGrid?: boolean;
}

/** read_range and read_ranges: values of one range or several, paged (docs/design.md §11). */
export function readRangeTools(deps: ToolDeps) {
  const { sheets, callGoogle } = deps;
  return explainRangeRefusals(deps, [
    defineTool({
      name: 'read_range',
      toolset: 'core-read',
      title: 'Read a range',
      description:
        'Reads values a page at a time; says where the data ends; gives a revision for ifRevision.',
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
        const call = readCall(auth.userId, signal, input);
        const [range] = (await readableRanges(deps, call, [input.range])) as [string];
        const readRows = async (asked: string): Promise<Answered> => {
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
            if (asked !== range && isPastGridError(error))
              return { range: asked, values: [], pastGrid: true };
            throw error;
          }
        };
        let window = pageWindow(range, input.offset, input.limit);
        let read: Answered;
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
        const [answer] = await settlePages(deps, call, [
          { range, window, read, offset: input.offset, limit: input.limit },
        ]);
        const { page, place } = answer!;
        return {
          structuredContent: { range: read.range, ...page, revision: answer!.revision },
          text: `${read.range}\n${renderRows(page.values)}${pageNotice(range, page, place.rangeTop)}`,
        };
      },
    }),
    defineTool({
      name: 'read_ranges',
      toolset: 'core-read',
      title: 'Read several ranges',
      description: 'Reads the first rows of several ranges.',
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
        const call = readCall(auth.userId, signal, input);
        const ranges = await readableRanges(deps, call, input.ranges);
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
        const answers = await settlePages(
          deps,
          call,
          ranges.map((range, index) => {
            const valueRange = data.valueRanges?.[index];
            return {
              range,
              window: windows[index]!,
              read: {
                range: valueRange?.range ?? asked[index] ?? range,
                values: (valueRange?.values ?? []) as unknown[][],
              },
              offset: 0,
              limit: input.limitPerRange,
            };
          }),
        );
        return {
          structuredContent: {
            valueRanges: answers.map(({ read, page, revision }) => ({
              range: read.range,
              ...page,
              revision,
            })),
          },
          text: answers
            .map(
              ({ range, read, page, place }) =>
                `${read.range}\n${page.returnedRows === 0 && page.stoppedBy === 'budget' ? '(not returned: this call reached its size budget)' : renderRows(page.values)}${pageNotice(range, page, place.rangeTop)}`,
            )
            .join('\n\n'),
        };
      },
    }),
  ]);
}

/** Who reads which spreadsheet, rendered how: what every read one call makes shares. */
function readCall(
  userId: string,
  signal: AbortSignal,
  input: { spreadsheetId: string; valueRenderOption: ValueRender },
) {
  return { userId, signal, spreadsheetId: input.spreadsheetId, render: input.valueRenderOption };
}

interface PageRead {
  /** The range as the caller gave it (normalized): what a read_range call to go on names. */
  range: string;
  window: PageWindow;
  read: Answered;
  offset: number;
  limit: number;
}

/**
 * The pages of reads made, within one size budget: each page's rows, and for a page whose data
 * ended inside its window short of its range's end, one look below shared by all of them
 * (data-below.ts); then each page's revision, of the area it read.
 */
async function settlePages(
  deps: ToolDeps,
  call: { userId: string; signal: AbortSignal; spreadsheetId: string; render: ValueRender },
  reads: readonly PageRead[],
): Promise<Array<PageRead & { page: RangePage; place: PagePlace; revision: string }>> {
  const budget = pageBudget();
  const started = reads.map((each) => startOf(each, budget));
  const looks: Array<{ index: number; look: LookBelow }> = [];
  started.forEach(({ start, look }, index) => {
    if ('lookFrom' in start && look) looks.push({ index, look: { ...look, from: start.lookFrom } });
  });
  const below = new Map<number, Below>();
  if (looks.length)
    (
      await lookBelow(
        deps,
        call,
        looks.map((each) => each.look),
      )
    ).forEach((each, position) => {
      below.set(looks[position]!.index, each);
    });
  return reads.map((each, index) => {
    const { start, place, area } = started[index]!;
    const { page, blankBelow } = 'settled' in start ? start.settled : start.settle(below.get(index)!);
    return { ...each, page, place, revision: revisionOf(call.render, area, page.values, blankBelow) };
  });
}

/** Where a read's page lies, its start, what its revision covers, and how to look below it. */
function startOf(
  { window, read, offset, limit }: PageRead,
  budget: PageBudget,
): { start: PageStart; place: PagePlace; area: RevisionArea; look?: Omit<LookBelow, 'from'> } {
  const { sheetTitle, cells } = splitRange(read.range);
  const answered = gridBounds(cells) ?? {};
  const sheet = sheetTitle ?? '';
  if (window.kind !== 'rows') {
    // Read whole (a named range, or nothing to read): Google's answer is the range, from its top.
    const rangeTop = answered.startRowIndex ?? 0;
    const left = answered.startColumnIndex ?? 0;
    const place = { rangeTop, rangeEnd: answered.endRowIndex, top: rangeTop + offset, left };
    const values = window.kind === 'whole' ? read.values.slice(offset) : [];
    const width = answered.endColumnIndex === undefined ? null : answered.endColumnIndex - left;
    return {
      start: startPage(values, place, offset, limit, budget, { toEnd: true, end: place.top }),
      place,
      area: { sheet, top: place.top, left: width === null ? 0 : left, width },
    };
  }
  const end = window.first + window.rows;
  const left = window.columns ? (answered.startColumnIndex ?? 0) : 0;
  const place = { rangeTop: window.rangeTop, rangeEnd: window.rangeEnd, top: window.first, left };
  // Google answers a range reaching past the grid with the part on it: a shorter range ends at the grid's end.
  const clipped = answered.endRowIndex !== undefined && answered.endRowIndex < end;
  const start = startPage(read.values, place, offset, limit, budget, {
    toEnd: window.lastOfRange || clipped || read.pastGrid === true,
    end,
  });
  const columns = (answered.endColumnIndex ?? 26) - (answered.startColumnIndex ?? 0);
  return {
    start,
    place,
    area: {
      sheet,
      top: window.first,
      left,
      width: window.columns ? columns : null,
    },
    look: { window, width: columns },
  };
}
