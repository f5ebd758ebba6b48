import { namedStatementsWhereSafe } from '../db/named-statements.ts';
import type { DatabasePool } from '../db/pool.ts';

export interface PickedFile {
  fileId: string;
  name: string;
  mimeType: string;
  pickedAt: Date;
}

/** SQL for the `picked_files` table. */
export function createPickedFileQueries(database: DatabasePool) {
  const pool = namedStatementsWhereSafe(database);
  return {
    /** Newest first, at most `limit`. */
    async listByUser(userId: string, limit: number): Promise<PickedFile[]> {
      const { rows } = await pool.query<PickedFile>({
        name: 'picked-files-list',
        text: `SELECT file_id AS "fileId", name, mime_type AS "mimeType", picked_at AS "pickedAt"
          FROM picked_files WHERE user_id = $1 ORDER BY picked_at DESC, name LIMIT $2`,
        values: [userId, limit],
      });
      return rows;
    },

    /** How many files the person has chosen besides `fileIds`. */
    async countOthers(userId: string, fileIds: readonly string[]): Promise<number> {
      const { rows } = await pool.query<{ kept: number }>({
        name: 'picked-files-count-others',
        text: 'SELECT count(*)::int AS kept FROM picked_files WHERE user_id = $1 AND NOT (file_id = ANY ($2::text[]))',
        values: [userId, fileIds],
      });
      return rows[0]?.kept ?? 0;
    },

    /** Inserts the files, or moves each one already chosen to the top with its new name and type. */
    async upsert(
      userId: string,
      files: ReadonlyArray<{ fileId: string; name: string; mimeType: string }>,
    ): Promise<void> {
      await pool.query({
        name: 'picked-files-record',
        text: `INSERT INTO picked_files (user_id, file_id, name, mime_type)
          SELECT $1, file_id, name, mime_type FROM unnest($2::text[], $3::text[], $4::text[]) AS t(file_id, name, mime_type)
          ON CONFLICT (user_id, file_id) DO UPDATE SET name = EXCLUDED.name, mime_type = EXCLUDED.mime_type, picked_at = now()`,
        values: [
          userId,
          files.map((file) => file.fileId),
          files.map((file) => file.name),
          files.map((file) => file.mimeType),
        ],
      });
    },

    /** False when the person had not chosen that file. */
    async delete(userId: string, fileId: string): Promise<boolean> {
      const { rowCount } = await pool.query({
        name: 'picked-files-forget',
        text: 'DELETE FROM picked_files WHERE user_id = $1 AND file_id = $2',
        values: [userId, fileId],
      });
      return (rowCount ?? 0) > 0;
    },
  };
}

export type PickedFileQueries = ReturnType<typeof createPickedFileQueries>;
