import type { drive_v3 } from 'googleapis';
import { intoFolder } from './drive-folders.ts';
import { ALL_DRIVES } from './drive-options.ts';
import { SPREADSHEET_MIME } from './google-file-types.ts';
import type { ToolContext } from './tool-definition.ts';
import type { ToolDeps } from './tool-deps.ts';

/** What a copy of a Drive file as a Google spreadsheet is asked for. */
export interface SpreadsheetCopy {
  fileId: string;
  /** The copy's name; Google's "Copy of <name>" when left out. */
  name?: string | undefined;
  /** The folder to put the copy in (from checkFolder); beside the original when left out. */
  folder?: { folderId: string; name: string } | undefined;
  /** The fields of the copy Google returns. */
  fields: string;
}

/**
 * One files.copy whose copy is a Google spreadsheet whatever the source: Google converts xlsx, csv
 * and ods on the way. Shared by copy_spreadsheet and convert_file; a folder Sheetgate may not put
 * files in is refused in words (intoFolder).
 */
export async function copyAsSpreadsheet(
  { drive, callGoogle }: Pick<ToolDeps, 'drive' | 'callGoogle'>,
  { auth, signal }: Pick<ToolContext, 'auth' | 'signal'>,
  copy: SpreadsheetCopy,
): Promise<drive_v3.Schema$File> {
  const { folder } = copy;
  const { data } = await intoFolder(folder, () =>
    callGoogle(auth.userId, signal, (request) =>
      drive.files.copy(
        {
          fileId: copy.fileId,
          fields: copy.fields,
          requestBody: {
            mimeType: SPREADSHEET_MIME,
            ...(copy.name !== undefined ? { name: copy.name } : {}),
            ...(folder ? { parents: [folder.folderId] } : {}),
          },
          ...ALL_DRIVES,
        },
        request,
      ),
    ),
  );
  return data;
}
