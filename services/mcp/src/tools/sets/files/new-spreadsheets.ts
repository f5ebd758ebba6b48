import { Readable } from 'node:stream';
import { z } from 'zod';
import { ToolError } from '../../../errors/tool-error.ts';
import { changeNote } from '../../../journal/record-change.ts';
import { type MadeFile, recordMadeFile } from '../../../journal/record-made-file.ts';
import { amount, quotedName } from '../../guards/loss-phrases.ts';
import { rangeOnSheet } from '../../kit/a1.ts';
import { CHANGE } from '../../kit/annotations.ts';
import { anyFileId, changeIdOutput, dryRun, dryRunOutput, rows } from '../../kit/common-schemas.ts';
import { copyAsSpreadsheet } from '../../kit/drive-copy.ts';
import { folderId, intoFolder, targetFolder } from '../../kit/drive-folders.ts';
import { ALL_DRIVES } from '../../kit/drive-options.ts';
import { EXPORT_TYPES, IMPORTABLE_TYPES, SPREADSHEET_MIME } from '../../kit/google-file-types.ts';
import { defineTool, type ToolContext } from '../../kit/tool-definition.ts';
import type { ToolDeps } from '../../kit/tool-deps.ts';

export function newSpreadsheetTools(deps: ToolDeps) {
  const { sheets, drive, callGoogle, journal } = deps;
  /**
   * Journals a created spreadsheet: its modifiedTime once its values are written (one files.get),
   * which undo compares to refuse trashing a spreadsheet changed since.
   */
  const journalMade = async (
    { auth, signal }: Pick<ToolContext, 'auth' | 'signal'>,
    spreadsheetId: string,
    title: string,
    tabs: string[],
    values: readonly (readonly unknown[])[],
  ) => {
    let file: MadeFile = { id: spreadsheetId, name: title };
    let unread: string | undefined;
    try {
      ({ data: file } = await callGoogle(auth.userId, signal, (request) =>
        drive.files.get(
          { fileId: spreadsheetId, fields: 'id, name, mimeType, modifiedTime', ...ALL_DRIVES },
          request,
        ),
      ));
    } catch {
      // The spreadsheet is made: the call succeeds, only its undo could not be kept.
      unread = `Undo is not available: Google did not say when the new spreadsheet was last modified, so a later change to it could not be told apart; move it to the trash in Google Drive.`;
    }
    const cells = values.reduce<number>(
      (sum, row) => sum + row.filter((value) => value !== null && value !== '').length,
      0,
    );
    return recordMadeFile(journal, auth, {
      tool: 'create_spreadsheet',
      file,
      ranges: tabs,
      cells,
      rows: values.length,
      ...(unread ? { undoUnavailableReason: unread } : {}),
      summary: `created spreadsheet ${quotedName(file.name ?? '')}${cells ? ` with ${amount(cells, 'cell')}` : ''}${tabs.length > 1 ? ` (${amount(tabs.length, 'tab')})` : ''}`,
    });
  };
  return [
    defineTool({
      name: 'create_spreadsheet',
      toolset: 'files',
      title: 'Create a spreadsheet',
      description: 'Creates a spreadsheet, optionally with tabs and values.',
      scope: 'sheets:write',
      journalsItself: true,
      annotations: CHANGE,
      inputSchema: z.object({
        title: z.string().min(1).max(200),
        sheetTitles: z.array(z.string().min(1).max(100)).max(50).optional(),
        values: rows.optional(),
        folderId: folderId.optional(),
        dryRun,
      }),
      outputSchema: z.object({
        // null in a dry run: Google assigns the id.
        spreadsheetId: z.string().nullable(),
        url: z.string().nullable(),
        sheets: z.array(z.string()),
        folderId: z.string().nullable().optional(),
        dryRun: dryRunOutput,
        changeId: changeIdOutput,
      }),
      async run(input, context) {
        const { auth, signal } = context;
        // The folder is checked first, so that a wrong id creates nothing.
        const { folder, where } = await targetFolder(deps, context, input.folderId);
        if (input.dryRun) {
          const tabs = input.sheetTitles?.length ? input.sheetTitles : ['Sheet1'];
          const cells = (input.values ?? []).reduce((sum, row) => sum + row.length, 0);
          return {
            structuredContent: {
              spreadsheetId: null,
              url: null,
              sheets: tabs,
              ...(folder ? { folderId: folder.folderId } : {}),
              dryRun: true,
            },
            text: `Dry run: would create ${input.title}${where} with ${tabs.length} tabs${cells ? ` and ${cells} cells on the first` : ''}. Nothing was created.`,
          };
        }
        const { data } = await callGoogle(auth.userId, signal, (request) =>
          sheets.spreadsheets.create(
            {
              requestBody: {
                properties: { title: input.title },
                ...(input.sheetTitles?.length
                  ? { sheets: input.sheetTitles.map((title) => ({ properties: { title } })) }
                  : {}),
              },
            },
            request,
          ),
        );
        const spreadsheetId = data.spreadsheetId;
        if (!spreadsheetId) throw new ToolError('Google did not return the new spreadsheet’s id');
        const tabs = (data.sheets ?? []).map((sheet) => sheet.properties?.title ?? '');
        // Sheets creates in My Drive's root and takes no parent: Drive moves it (one files.update).
        if (folder) {
          const made = `Created ${input.title} (spreadsheetId ${spreadsheetId}) at the top of My Drive, but did not move it: `;
          await intoFolder(
            folder,
            () =>
              callGoogle(auth.userId, signal, (request) =>
                drive.files.update(
                  {
                    fileId: spreadsheetId,
                    addParents: folder.folderId,
                    removeParents: 'root',
                    fields: 'id',
                    ...ALL_DRIVES,
                  },
                  request,
                ),
              ),
            made,
          );
        }
        // A second request only with values: create takes typed cells, not values parsed as typed.
        if (input.values?.length) {
          await callGoogle(auth.userId, signal, (request) =>
            sheets.spreadsheets.values.update(
              {
                spreadsheetId,
                range: rangeOnSheet(tabs[0] ?? 'Sheet1', 'A1'),
                valueInputOption: 'USER_ENTERED',
                requestBody: { values: input.values },
              },
              request,
            ),
          );
        }
        const changeId = journal
          ? await journalMade(context, spreadsheetId, input.title, tabs, input.values ?? [])
          : undefined;
        return {
          structuredContent: {
            spreadsheetId,
            url: data.spreadsheetUrl ?? null,
            sheets: tabs,
            ...(folder ? { folderId: folder.folderId } : {}),
            ...(changeId ? { changeId } : {}),
          },
          text: `Created ${input.title}${where} (spreadsheetId ${spreadsheetId})${data.spreadsheetUrl ? `: ${data.spreadsheetUrl}` : ''}.${changeNote(changeId)}`,
        };
      },
    }),

    defineTool({
      name: 'convert_file',
      toolset: 'files',
      title: 'Convert a file',
      description: 'Converts an xlsx, csv or ods file to a Google spreadsheet, or a spreadsheet to a file.',
      scope: 'sheets:write',
      journalsItself: true,
      annotations: CHANGE,
      inputSchema: z.object({
        fileId: anyFileId,
        to: z.enum(['spreadsheet', 'xlsx', 'csv', 'ods', 'pdf']),
        name: z.string().min(1).max(200).optional(),
        folderId: folderId.optional(),
        dryRun,
      }),
      // fileId is null in a dry run: the file is not made.
      outputSchema: z.object({
        fileId: z.string().nullable(),
        name: z.string(),
        mimeType: z.string(),
        dryRun: dryRunOutput,
        changeId: changeIdOutput,
      }),
      async run(input, context) {
        const { auth, signal } = context;
        // Steps: read the file's type, then a copy Google converts, or an export and its upload.
        // Each is needed: the type decides copy or export and names the new file; Drive cannot export into Drive.
        const steps = input.to === 'spreadsheet' ? 2 : 3;
        const { folder } = await targetFolder(deps, context, input.folderId);
        const parents = folder ? { parents: [folder.folderId] } : {};
        const { data: source } = await callGoogle(auth.userId, signal, (request) =>
          drive.files.get({ fileId: input.fileId, fields: 'id, name, mimeType', ...ALL_DRIVES }, request),
        );
        const sourceName = (source.name ?? 'file').replace(/\.(xlsx|xls|csv|ods)$/i, '');
        if (input.to === 'spreadsheet') {
          if (!IMPORTABLE_TYPES.has(source.mimeType ?? '')) {
            throw new ToolError(
              `only xlsx, csv and ods files convert to a spreadsheet; this file is ${source.mimeType}`,
            );
          }
          if (input.dryRun) return planned(input.name ?? sourceName, SPREADSHEET_MIME);
          context.progress(1, steps, 'Converting the file into a Google spreadsheet');
          signal.throwIfAborted();
          const copy = await copyAsSpreadsheet(deps, context, {
            fileId: input.fileId,
            name: input.name ?? sourceName,
            folder,
            fields: 'id, name, mimeType, modifiedTime',
          });
          context.progress(2, steps, 'Converted');
          return converted(copy, recordMadeFile(journal, auth, madeBy(copy, source.name)));
        }
        if (source.mimeType !== SPREADSHEET_MIME) {
          throw new ToolError(
            `only a Google spreadsheet converts to ${input.to}; this file is ${source.mimeType}`,
          );
        }
        const mimeType = EXPORT_TYPES[input.to];
        if (input.dryRun) return planned(input.name ?? `${sourceName}.${input.to}`, mimeType);
        context.progress(1, steps, `Exporting the spreadsheet as ${input.to}`);
        signal.throwIfAborted();
        const { data: bytes } = await callGoogle(auth.userId, signal, (request) =>
          drive.files.export(
            { fileId: input.fileId, mimeType, ...ALL_DRIVES },
            { ...request, responseType: 'arraybuffer' },
          ),
        );
        context.progress(2, steps, `Uploading the ${input.to} file to Drive`);
        // Cancelled after the export: the bytes are not uploaded.
        signal.throwIfAborted();
        const { data: created } = await intoFolder(folder, () =>
          callGoogle(auth.userId, signal, (request) =>
            drive.files.create(
              {
                fields: 'id, name, mimeType, modifiedTime',
                requestBody: { name: input.name ?? `${sourceName}.${input.to}`, mimeType, ...parents },
                ...ALL_DRIVES,
                media: { mimeType, body: Readable.from(Buffer.from(bytes as ArrayBuffer)) },
              },
              request,
            ),
          ),
        );
        context.progress(3, steps, 'Converted');
        return converted(created, recordMadeFile(journal, auth, madeBy(created, source.name)));
      },
    }),
  ];
}

/** A dry run's answer: the file a conversion would make, checked against its source's type. */
function planned(name: string, mimeType: string) {
  return {
    structuredContent: { fileId: null, name, mimeType, dryRun: true },
    text: `Dry run: would create ${name} (${mimeType}). Nothing was created.`,
  };
}

/** The journal's words for a converted file. */
function madeBy(file: MadeFile, sourceName: string | null | undefined) {
  return {
    tool: 'convert_file',
    file,
    summary: `converted ${quotedName(sourceName ?? '')} into ${quotedName(file.name ?? '')} (${file.mimeType ?? ''})`,
  };
}

function converted(file: MadeFile, changeId: string | undefined) {
  if (!file.id) throw new ToolError('Google did not return the converted file’s id');
  const result = { fileId: file.id, name: file.name ?? '', mimeType: file.mimeType ?? '' };
  return {
    structuredContent: { ...result, ...(changeId ? { changeId } : {}) },
    text: `Created ${result.name} (fileId ${result.fileId}, ${result.mimeType}).${changeNote(changeId)}`,
  };
}
