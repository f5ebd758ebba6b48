import { z } from 'zod';
import { columnLetters, normalizeRange, rangeOnSheet } from './a1.ts';
import {
  a1Range,
  pageLimit,
  pageOffset,
  spreadsheetId,
  valueRangeOutput,
  valueRender,
} from './common-schemas.ts';
import { pagingNotice, renderRows } from './render.ts';
import { defineTool, ToolError } from './tool-definition.ts';
import type { ToolDeps } from './tool-deps.ts';

const SPREADSHEET_MIME = 'application/vnd.google-apps.spreadsheet';
const READ = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true };

function page(values: unknown[][], offset: number, limit: number) {
  const slice = values.slice(offset, offset + limit);
  const next = offset + slice.length < values.length ? offset + slice.length : null;
  return { slice, next, remaining: Math.max(0, values.length - offset - slice.length) };
}

export function readTools({ sheets, drive, callGoogle }: ToolDeps) {
  return [
    defineTool({
      name: 'list_spreadsheets',
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
      title: 'Read a range',
      description:
        'Reads the values of one range. Large ranges are returned a page at a time; the result says how to get the next page.',
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
        const { data } = await callGoogle(auth.userId, signal, (request) =>
          sheets.spreadsheets.values.get(
            { spreadsheetId: input.spreadsheetId, range, valueRenderOption: input.valueRenderOption },
            request,
          ),
        );
        const values = (data.values ?? []) as unknown[][];
        const { slice, next, remaining } = page(values, input.offset, input.limit);
        return {
          structuredContent: {
            range: data.range ?? range,
            values: slice,
            totalRows: values.length,
            offset: input.offset,
            returnedRows: slice.length,
            nextOffset: next,
          },
          text: `${data.range ?? range}\n${renderRows(slice)}${pagingNotice(input.range, next, remaining)}`,
        };
      },
    }),

    defineTool({
      name: 'read_ranges',
      title: 'Read several ranges',
      description:
        'Reads several ranges of one spreadsheet in one call (each capped at `limitPerRange` rows).',
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
        const { data } = await callGoogle(auth.userId, signal, (request) =>
          sheets.spreadsheets.values.batchGet(
            { spreadsheetId: input.spreadsheetId, ranges, valueRenderOption: input.valueRenderOption },
            request,
          ),
        );
        const valueRanges = (data.valueRanges ?? []).map((valueRange, index) => {
          const values = (valueRange.values ?? []) as unknown[][];
          const { slice, next } = page(values, 0, input.limitPerRange);
          return {
            range: valueRange.range ?? ranges[index] ?? '',
            values: slice,
            totalRows: values.length,
            offset: 0,
            returnedRows: slice.length,
            nextOffset: next,
          };
        });
        return {
          structuredContent: { valueRanges },
          text: valueRanges
            .map(
              (valueRange) =>
                `${valueRange.range}\n${renderRows(valueRange.values)}${pagingNotice(valueRange.range, valueRange.nextOffset, valueRange.totalRows - valueRange.returnedRows)}`,
            )
            .join('\n\n'),
        };
      },
    }),

    defineTool({
      name: 'find_in_spreadsheet',
      title: 'Find values',
      description:
        'Searches every tab (or one range) for cells containing text; returns matching cells with their A1 address.',
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
        matches: z.array(z.object({ range: z.string(), cell: z.string(), value: z.string() })),
        truncated: z.boolean(),
      }),
      async run(input, { auth, signal }) {
        let ranges: string[];
        if (input.range) {
          ranges = [normalizeRange(input.range)];
        } else {
          const { data } = await callGoogle(auth.userId, signal, (request) =>
            sheets.spreadsheets.get(
              { spreadsheetId: input.spreadsheetId, fields: 'sheets.properties.title' },
              request,
            ),
          );
          ranges = (data.sheets ?? []).map((sheet) => rangeOnSheet(sheet.properties?.title ?? ''));
        }
        if (ranges.length === 0) throw new ToolError('the spreadsheet has no tabs');
        const { data } = await callGoogle(auth.userId, signal, (request) =>
          sheets.spreadsheets.values.batchGet({ spreadsheetId: input.spreadsheetId, ranges }, request),
        );
        const needle = input.matchCase ? input.query : input.query.toLowerCase();
        const matches: Array<{ range: string; cell: string; value: string }> = [];
        let truncated = false;
        for (const valueRange of data.valueRanges ?? []) {
          const origin = parseOrigin(valueRange.range ?? '');
          (valueRange.values ?? []).forEach((row, rowIndex) => {
            row.forEach((cell, columnIndex) => {
              const text = String(cell ?? '');
              if (!(input.matchCase ? text : text.toLowerCase()).includes(needle)) return;
              if (matches.length >= input.maxResults) {
                truncated = true;
                return;
              }
              const address = `${columnLetters(origin.column + columnIndex)}${origin.row + rowIndex}`;
              matches.push({ range: `${origin.sheet}!${address}`, cell: address, value: text });
            });
          });
        }
        return {
          structuredContent: { matches, truncated },
          text: matches.length
            ? `${matches.map((match) => `${match.range}: ${match.value}`).join('\n')}${truncated ? `\n(first ${input.maxResults} matches shown)` : ''}`
            : `No cell contains ${JSON.stringify(input.query)}.`,
        };
      },
    }),
  ];
}

/** The sheet and top-left cell of a range Google returned, e.g. `'My tab'!B2:D9` → sheet, B, 2. */
function parseOrigin(range: string): { sheet: string; column: number; row: number } {
  const bang = range.lastIndexOf('!');
  const sheet = bang === -1 ? '' : range.slice(0, bang);
  const start = (bang === -1 ? range : range.slice(bang + 1)).split(':')[0] ?? 'A1';
  const match = /^([A-Z]*)(\d*)$/.exec(start);
  const letters = match?.[1] || 'A';
  const column = [...letters].reduce((total, letter) => total * 26 + letter.charCodeAt(0) - 64, 0) - 1;
  return { sheet, column, row: Number(match?.[2] || 1) };
}
