import { isUuid, SheetgateError } from '@sheetgate/service-runtime';
import type { DatabasePool } from '../db/pool.ts';
import { createPickedFileQueries, type PickedFile } from './picked-file-queries.ts';

export type { PickedFile };

/** Drive file ids are URL-safe base64 characters. */
const FILE_ID = /^[A-Za-z0-9_-]{1,200}$/;
/** At most this many files in one Picker selection, and kept per person. */
export const MAX_PICKED_PER_CALL = 100;
export const MAX_PICKED_PER_PERSON = 1_000;
const MAX_NAME = 500;
const MAX_MIME_TYPE = 200;

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is removed
const CONTROL = /[\u0000-\u001f\u007f]/g;
const clean = (text: string, max: number) => text.replace(CONTROL, ' ').trim().slice(0, max);

/**
 * The files a person chose with the Google Picker (table `picked_files`), as the dashboard lists
 * them. Google enforces access (its Picker recorded the drive.file grant); this is Sheetgate's
 * memory of the choice, so forgetting one changes nothing at Google.
 */
export function createPickedFiles(database: DatabasePool) {
  const queries = createPickedFileQueries(database);
  return {
    /** Newest first. */
    async list(userId: string): Promise<PickedFile[]> {
      if (!isUuid(userId)) return [];
      return queries.listByUser(userId, MAX_PICKED_PER_PERSON);
    },

    /**
     * Remembers a Picker selection (a file picked again moves to the top, with Google's current
     * name). Refuses ids that are not Drive ids, and more than MAX_PICKED_PER_CALL at once, with
     * `invalid_argument`. Answers how many were recorded.
     */
    async record(userId: string, files: ReadonlyArray<{ fileId: string; name: string; mimeType: string }>) {
      if (!isUuid(userId)) throw new SheetgateError('permission_denied', 'no such person');
      if (files.length === 0 || files.length > MAX_PICKED_PER_CALL)
        throw new SheetgateError(
          'invalid_argument',
          `Choose between 1 and ${MAX_PICKED_PER_CALL} files at once.`,
        );
      if (files.some((file) => !FILE_ID.test(file.fileId)))
        throw new SheetgateError('invalid_argument', 'That is not a Google Drive file id.');
      const unique = [...new Map(files.map((file) => [file.fileId, file])).values()];
      const kept = await queries.countOthers(
        userId,
        unique.map((file) => file.fileId),
      );
      if (kept + unique.length > MAX_PICKED_PER_PERSON)
        throw new SheetgateError(
          'invalid_argument',
          `Sheetgate lists at most ${MAX_PICKED_PER_PERSON} chosen files: remove some before choosing more.`,
        );
      await queries.upsert(
        userId,
        unique.map((file) => ({
          fileId: file.fileId,
          name: clean(file.name, MAX_NAME) || file.fileId,
          mimeType: clean(file.mimeType, MAX_MIME_TYPE),
        })),
      );
      return unique.length;
    },

    /** Forgets one choice; false when the person had not picked that file. */
    async forget(userId: string, fileId: string): Promise<boolean> {
      if (!isUuid(userId) || !FILE_ID.test(fileId)) return false;
      return queries.delete(userId, fileId);
    },
  };
}

export type PickedFiles = ReturnType<typeof createPickedFiles>;
