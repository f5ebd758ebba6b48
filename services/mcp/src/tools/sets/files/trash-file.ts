import { z } from 'zod';
import { ToolError } from '../../../errors/tool-error.ts';
import { changeNote } from '../../../journal/record-change.ts';
import { madeThroughSheetgate } from '../../../journal/record-made-file.ts';
import { amount, quotedName } from '../../guards/loss-phrases.ts';
import { CHANGE } from '../../kit/annotations.ts';
import { anyFileId, changeIdOutput, dryRun, dryRunOutput } from '../../kit/common-schemas.ts';
import { FOLDER_MIME } from '../../kit/drive-folders.ts';
import { ALL_DRIVES, driveQueryString } from '../../kit/drive-options.ts';
import { changeOfSheetgatesFile } from '../../kit/sheetgate-files.ts';
import { defineTool, type ToolContext } from '../../kit/tool-definition.ts';
import type { ToolDeps } from '../../kit/tool-deps.ts';

/** A folder's items named in the answer; past them, a count. */
const HELD_NAMED = 10;

/** What trashing one file takes to the trash, read before anything changes. */
interface TrashPlan {
  fileId: string;
  name: string;
  folder: boolean;
  /** A folder's items not in the trash yet (Google trashes them with it), the first HELD_NAMED named. */
  held?: { count: number; first: string[]; more: boolean };
  /** `the folder "Scratch" (id) with 3 items: "a", "b", "c"` */
  words: string;
}

/**
 * trash_file: moves a spreadsheet or folder Sheetgate made to the Drive trash (docs/design.md §11);
 * undo_change takes it out again.
 */
export function trashFileTools(deps: ToolDeps) {
  const { drive, callGoogle, journal } = deps;

  /**
   * Reads the file and refuses what may not go: a file the person did not make through Sheetgate
   * (their change journal holds no making of it: not a chosen file, not one made elsewhere), or
   * one in the trash already. A folder's items are listed, since the trash takes them too.
   */
  async function plan(
    { auth, signal }: Pick<ToolContext, 'auth' | 'signal'>,
    fileId: string,
  ): Promise<TrashPlan> {
    const { data: file } = await callGoogle(auth.userId, signal, (request) =>
      drive.files.get({ fileId, fields: 'id, name, mimeType, trashed', ...ALL_DRIVES }, request),
    );
    const folder = file.mimeType === FOLDER_MIME;
    const named = `${folder ? 'the folder' : 'the file'} ${quotedName(file.name ?? '')} (${fileId})`;
    if (!journal)
      throw new ToolError(
        `${named} stays: this deployment keeps no change journal, so Sheetgate cannot tell the files it made (and could not undo the trash). Move it to the trash in Google Drive.`,
      );
    if (!(await madeThroughSheetgate(journal, auth, fileId)))
      throw new ToolError(
        `${named} stays: Sheetgate trashes only files you made with it (create_spreadsheet, copy_spreadsheet, convert_file, create_folder) within its change journal's retention. Move it to the trash in Google Drive.`,
      );
    if (file.trashed) throw new ToolError(`${named} is in the trash already.`);
    if (!folder) return { fileId, name: file.name ?? '', folder, words: named };
    const { data } = await callGoogle(auth.userId, signal, (request) =>
      drive.files.list(
        {
          q: `${driveQueryString(fileId)} in parents and trashed = false`,
          fields: 'nextPageToken, files(name)',
          pageSize: 100,
          supportsAllDrives: true,
          includeItemsFromAllDrives: true,
        },
        request,
      ),
    );
    const items = data.files ?? [];
    const more = Boolean(data.nextPageToken);
    const held = {
      count: items.length,
      first: items.slice(0, HELD_NAMED).map((item) => item.name ?? ''),
      more: more || items.length > HELD_NAMED,
    };
    const words =
      items.length === 0
        ? `${named}, which is empty`
        : `${named} with ${more ? 'over ' : ''}${amount(items.length, 'item')} in it (${held.first.map(quotedName).join(', ')}${held.more ? ', …' : ''}; what its folders hold goes too)`;
    return { fileId, name: file.name ?? '', folder, held, words };
  }

  return [
    defineTool({
      name: 'trash_file',
      toolset: 'files',
      title: 'Move a file to the trash',
      description:
        'Moves a spreadsheet or folder you made with Sheetgate to the Drive trash, a folder with all it holds.',
      scope: 'sheets:write',
      journalsItself: true,
      annotations: { ...CHANGE, destructiveHint: true, idempotentHint: true },
      inputSchema: z.object({ fileId: anyFileId, dryRun }),
      outputSchema: z.object({
        fileId: z.string(),
        name: z.string(),
        folder: z.boolean(),
        /** A folder's items that go with it. */
        held: z.object({ count: z.number(), first: z.array(z.string()), more: z.boolean() }).optional(),
        dryRun: dryRunOutput,
        changeId: changeIdOutput,
      }),
      async run(input, context) {
        const { auth, signal } = context;
        const trash = await plan(context, input.fileId);
        const result = {
          fileId: trash.fileId,
          name: trash.name,
          folder: trash.folder,
          ...(trash.held ? { held: trash.held } : {}),
        };
        if (input.dryRun)
          return {
            structuredContent: { ...result, dryRun: true },
            text: `Dry run: would move ${trash.words} to the trash. Nothing was changed.`,
          };
        const { data: updated } = await changeOfSheetgatesFile(
          input.fileId,
          `${trash.words} stays: Google lets Sheetgate change only files it made or was opened with. Move it to the trash in Google Drive.`,
          () =>
            callGoogle(auth.userId, signal, (request) =>
              drive.files.update(
                {
                  fileId: input.fileId,
                  fields: 'id, name, mimeType, trashed, modifiedTime',
                  requestBody: { trashed: true },
                  ...ALL_DRIVES,
                },
                request,
              ),
            ),
        );
        if (updated.trashed !== true) throw new ToolError(`Google did not move ${trash.words} to the trash`);
        const changeId = journal?.record(auth, {
          tool: 'trash_file',
          spreadsheetId: input.fileId,
          ranges: [trash.name],
          cells: 0,
          rows: 0,
          summary: `moved ${trash.folder ? 'the folder ' : ''}${quotedName(trash.name)} to the trash${trash.held?.count ? ` with ${amount(trash.held.count, 'item')}${trash.held.more ? ' or more' : ''}` : ''}`,
          payload: {
            v: 1,
            kind: 'file',
            fileId: input.fileId,
            name: updated.name ?? trash.name,
            mimeType: updated.mimeType ?? '',
            trashed: true,
            ...(updated.modifiedTime ? { modifiedTime: updated.modifiedTime } : {}),
          },
        });
        return {
          structuredContent: { ...result, ...(changeId ? { changeId } : {}) },
          text: `Moved ${trash.words} to the trash.${changeNote(changeId)}`,
        };
      },
      describeLoss: async (input, context) => {
        const trash = await plan(context, input.fileId);
        return `${trash.words[0]!.toUpperCase()}${trash.words.slice(1)} goes to the Drive trash (Google deletes it for good after 30 days there).`;
      },
    }),
  ];
}
