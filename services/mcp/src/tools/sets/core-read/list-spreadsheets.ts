import { z } from 'zod';
import { READ } from '../../kit/annotations.ts';
import { driveQueryString } from '../../kit/drive-options.ts';
import { drivePageAnswer, listDriveFiles } from '../../kit/drive-pages.ts';
import { SPREADSHEET_MIME } from '../../kit/google-file-types.ts';
import { defineTool } from '../../kit/tool-definition.ts';
import type { ToolDeps } from '../../kit/tool-deps.ts';

/** list_spreadsheets: the person's spreadsheets in Drive, newest first (docs/design.md §11). */
export function listSpreadsheetTools(deps: ToolDeps) {
  return [
    defineTool({
      name: 'list_spreadsheets',
      toolset: 'core-read',
      title: 'List spreadsheets',
      description: 'Lists your spreadsheets, newest first.',
      scope: 'sheets:read',
      annotations: READ,
      inputSchema: z.object({
        nameContains: z.string().max(200).optional(),
        pageSize: z.number().int().min(1).max(100).default(25),
        pageToken: z.string().max(500).optional(),
      }),
      outputSchema: z.object({
        spreadsheets: z.array(
          z.object({ spreadsheetId: z.string(), name: z.string(), modifiedTime: z.string().nullable() }),
        ),
        nextPageToken: z.string().nullable(),
      }),
      async run(input, context) {
        const clauses = [`mimeType = '${SPREADSHEET_MIME}'`, 'trashed = false'];
        if (input.nameContains) clauses.push(`name contains ${driveQueryString(input.nameContains)}`);
        const data = await listDriveFiles(deps, context, {
          clauses,
          orderBy: 'modifiedTime desc',
          pageSize: input.pageSize,
          pageToken: input.pageToken,
          fields: 'nextPageToken, files(id, name, modifiedTime)',
        });
        const spreadsheets = (data.files ?? []).map((file) => ({
          spreadsheetId: file.id ?? '',
          name: file.name ?? '',
          modifiedTime: file.modifiedTime ?? null,
        }));
        const lines = spreadsheets.map((file) => `${file.name}  (spreadsheetId ${file.spreadsheetId})`);
        return drivePageAnswer(
          'spreadsheets',
          spreadsheets,
          lines,
          'No spreadsheets found.',
          data.nextPageToken,
        );
      },
    }),
  ];
}
