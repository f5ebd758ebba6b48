import { z } from 'zod';
import { READ } from '../../kit/annotations.ts';
import { FOLDER_MIME, folderId } from '../../kit/drive-folders.ts';
import { driveQueryString } from '../../kit/drive-options.ts';
import { drivePageAnswer, incomplete, listDriveFiles, pageSize, pageToken } from '../../kit/drive-pages.ts';
import { SPREADSHEET_MIME } from '../../kit/google-file-types.ts';
import { defineTool } from '../../kit/tool-definition.ts';
import type { ToolDeps } from '../../kit/tool-deps.ts';

/** list_folders and search_spreadsheets: finding a spreadsheet by name or content, and the folders to look in. */
export function driveSearchTools(deps: ToolDeps) {
  return [
    defineTool({
      name: 'list_folders',
      toolset: 'core-read',
      title: 'List folders',
      description:
        'Lists Drive folders (yours and those of shared drives) by name, with their ids and parent: a folderId for create_spreadsheet, copy_spreadsheet, convert_file or search_spreadsheets.',
      scope: 'sheets:read',
      annotations: READ,
      inputSchema: z.object({
        parentId: folderId
          .or(z.literal('root'))
          .optional()
          .describe('Only folders directly in this folder ("root" for the top of My Drive).'),
        nameContains: z
          .string()
          .min(1)
          .max(200)
          .optional()
          .describe('Only folders whose name contains this.'),
        pageSize,
        pageToken,
      }),
      outputSchema: z.object({
        folders: z.array(
          z.object({
            folderId: z.string(),
            name: z.string(),
            parentId: z.string().nullable(),
            driveId: z.string().nullable(),
          }),
        ),
        nextPageToken: z.string().nullable(),
      }),
      async run(input, context) {
        const clauses = [`mimeType = '${FOLDER_MIME}'`, 'trashed = false'];
        if (input.parentId) clauses.push(`${driveQueryString(input.parentId)} in parents`);
        if (input.nameContains) clauses.push(`name contains ${driveQueryString(input.nameContains)}`);
        const data = await listDriveFiles(deps, context, {
          clauses,
          orderBy: 'name',
          pageSize: input.pageSize,
          pageToken: input.pageToken,
          fields: 'nextPageToken, incompleteSearch, files(id, name, parents, driveId)',
        });
        const folders = (data.files ?? []).map((file) => ({
          folderId: file.id ?? '',
          name: file.name ?? '',
          parentId: file.parents?.[0] ?? null,
          driveId: file.driveId ?? null,
        }));
        const lines = folders.map(
          (folder) =>
            `${folder.name}  (folderId ${folder.folderId}${folder.parentId ? `, in ${folder.parentId}` : ''}${folder.driveId ? `, shared drive ${folder.driveId}` : ''})`,
        );
        return drivePageAnswer(
          'folders',
          folders,
          lines,
          'No folders found.',
          data.nextPageToken,
          incomplete(data),
        );
      },
    }),

    defineTool({
      name: 'search_spreadsheets',
      toolset: 'core-read',
      title: 'Search spreadsheets',
      description:
        'Finds spreadsheets (in your Drive and shared drives) whose name or contents contain a text, newest first; optionally only in one folder.',
      scope: 'sheets:read',
      annotations: READ,
      inputSchema: z.object({
        query: z.string().trim().min(1).max(200).describe('The text to look for.'),
        match: z
          .enum(['any', 'name', 'content'])
          .default('any')
          .describe(
            'name: the name has a word starting with the text; content: the cells or the name hold it; any: either.',
          ),
        folderId: folderId.optional().describe('Only spreadsheets directly in this folder.'),
        pageSize,
        pageToken,
      }),
      outputSchema: z.object({
        spreadsheets: z.array(
          z.object({
            spreadsheetId: z.string(),
            name: z.string(),
            modifiedTime: z.string().nullable(),
            driveId: z.string().nullable(),
          }),
        ),
        nextPageToken: z.string().nullable(),
      }),
      async run(input, context) {
        const text = driveQueryString(input.query);
        const byName = `name contains ${text}`;
        const byContent = `fullText contains ${text}`;
        const clauses = [
          `mimeType = '${SPREADSHEET_MIME}'`,
          'trashed = false',
          input.match === 'name'
            ? byName
            : input.match === 'content'
              ? byContent
              : `(${byName} or ${byContent})`,
        ];
        if (input.folderId) clauses.push(`${driveQueryString(input.folderId)} in parents`);
        const data = await listDriveFiles(deps, context, {
          clauses,
          orderBy: 'modifiedTime desc',
          pageSize: input.pageSize,
          pageToken: input.pageToken,
          fields: 'nextPageToken, incompleteSearch, files(id, name, modifiedTime, driveId)',
        });
        const spreadsheets = (data.files ?? []).map((file) => ({
          spreadsheetId: file.id ?? '',
          name: file.name ?? '',
          modifiedTime: file.modifiedTime ?? null,
          driveId: file.driveId ?? null,
        }));
        const lines = spreadsheets.map((file) => `${file.name}  (spreadsheetId ${file.spreadsheetId})`);
        return drivePageAnswer(
          'spreadsheets',
          spreadsheets,
          lines,
          `No spreadsheets match ${JSON.stringify(input.query)}.`,
          data.nextPageToken,
          incomplete(data),
        );
      },
    }),
  ];
}
