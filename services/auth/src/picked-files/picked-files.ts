import { isUuid, SheetgateError } from '@sheetgate/service-runtime';
import { namedStatementsWhereSafe } from '../db/named-statements.ts';
import type { DatabasePool } from '../db/pool.ts';

/** Drive file ids are URL-safe base64 characters. */
const FILE_ID = /^[A-Za-z0-9_-]{1,200}$/;
/** At most this many files in one Picker selection, and kept per person. */
export const MAX_PICKED_PER_CALL = 100;
export const MAX_PICKED_PER_PERSON = 1_000;
const MAX_NAME = 500;
const MAX_MIME_TYPE = 200;

export interface PickedFile {
  fileId: string;
  name: string;
  mimeType: string;
  pickedAt: Date;
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is removed
const CONTROL = /[\u0000-\u001f\u007f]/g;
const clean = (text: string, max: number) => text.replace(CONTROL, ' ').trim().slice(0, max);

/**
 * The files a person chose with the Google Picker (table `picked_files`), as the dashboard lists
 * them. Google enforces access (its Picker recorded the drive.file grant); this is Sheetgate's
 * memory of the choice, so forgetting one changes nothing at Google.
 */
export function createPickedFiles(database: DatabasePool) {
  const pool = namedStatementsWhereSafe(database);
  return {
    /** Newest first. */
    async list(userId: string): Promise<PickedFile[]> {
      if (!isUuid(userId)) return [];
      const { rows } = await pool.query<PickedFile>({
        name: 'picked-files-list',
        text: `SELECT file_id AS "fileId", name, mime_type AS "mimeType", picked_at AS "pickedAt"
          FROM picked_files WHERE user_id = $1 ORDER BY picked_at DESC, name LIMIT ${MAX_PICKED_PER_PERSON}`,
        values: [userId],
      });
      return rows;
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
      const { rows } = await pool.query<{ kept: number }>({
        name: 'picked-files-count-others',
        text: 'SELECT count(*)::int AS kept FROM picked_files WHERE user_id = $1 AND NOT (file_id = ANY ($2::text[]))',
        values: [userId, unique.map((file) => file.fileId)],
      });
      if ((rows[0]?.kept ?? 0) + unique.length > MAX_PICKED_PER_PERSON)
        throw new SheetgateError(
          'invalid_argument',
          `Sheetgate lists at most ${MAX_PICKED_PER_PERSON} chosen files: remove some before choosing more.`,
        );
      await pool.query({
        name: 'picked-files-record',
        text: `INSERT INTO picked_files (user_id, file_id, name, mime_type)
          SELECT $1, file_id, name, mime_type FROM unnest($2::text[], $3::text[], $4::text[]) AS t(file_id, name, mime_type)
          ON CONFLICT (user_id, file_id) DO UPDATE SET name = EXCLUDED.name, mime_type = EXCLUDED.mime_type, picked_at = now()`,
        values: [
          userId,
          unique.map((file) => file.fileId),
          unique.map((file) => clean(file.name, MAX_NAME) || file.fileId),
          unique.map((file) => clean(file.mimeType, MAX_MIME_TYPE)),
        ],
      });
      return unique.length;
    },

    /** Forgets one choice; false when the person had not picked that file. */
    async forget(userId: string, fileId: string): Promise<boolean> {
      if (!isUuid(userId) || !FILE_ID.test(fileId)) return false;
      const { rowCount } = await pool.query({
        name: 'picked-files-forget',
        text: 'DELETE FROM picked_files WHERE user_id = $1 AND file_id = $2',
        values: [userId, fileId],
      });
      return (rowCount ?? 0) > 0;
    },
  };
}

export type PickedFiles = ReturnType<typeof createPickedFiles>;
