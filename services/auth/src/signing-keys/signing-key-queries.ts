import type { JWK } from 'jose';
import type { Queryable } from '../db/pool.ts';

export type SigningKeyState = 'next' | 'current' | 'retired';

/** A stored key as its row has it: the private JWK still sealed. */
export interface SealedSigningKeyRow {
  kid: string;
  alg: string;
  private_jwk_encrypted: string;
  state: SigningKeyState;
}

/** SQL for the `signing_keys` table. `db` may be a transaction's client. */
export function createSigningKeyQueries(db: Queryable) {
  return {
    async insert(key: {
      kid: string;
      alg: string;
      publicJwk: JWK;
      sealedPrivateJwk: string;
      state: SigningKeyState;
    }): Promise<void> {
      await db.query(
        `INSERT INTO signing_keys (kid, alg, public_jwk, private_jwk_encrypted, state, activated_at)
         VALUES ($1, $2, $3, $4, $5, CASE WHEN $5 = 'current' THEN now() END)`,
        [key.kid, key.alg, key.publicJwk, key.sealedPrivateJwk, key.state],
      );
    },

    /** Every key: the current one first, then the next, then the retired, newest first. */
    async listSealed(): Promise<SealedSigningKeyRow[]> {
      const { rows } = await db.query<SealedSigningKeyRow>(
        `SELECT kid, alg, private_jwk_encrypted, state FROM signing_keys
         ORDER BY CASE state WHEN 'current' THEN 0 WHEN 'next' THEN 1 ELSE 2 END, created_at DESC`,
      );
      return rows;
    },

    async deleteAll(): Promise<void> {
      await db.query('DELETE FROM signing_keys');
    },

    async deleteNext(): Promise<void> {
      await db.query("DELETE FROM signing_keys WHERE state = 'next'");
    },

    async hasNext(): Promise<boolean> {
      const { rowCount } = await db.query("SELECT 1 FROM signing_keys WHERE state = 'next'");
      return (rowCount ?? 0) > 0;
    },

    /** The current key retires and the next one signs (run both in one transaction). */
    async promoteNext(): Promise<void> {
      await db.query("UPDATE signing_keys SET state = 'retired', retired_at = now() WHERE state = 'current'");
      await db.query("UPDATE signing_keys SET state = 'current', activated_at = now() WHERE state = 'next'");
    },

    /** Keys sealed under another key of the ring than `currentKeyId`. */
    async sealedUnderOtherKeys(currentKeyId: string): Promise<Array<{ kid: string; sealed: string }>> {
      const { rows } = await db.query<{ kid: string; sealed: string }>(
        `SELECT kid, private_jwk_encrypted AS sealed FROM signing_keys
         WHERE split_part(private_jwk_encrypted, '.', 2) <> $1`,
        [currentKeyId],
      );
      return rows;
    },

    /** Replaces a sealed private key only if it is unchanged; true when it was. */
    async replaceSealed(kid: string, sealed: string, resealed: string): Promise<boolean> {
      const { rowCount } = await db.query(
        'UPDATE signing_keys SET private_jwk_encrypted = $3 WHERE kid = $1 AND private_jwk_encrypted = $2',
        [kid, sealed, resealed],
      );
      return (rowCount ?? 0) > 0;
    },

    async deleteRetiredBefore(olderThanSeconds: number): Promise<number> {
      const { rowCount } = await db.query(
        "DELETE FROM signing_keys WHERE state = 'retired' AND retired_at < now() - make_interval(secs => $1)",
        [olderThanSeconds],
      );
      return rowCount ?? 0;
    },
  };
}
