import { z } from 'zod';
import { READ } from '../../kit/annotations.ts';
import { checkFolder, FOLDER_MIME, folderId } from '../../kit/drive-folders.ts';
import { driveQueryString } from '../../kit/drive-options.ts';
import { drivePageAnswer, incomplete, listDriveFiles, pageSize, pageToken } from '../../kit/drive-pages.ts';
import { SPREADSHEET_MIME } from '../../kit/google-file-types.ts';
import { defineTool } from '../../kit/tool-definition.ts';
import type { ToolDeps } from '../../kit/tool-deps.ts';

/** What a folder holds, as list_folder_contents names it: a spreadsheet, a folder, or the file's MIME type. */
function typeOf(mimeType: string): string {
  if (mimeType === SPREADSHEET_MIME) return 'spreadsheet';
  if (mimeType === FOLDER_MIME) return 'folder';
  return mimeType;
}

/** list_folder_contents: the files and folders directly in one Drive folder, a page at a time. */
export function folderContentTools(deps: ToolDeps) {
  return [
    defineTool({
      name: 'list_folder_contents',
      toolset: 'files',
      title: 'List a folder’s contents',
      description: 'Lists what is directly in a Drive folder, folders first.',
      scope: 'sheets:read',
      annotations: READ,
      inputSchema: z.object({
        folderId: folderId.or(z.literal('root')).default('root').describe('"root": My Drive.'),
        pageSize,
        pageToken,
      }),
      outputSchema: z.object({
        files: z.array(
          z.object({
            id: z.string(),
            name: z.string(),
            type: z.string(),
            modifiedTime: z.string().nullable(),
          }),
        ),
        nextPageToken: z.string().nullable(),
      }),
      async run(input, context) {
        const data = await listDriveFiles(deps, context, {
          clauses: [`${driveQueryString(input.folderId)} in parents`, 'trashed = false'],
          orderBy: 'folder,name',
          pageSize: input.pageSize,
          pageToken: input.pageToken,
          fields: 'nextPageToken, incompleteSearch, files(id, name, mimeType, modifiedTime)',
        });
        const files = (data.files ?? []).map((file) => ({
          id: file.id ?? '',
          name: file.name ?? '',
          type: typeOf(file.mimeType ?? ''),
          modifiedTime: file.modifiedTime ?? null,
        }));
        // Google lists nothing for an id that is no folder of the person's: said in words
        // (one files.get, only when a first page is empty).
        let empty = 'The folder is empty.';
        if (files.length === 0 && !input.pageToken && input.folderId !== 'root') {
          const folder = await checkFolder(deps, context, input.folderId);
          empty = `The folder "${folder.name}" is empty.`;
        }
        const lines = files.map(
          (file) =>
            `${file.name}  (${file.type}, ${file.type === 'folder' ? 'folderId' : file.type === 'spreadsheet' ? 'spreadsheetId' : 'fileId'} ${file.id}${file.modifiedTime ? `, modified ${file.modifiedTime}` : ''})`,
        );
        return drivePageAnswer('files', files, lines, empty, data.nextPageToken, incomplete(data));
      },
    }),
  ];
}
