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
      description: 'Lists Drive folders with ids and parents.',
      scope: 'sheets:read',
      annotations: READ,
      inputSchema: z.object({
        // Listed as the one string it is, not as a string or the string "root".
        parentId: z
          .string()
          .pipe(folderId.or(z.literal('root')))
          .optional()
          .describe('Folders in this one; "root": My Drive.'),
        nameContains: z.string().min(1).max(200).optional(),
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
      description: 'Finds spreadsheets whose name or cells hold a text, newest first.',
      scope: 'sheets:read',
      annotations: READ,
      inputSchema: z.object({
        query: z.string().trim().min(1).max(200),
        match: z
          .enum(['any', 'name', 'content'])
          .default('any')
          .describe('name: a word of the name starts with it.'),
        folderId: folderId.optional().describe('Only directly in this folder.'),
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
