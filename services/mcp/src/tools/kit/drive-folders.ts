import { ToolError } from '../../errors/tool-error.ts';
import { ALL_DRIVES } from './drive-options.ts';
import { googleIdInput } from './google-ids.ts';
import type { ToolContext } from './tool-definition.ts';
import type { ToolDeps } from './tool-deps.ts';

export const FOLDER_MIME = 'application/vnd.google-apps.folder';

export const folderId = googleIdInput('folder', { min: 5, max: 200 });

/**
 * The folder a file is to be put in, read first so that an id of something else, or of nothing,
 * is refused in words rather than as whatever Google would make of it. One files.get.
 */
export async function checkFolder(
  { drive, callGoogle }: Pick<ToolDeps, 'drive' | 'callGoogle'>,
  { auth, signal }: Pick<ToolContext, 'auth' | 'signal'>,
  id: string,
): Promise<{ folderId: string; name: string }> {
  let folder: { id?: string | null; name?: string | null; mimeType?: string | null };
  try {
    ({ data: folder } = await callGoogle(auth.userId, signal, (request) =>
      drive.files.get({ fileId: id, fields: 'id, name, mimeType', ...ALL_DRIVES }, request),
    ));
  } catch (error) {
    if (error instanceof ToolError && error.message.startsWith('Not found:')) {
      throw new ToolError(
        `the folder ${id} does not exist, or is not in your Drive (list_folders shows yours)`,
      );
    }
    throw error;
  }
  if (folder.mimeType !== FOLDER_MIME) {
    throw new ToolError(
      `${id} ("${folder.name ?? ''}") is not a folder but a ${folder.mimeType}: give a folderId from list_folders`,
    );
  }
  return { folderId: id, name: folder.name ?? '' };
}

/**
 * The folder a new file is to go in when the call names one (checkFolder), and the words that say
 * where it goes: ` in the folder "<name>"`, or `elsewhere` when no folder is named.
 */
export async function targetFolder(
  deps: Pick<ToolDeps, 'drive' | 'callGoogle'>,
  context: Pick<ToolContext, 'auth' | 'signal'>,
  id: string | undefined,
  elsewhere = '',
): Promise<{ folder: { folderId: string; name: string } | undefined; where: string }> {
  const folder = id ? await checkFolder(deps, context, id) : undefined;
  return { folder, where: folder ? ` in the folder "${folder.name}"` : elsewhere };
}

/**
 * Runs the Google call that puts a file into `folder`. Under drive.file Google finds only folders
 * Sheetgate made or was opened with, and answers 404 for the others: said here in words.
 */
export async function intoFolder<T>(
  folder: { folderId: string; name: string } | undefined,
  call: () => Promise<T>,
  madeAlready = '',
): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (
      folder &&
      error instanceof ToolError &&
      error.message.startsWith('Not found:') &&
      error.message.includes(folder.folderId)
    ) {
      throw new ToolError(
        `${madeAlready}Sheetgate can put files only in folders it created (create_folder) or that were opened with it, and "${folder.name}" (${folder.folderId}) is not one: use create_folder, or leave folderId out and move the file in Google Drive.`,
      );
    }
    throw error;
  }
}
