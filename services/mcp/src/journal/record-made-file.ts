import type { AuthInfo } from '../auth/auth-info.ts';
import type { ChangeJournal } from './change-journal.ts';

/** A file a tool made, as Google answered it (the fields undo needs). */
export interface MadeFile {
  id?: string | null;
  name?: string | null;
  mimeType?: string | null;
  modifiedTime?: string | null;
}

/** The tools that make a file in Drive and journal it here: what trash_file takes as made by Sheetgate. */
export const FILE_MAKING_TOOLS = [
  'create_spreadsheet',
  'copy_spreadsheet',
  'convert_file',
  'create_folder',
] as const;

/**
 * Journals a file a tool made (create_spreadsheet, create_folder, copy_spreadsheet, convert_file):
 * undo moves it to the trash, refused when it was modified after `modifiedTime` (docs/design.md
 * §11.8). The change's id, or undefined when the journal is off.
 */
export function recordMadeFile(
  journal: ChangeJournal | undefined,
  auth: AuthInfo,
  change: {
    tool: string;
    file: MadeFile;
    summary: string;
    /** The tabs made, when not the file's name. */
    ranges?: string[];
    cells?: number;
    rows?: number;
    /** Why undo is not available, when what it needs could not be read. */
    undoUnavailableReason?: string;
  },
): string | undefined {
  const { file } = change;
  if (!journal || !file.id) return undefined;
  return journal.record(auth, {
    tool: change.tool,
    spreadsheetId: file.id,
    ranges: change.ranges ?? [file.name ?? ''],
    cells: change.cells ?? 0,
    rows: change.rows ?? 0,
    summary: change.summary,
    ...(change.undoUnavailableReason
      ? { undoUnavailableReason: change.undoUnavailableReason }
      : {
          payload: {
            v: 1,
            kind: 'file',
            fileId: file.id,
            name: file.name ?? '',
            mimeType: file.mimeType ?? '',
            trashed: false,
            ...(file.modifiedTime ? { modifiedTime: file.modifiedTime } : {}),
          },
        }),
  });
}

/**
 * Whether the person made `fileId` through Sheetgate: their change journal holds its making (by any
 * of their keys or apps, within the journal's retention). One listing per making tool, at once;
 * a making still on its way from another replica is not seen yet.
 */
export async function madeThroughSheetgate(
  journal: ChangeJournal,
  auth: AuthInfo,
  fileId: string,
): Promise<boolean> {
  // A file made a moment ago through this replica may still be on its way to auth.
  await journal.flush();
  const found = await Promise.all(
    FILE_MAKING_TOOLS.map((tool) => journal.list(auth, { spreadsheetId: fileId, tool, pageSize: 1 })),
  );
  return found.some(({ changes }) => changes.length > 0);
}
