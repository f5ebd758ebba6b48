import { z } from 'zod';
import { ToolError } from '../../../errors/tool-error.ts';
import { amount } from '../../guards/loss-phrases.ts';
import { columnLetters, rangeOnSheet } from '../../kit/a1.ts';
import { READ } from '../../kit/annotations.ts';
import { a1Range, spreadsheetId } from '../../kit/common-schemas.ts';
import { PAGE_CHARACTER_BUDGET } from '../../kit/paging.ts';
import { rangeOnTabs } from '../../kit/range-on-tabs.ts';
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

/** find_in_spreadsheet: search values in a spreadsheet's tabs (docs/design.md §11). */
export function findInSpreadsheetTools({ sheets, callGoogle }: ToolDeps) {
  return [
    defineTool({
      name: 'find_in_spreadsheet',
      toolset: 'core-read',
      title: 'Find values',
      description: 'Finds the cells holding a text: each address and the text around it.',
      scope: 'sheets:read',
      annotations: READ,
      inputSchema: z.object({
        spreadsheetId,
        query: z.string().min(1).max(500),
        range: a1Range.optional().describe('Only this range.'),
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
  const { sheetTitle, tab, bounds } = rangeOnTabs(tabs, range);
  if (!tab)
    throw new ToolError(
      `there is no tab named ${JSON.stringify(sheetTitle)}; get_spreadsheet lists the tabs`,
    );
  if (!bounds) throw new ToolError(`cannot read the cells of ${JSON.stringify(range)} as A1 notation`);
  return {
    title: tab.title,
    rowStart: bounds.startRowIndex ?? 0,
    rowEnd: Math.min(bounds.endRowIndex ?? tab.rows, tab.rows),
    columnStart: bounds.startColumnIndex ?? 0,
    columnEnd: Math.min(bounds.endColumnIndex ?? tab.columns, tab.columns),
  };
}
