import { z } from 'zod';
import { READ } from '../../kit/annotations.ts';
import { spreadsheetId } from '../../kit/common-schemas.ts';
import { defineTool } from '../../kit/tool-definition.ts';
import type { ToolDeps } from '../../kit/tool-deps.ts';

/** get_spreadsheet: a spreadsheet's title and tabs (docs/design.md §11). */
export function getSpreadsheetTools({ sheets, callGoogle }: ToolDeps) {
  return [
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
  ];
}
