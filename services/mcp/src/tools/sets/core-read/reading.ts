import { z } from 'zod';
import { ToolError } from '../../../errors/tool-error.ts';
import { amount } from '../../guards/loss-phrases.ts';
import { columnLetters, gridBounds, normalizeRange, rangeOnSheet, splitRange } from '../../kit/a1.ts';
import { READ } from '../../kit/annotations.ts';
import {
  a1Range,
  pageLimit,
  pageOffset,
  spreadsheetId,
  valueRangeOutput,
  valueRender,
} from '../../kit/common-schemas.ts';
import { LIST_ALL_DRIVES } from '../../kit/drive-options.ts';
import { firstVisibleTab } from '../../kit/first-visible-tab.ts';
import { SPREADSHEET_MIME } from '../../kit/google-file-types.ts';
import { isPastGridError, isUnknownRangeError, type PageWindow, pageWindow } from '../../kit/page-window.ts';
import { PAGE_CHARACTER_BUDGET, type PageBudget, page, pageBudget, pagingNotice } from '../../kit/paging.ts';
import { renderRows } from '../../kit/render.ts';
import { revisionOf } from '../../kit/revision.ts';
import { nextSearchCall, type SearchArea, type SearchCursor, searchStart } from '../../kit/search-calls.ts';
import { defineTool, type ToolContext } from '../../kit/tool-definition.ts';
import type { ToolDeps } from '../../kit/tool-deps.ts';
import { matchSnippet } from './search-snippets.ts';

/**
 * find_in_spreadsheet reads at most this many cells per Google call (from one tab or several), as
 * read_records does: three new (1000 × 26) tabs and most of a fourth per call…
 */
const SEARCH_CHUNK_CELLS = 100_000;
/** …and this many in all, so a search of a huge spreadsheet stays a bounded amount of work. */
const SEARCH_MAX_CELLS = 500_000;
/** What one match adds to find_in_spreadsheet's answer beyond its texts (keys, punctuation, notices). */
const MATCH_OVERHEAD = 100;

export function readTools({ sheets, drive, callGoogle }: ToolDeps) {
  return [
    defineTool({
      name: 'list_spreadsheets',
      toolset: 'core-read',
      title: 'List spreadsheets',
      description:
        'Lists Google Sheets spreadsheets in your Drive, newest first, optionally filtered by a name fragment.',
      scope: 'sheets:read',
      annotations: READ,
      inputSchema: z.object({
        nameContains: z
          .string()
          .max(200)
          .optional()
          .describe('Only spreadsheets whose name contains this text.'),
        pageSize: z.number().int().min(1).max(100).default(25),
        pageToken: z.string().max(500).optional().describe('From a previous call, to get the next page.'),
      }),
      outputSchema: z.object({
        spreadsheets: z.array(
          z.object({ spreadsheetId: z.string(), name: z.string(), modifiedTime: z.string().nullable() }),
        ),
        nextPageToken: z.string().nullable(),
      }),
      async run(input, { auth, signal }) {
        const clauses = [`mimeType = '${SPREADSHEET_MIME}'`, 'trashed = false'];
        if (input.nameContains)
          clauses.push(
            `name contains '${input.nameContains.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`,
          );
        const { data } = await callGoogle(auth.userId, signal, (request) =>
          drive.files.list(
            {
              q: clauses.join(' and '),
              orderBy: 'modifiedTime desc',
              pageSize: input.pageSize,
              pageToken: input.pageToken,
              fields: 'nextPageToken, files(id, name, modifiedTime)',
              ...LIST_ALL_DRIVES,
            },
            request,
          ),
        );
        const spreadsheets = (data.files ?? []).map((file) => ({
          spreadsheetId: file.id ?? '',
          name: file.name ?? '',
          modifiedTime: file.modifiedTime ?? null,
        }));
        const lines = spreadsheets.map((file) => `${file.name}  (spreadsheetId ${file.spreadsheetId})`);
        const more = data.nextPageToken
          ? `\nMore: call again with pageToken=${JSON.stringify(data.nextPageToken)}.`
          : '';
        return {
          structuredContent: { spreadsheets, nextPageToken: data.nextPageToken ?? null },
          text: (lines.length ? lines.join('\n') : 'No spreadsheets found.') + more,
        };
      },
    }),

    defineTool({
      name: 'get_spreadsheet',
      toolset: 'core-read',
      title: 'Describe a spreadsheet',
      description: 'Returns a spreadsheet’s title, URL and tabs (sheetId, title, index, size).',
      scope: 'sheets:read',
      annotations: READ,
      inputSchema: z.object({ spreadsheetId }),
      outputSchema: z.object({
        spreadsheetId: z.string(),
        title: z.string(),
        url: z.string().nullable(),
        sheets: z.array(
          z.object({
            sheetId: z.number(),
            title: z.string(),
            index: z.number(),
            rowCount: z.number(),
            columnCount: z.number(),
          }),
        ),
      }),
      async run(input, { auth, signal }) {
        const { data } = await callGoogle(auth.userId, signal, (request) =>
          sheets.spreadsheets.get(
            {
              spreadsheetId: input.spreadsheetId,
              fields:
                'spreadsheetId,spreadsheetUrl,properties.title,sheets.properties(sheetId,title,index,gridProperties)',
            },
            request,
          ),
        );
        const tabs = (data.sheets ?? []).map((sheet) => ({
          sheetId: sheet.properties?.sheetId ?? 0,
          title: sheet.properties?.title ?? '',
          index: sheet.properties?.index ?? 0,
          rowCount: sheet.properties?.gridProperties?.rowCount ?? 0,
          columnCount: sheet.properties?.gridProperties?.columnCount ?? 0,
        }));
        const structured = {
          spreadsheetId: data.spreadsheetId ?? input.spreadsheetId,
          title: data.properties?.title ?? '',
          url: data.spreadsheetUrl ?? null,
          sheets: tabs,
        };
        return {
          structuredContent: structured,
          text: [
            `${structured.title} (spreadsheetId ${structured.spreadsheetId})`,
            ...tabs.map(
              (tab) => `- ${tab.title} (sheetId ${tab.sheetId}, ${tab.rowCount}×${tab.columnCount})`,
            ),
          ].join('\n'),
        };
      },
    }),

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

    defineTool({
      name: 'find_in_spreadsheet',
      toolset: 'core-read',
      title: 'Find values',
      description:
        'Searches every tab (or one range) for cells containing text; returns matching cells with their A1 address and the text around the match (read_range gives a long cell whole). Stops at maxResults matches, after 500,000 cells or at about 60,000 characters of answer, and says where it stopped.',
      scope: 'sheets:read',
      annotations: READ,
      inputSchema: z.object({
        spreadsheetId,
        query: z.string().min(1).max(500),
        range: a1Range.optional().describe('Limit the search to this range; every tab by default.'),
        matchCase: z.boolean().default(false),
        maxResults: z.number().int().min(1).max(500).default(50),
      }),
      outputSchema: z.object({
        matches: z.array(
          z.object({
            range: z.string(),
            cell: z.string(),
            value: z.string().describe('The cell, or the text around the match with … where it was cut.'),
            fullLength: z
              .number()
              .optional()
              .describe("Only when value was cut: the cell's length in characters."),
          }),
        ),
        /** True when the search stopped before the end (at maxResults, the cell budget or the answer's size). */
        truncated: z.boolean(),
        /** The first cell not searched, when the search stopped early. */
        stoppedAt: z.string().nullable(),
        scannedCells: z.number(),
      }),
      async run(input, context) {
        const { auth, signal } = context;
        // The tabs' names and sizes first: each values.batchGet names its tabs and is cut to their sizes.
        const { data } = await callGoogle(auth.userId, signal, (request) =>
          sheets.spreadsheets.get(
            {
              spreadsheetId: input.spreadsheetId,
              fields: 'sheets.properties(title,hidden,gridProperties(rowCount,columnCount))',
            },
            request,
          ),
        );
        const tabs = (data.sheets ?? []).map((sheet) => ({
          title: sheet.properties?.title ?? '',
          rows: sheet.properties?.gridProperties?.rowCount ?? 0,
          columns: sheet.properties?.gridProperties?.columnCount ?? 0,
          hidden: sheet.properties?.hidden === true,
        }));
        if (tabs.length === 0) throw new ToolError('the spreadsheet has no tabs');
        const areas = input.range ? [searchAreaOf(input.range, tabs)] : tabs.map((tab) => wholeTab(tab));

        const needle = input.matchCase ? input.query : input.query.toLowerCase();
        const matches: Array<{ range: string; cell: string; value: string; fullLength?: number }> = [];
        let scannedCells = 0;
        let stoppedAt: string | null = null;
        // The answer's characters, capped as read_range's are: 500 matches of long tab names
        // and snippets would otherwise still be hundreds of kilobytes, twice (text and structure).
        let characters = 0;
        let full = false;
        let cursor = searchStart(areas, { area: 0, row: 0 });
        const progress = searchProgress(context, areas);
        search: while (cursor) {
          // A cancelled search stops before its next call rather than reading tabs for nobody.
          signal.throwIfAborted();
          const area = areas[cursor.area]!;
          const cellsLeft = SEARCH_MAX_CELLS - scannedCells;
          // Stops before a row that would take the search past its cell budget.
          if (matches.length >= input.maxResults || cellsLeft < area.columnEnd - area.columnStart) {
            stoppedAt = rangeOnSheet(area.title, `${columnLetters(area.columnStart)}${cursor.row + 1}`);
            break;
          }
          const { pieces, next } = nextSearchCall(areas, cursor, Math.min(SEARCH_CHUNK_CELLS, cellsLeft));
          const { data: batch } = await callGoogle(auth.userId, signal, (request) =>
            sheets.spreadsheets.values.batchGet(
              { spreadsheetId: input.spreadsheetId, ranges: pieces.map((piece) => piece.range) },
              request,
            ),
          );
          // valueRanges come back in the order the ranges were asked.
          for (const [index, piece] of pieces.entries()) {
            scannedCells += piece.cells;
            // Google returns values from the requested top-left cell, leading blanks included.
            const rows = (batch.valueRanges?.[index]?.values ?? []) as unknown[][];
            for (let rowIndex = 0; rowIndex < rows.length; rowIndex++) {
              const row = rows[rowIndex] ?? [];
              for (let columnIndex = 0; columnIndex < row.length; columnIndex++) {
                const text = String(row[columnIndex] ?? '');
                const at = (input.matchCase ? text : text.toLowerCase()).indexOf(needle);
                if (at < 0) continue;
                const address = `${columnLetters(piece.area.columnStart + columnIndex)}${piece.top + rowIndex + 1}`;
                const range = rangeOnSheet(piece.area.title, address);
                const snippet = matchSnippet(text, at, needle.length);
                // Counted as the answer carries it: the range twice (text and structure), the cell, the
                // snippet and about a hundred characters of keys and the text's notice of a cut.
                const size = 2 * range.length + address.length + snippet.value.length + MATCH_OVERHEAD;
                if (matches.length >= input.maxResults || characters + size > PAGE_CHARACTER_BUDGET) {
                  full = matches.length < input.maxResults;
                  stoppedAt = range;
                  break search;
                }
                characters += size;
                matches.push({ range, cell: address, ...snippet });
              }
            }
          }
          cursor = next;
          progress(cursor);
        }
        const truncated = stoppedAt !== null;
        const why = full ? ', at the size limit of one answer' : '';
        const notice = truncated
          ? `\n(stopped at ${stoppedAt} after ${matches.length} matches and ${scannedCells} cells${why}; search a narrower range, or from ${stoppedAt} on, for more)`
          : '';
        const shown = (match: (typeof matches)[number]) =>
          `${match.range}: ${match.value}${match.fullLength === undefined ? '' : ` (cut from ${match.fullLength} characters; read_range ${match.range} gives it whole)`}`;
        return {
          structuredContent: { matches, truncated, stoppedAt, scannedCells },
          text: matches.length
            ? `${matches.map(shown).join('\n')}${notice}`
            : `No cell contains ${JSON.stringify(input.query)}.${notice}`,
        };
      },
    }),
  ];
}

/**
 * Progress of a search in tabs (areas): `total` is how many, and `progress` the tabs searched so
 * far plus the part of the tab it is in, so a search of one big tab moves too. It grows with every
 * call, as notifications/progress must: each call reads at least one row.
 */
function searchProgress(context: ToolContext, areas: readonly SearchArea[]) {
  const total = areas.length;
  context.progress(0, total, `Searching ${amount(total, 'tab')}`);
  return (cursor: SearchCursor | null) => {
    const area = cursor ? areas[cursor.area] : undefined;
    const done =
      cursor && area ? cursor.area + (cursor.row - area.rowStart) / (area.rowEnd - area.rowStart) : total;
    context.progress(done, total, `Searched ${Math.floor(done)} of ${amount(total, 'tab')}`);
  };
}

interface Tab {
  title: string;
  rows: number;
  columns: number;
  hidden: boolean;
}

function wholeTab(tab: Tab): SearchArea {
  return { title: tab.title, rowStart: 0, rowEnd: tab.rows, columnStart: 0, columnEnd: tab.columns };
}

/** The area an A1 range names (a1.ts parses it), within its tab's grid; the first visible tab when unnamed. */
function searchAreaOf(range: string, tabs: Tab[]): SearchArea {
  const { sheetTitle, cells } = splitRange(range);
  const tab =
    sheetTitle === undefined ? firstVisibleTab(tabs) : tabs.find((each) => each.title === sheetTitle);
  if (!tab)
    throw new ToolError(
      `there is no tab named ${JSON.stringify(sheetTitle)}; get_spreadsheet lists the tabs`,
    );
  const bounds = gridBounds(cells);
  if (!bounds) throw new ToolError(`cannot read the cells of ${JSON.stringify(range)} as A1 notation`);
  return {
    title: tab.title,
    rowStart: bounds.startRowIndex ?? 0,
    rowEnd: Math.min(bounds.endRowIndex ?? tab.rows, tab.rows),
    columnStart: bounds.startColumnIndex ?? 0,
    columnEnd: Math.min(bounds.endColumnIndex ?? tab.columns, tab.columns),
  };
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
