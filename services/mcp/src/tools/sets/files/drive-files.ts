import type { drive_v3 } from 'googleapis';
import { z } from 'zod';
import { ToolError } from '../../../errors/tool-error.ts';
import { changeNote } from '../../../journal/record-change.ts';
import { recordMadeFile } from '../../../journal/record-made-file.ts';
import { quotedName } from '../../guards/loss-phrases.ts';
import { CHANGE } from '../../kit/annotations.ts';
import { changeIdOutput, dryRun, dryRunOutput, spreadsheetId } from '../../kit/common-schemas.ts';
import { copyAsSpreadsheet } from '../../kit/drive-copy.ts';
import { FOLDER_MIME, folderId, intoFolder, targetFolder } from '../../kit/drive-folders.ts';
import { ALL_DRIVES } from '../../kit/drive-options.ts';
import { defineTool } from '../../kit/tool-definition.ts';
import type { ToolDeps } from '../../kit/tool-deps.ts';

/** copy_spreadsheet and create_folder: new files in Drive from existing ones, and folders to hold them. */
export function driveFileTools(deps: ToolDeps) {
  const { drive, callGoogle, journal } = deps;
  return [
    defineTool({
      name: 'copy_spreadsheet',
      toolset: 'files',
      title: 'Copy a spreadsheet',
      description: 'Copies a spreadsheet (an xlsx, csv or ods file as a Google spreadsheet).',
      scope: 'sheets:write',
      journalsItself: true,
      annotations: CHANGE,
      inputSchema: z.object({
        spreadsheetId,
        name: z.string().trim().min(1).max(200).optional(),
        folderId: folderId.optional().describe('Beside the original by default.'),
        dryRun,
      }),
      outputSchema: z.object({
        // null in a dry run: Google assigns the id.
        spreadsheetId: z.string().nullable(),
        name: z.string(),
        url: z.string().nullable(),
        folderId: z.string().nullable(),
        dryRun: dryRunOutput,
        changeId: changeIdOutput,
      }),
      async run(input, context) {
        const { auth, signal } = context;
        const { folder, where } = await targetFolder(deps, context, input.folderId);
        if (input.dryRun) {
          const { data: source } = await callGoogle(auth.userId, signal, (request) =>
            drive.files.get(
              { fileId: input.spreadsheetId, fields: 'id, name, mimeType', ...ALL_DRIVES },
              request,
            ),
          );
          const name = input.name ?? `Copy of ${source.name ?? ''}`;
          return {
            structuredContent: {
              spreadsheetId: null,
              name,
              url: null,
              folderId: folder?.folderId ?? null,
              dryRun: true,
            },
            text: `Dry run: would copy ${source.name} as ${name}${where}. Nothing was changed.`,
          };
        }
        let copy: drive_v3.Schema$File;
        try {
          copy = await copyAsSpreadsheet(deps, context, {
            fileId: input.spreadsheetId,
            name: input.name,
            folder,
            fields: 'id, name, mimeType, modifiedTime, webViewLink, parents',
          });
        } catch (error) {
          if (error instanceof ToolError && /conversion is not supported/i.test(error.message)) {
            throw new ToolError(
              `${input.spreadsheetId} is neither a spreadsheet nor an xlsx, csv or ods file, so it cannot be copied as a spreadsheet`,
            );
          }
          throw error;
        }
        if (!copy.id) throw new ToolError('Google did not return the copy’s id');
        const result = {
          spreadsheetId: copy.id,
          name: copy.name ?? '',
          url: copy.webViewLink ?? null,
          folderId: folder?.folderId ?? copy.parents?.[0] ?? null,
        };
        const changeId = recordMadeFile(journal, auth, {
          tool: 'copy_spreadsheet',
          file: copy,
          summary: `copied spreadsheet ${input.spreadsheetId} as ${quotedName(result.name)}`,
        });
        return {
          structuredContent: { ...result, ...(changeId ? { changeId } : {}) },
          text: `Copied as ${result.name} (spreadsheetId ${result.spreadsheetId})${where}${result.url ? `: ${result.url}` : ''}.${changeNote(changeId)}`,
        };
      },
    }),

    defineTool({
      name: 'create_folder',
      toolset: 'files',
      title: 'Create a folder',
      description: 'Creates a folder: Sheetgate puts files only in folders it made.',
      scope: 'sheets:write',
      journalsItself: true,
      annotations: CHANGE,
      inputSchema: z.object({
        name: z.string().trim().min(1).max(200),
        parentId: folderId.optional(),
        dryRun,
      }),
      outputSchema: z.object({
        // null in a dry run: Google assigns the id.
        folderId: z.string().nullable(),
        name: z.string(),
        parentId: z.string().nullable(),
        dryRun: dryRunOutput,
        changeId: changeIdOutput,
      }),
      async run(input, context) {
        const { auth, signal } = context;
        const { folder: parent, where } = await targetFolder(
          deps,
          context,
          input.parentId,
          ' at the top of My Drive',
        );
        if (input.dryRun) {
          return {
            structuredContent: {
              folderId: null,
              name: input.name,
              parentId: parent?.folderId ?? null,
              dryRun: true,
            },
            text: `Dry run: would create the folder ${input.name}${where}. Nothing was changed.`,
          };
        }
        const { data } = await intoFolder(parent, () =>
          callGoogle(auth.userId, signal, (request) =>
            drive.files.create(
              {
                fields: 'id, name, mimeType, modifiedTime, parents',
                requestBody: {
                  name: input.name,
                  mimeType: FOLDER_MIME,
                  ...(parent ? { parents: [parent.folderId] } : {}),
                },
                ...ALL_DRIVES,
              },
              request,
            ),
          ),
        );
        if (!data.id) throw new ToolError('Google did not return the new folder’s id');
        const result = {
          folderId: data.id,
          name: data.name ?? input.name,
          parentId: data.parents?.[0] ?? null,
        };
        const changeId = recordMadeFile(journal, auth, {
          tool: 'create_folder',
          file: data,
          summary: `created folder ${quotedName(result.name)}`,
        });
        return {
          structuredContent: { ...result, ...(changeId ? { changeId } : {}) },
          text: `Created the folder ${result.name}${where} (folderId ${result.folderId}).${changeNote(changeId)}`,
        };
      },
    }),
  ];
}
