import type { DatabasePool } from '../db/pool.ts';

export interface AuditEvent {
  id: string;
  occurredAt: Date;
  kind: string;
  userId: string | null;
  details: Record<string, unknown>;
}

/** SQL for the `audit_events` table. */
export function createAuditQueries(pool: DatabasePool) {
  return {
    async insert(kind: string, userId: string | null, details: Record<string, unknown>): Promise<void> {
      await pool.query('INSERT INTO audit_events (kind, user_id, details) VALUES ($1, $2, $3::jsonb)', [
        kind,
        userId,
        JSON.stringify(details),
      ]);
    },

    /** Newest first. */
    async recent(filter: { userId?: string; kind?: string; limit: number }): Promise<AuditEvent[]> {
      const { rows } = await pool.query<AuditEvent>(
        `SELECT id::text AS id, occurred_at AS "occurredAt", kind, user_id AS "userId", details
           FROM audit_events
          WHERE ($1::uuid IS NULL OR user_id = $1::uuid) AND ($2::text IS NULL OR kind = $2::text)
          ORDER BY audit_events.id DESC
          LIMIT $3`,
        [filter.userId ?? null, filter.kind ?? null, filter.limit],
      );
      return rows;
    },
  };
}

export type AuditQueries = ReturnType<typeof createAuditQueries>;
