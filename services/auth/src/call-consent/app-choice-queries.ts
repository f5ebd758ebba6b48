import type { CredentialChoices } from '@sheetgate/proto';
import { namedStatementsWhereSafe } from '../db/named-statements.ts';
import type { Queryable } from '../db/pool.ts';

/** SQL for the `app_choices` table. `database` may be a transaction's client. */
export function createAppChoiceQueries(database: Queryable) {
  const pool = namedStatementsWhereSafe(database);
  return {
    /** The stored choices, or undefined when none were made. */
    async find(userId: string, clientId: string): Promise<CredentialChoices | undefined> {
      const { rows } = await pool.query<CredentialChoices>({
        name: 'app-choices-chosen',
        text: `SELECT may_act_outbound AS "mayActOutbound", may_destroy_unasked AS "mayDestroyUnasked"
          FROM app_choices WHERE user_id = $1 AND client_id = $2`,
        values: [userId, clientId],
      });
      return rows[0];
    },

    /** Inserts or replaces the choices for the person and app. */
    async upsert(userId: string, clientId: string, choices: CredentialChoices): Promise<void> {
      await pool.query({
        name: 'app-choices-choose',
        text: `INSERT INTO app_choices (user_id, client_id, may_act_outbound, may_destroy_unasked)
          VALUES ($1, $2, $3, $4)
          ON CONFLICT (user_id, client_id) DO UPDATE SET may_act_outbound = EXCLUDED.may_act_outbound,
            may_destroy_unasked = EXCLUDED.may_destroy_unasked, chosen_at = now()`,
        values: [userId, clientId, choices.mayActOutbound, choices.mayDestroyUnasked],
      });
    },

    async delete(userId: string, clientId: string): Promise<void> {
      await pool.query({
        name: 'app-choices-forget',
        text: 'DELETE FROM app_choices WHERE user_id = $1 AND client_id = $2',
        values: [userId, clientId],
      });
    },

    /** Every person's choices for every app (an OAuth reset deletes every client). */
    async deleteAll(): Promise<void> {
      await pool.query('DELETE FROM app_choices');
    },
  };
}
