import type { LastingRevocation, TokenFacts } from '@sheetgate/proto';
import type { Queryable } from '../db/pool.ts';

interface Row {
  kind: LastingRevocation['kind'];
  subject: string;
  revokedAt: Date;
  coversUntil: Date;
}

function subjectOf(revocation: LastingRevocation): string {
  switch (revocation.kind) {
    case 'grant':
      return revocation.grantId;
    case 'person':
      return revocation.userId;
    case 'signing_key':
      return revocation.keyId;
    case 'provider_reset':
      return '';
  }
}

function revokedAtOf(revocation: LastingRevocation): number {
  if (revocation.kind === 'person') return revocation.revokedAt;
  if (revocation.kind === 'provider_reset') return revocation.resetAt;
  return Date.now();
}

function fromRow(row: Row): LastingRevocation {
  const coversUntil = row.coversUntil.getTime();
  switch (row.kind) {
    case 'grant':
      return { kind: 'grant', grantId: row.subject, coversUntil };
    case 'person':
      return { kind: 'person', userId: row.subject, revokedAt: row.revokedAt.getTime(), coversUntil };
    case 'signing_key':
      return { kind: 'signing_key', keyId: row.subject, coversUntil };
    case 'provider_reset':
      return { kind: 'provider_reset', resetAt: row.revokedAt.getTime(), coversUntil };
  }
}

/** SQL for `edge_revocations`: what the MCP replicas are told on connecting. */
export function createEdgeRevocationQueries(db: Queryable) {
  return {
    /** Records a revocation; one recorded again keeps the later instant and the later expiry. */
    async record(revocation: LastingRevocation): Promise<void> {
      await db.query(
        `INSERT INTO edge_revocations (kind, subject, revoked_at, covers_until)
         VALUES ($1, $2, $3, $4)
         ON CONFLICT (kind, subject) DO UPDATE
           SET revoked_at = GREATEST(edge_revocations.revoked_at, EXCLUDED.revoked_at),
               covers_until = GREATEST(edge_revocations.covers_until, EXCLUDED.covers_until)`,
        [
          revocation.kind,
          subjectOf(revocation),
          new Date(revokedAtOf(revocation)),
          new Date(revocation.coversUntil),
        ],
      );
    },

    /** Every revocation that may still refuse an unexpired access token. */
    async lasting(): Promise<LastingRevocation[]> {
      const { rows } = await db.query<Row>(
        `SELECT kind, subject, revoked_at AS "revokedAt", covers_until AS "coversUntil"
           FROM edge_revocations WHERE covers_until > now()`,
      );
      return rows.map(fromRow);
    },

    /**
     * The revocations that may refuse any of `tokens` (their grants, persons and signing keys, and
     * the provider resets), still covering an unexpired access token.
     */
    async covering(tokens: readonly TokenFacts[]): Promise<LastingRevocation[]> {
      const grantIds = tokens.flatMap((token) => (token.grantId === undefined ? [] : [token.grantId]));
      const { rows } = await db.query<Row>(
        `SELECT kind, subject, revoked_at AS "revokedAt", covers_until AS "coversUntil"
           FROM edge_revocations
          WHERE covers_until > now()
            AND ((kind = 'grant' AND subject = ANY($1::text[]))
              OR (kind = 'person' AND subject = ANY($2::text[]))
              OR (kind = 'signing_key' AND subject = ANY($3::text[]))
              OR kind = 'provider_reset')`,
        [grantIds, tokens.map((token) => token.userId), tokens.map((token) => token.kid)],
      );
      return rows.map(fromRow);
    },

    /** Deletes the rows no unexpired access token is left for; how many. */
    async sweep(): Promise<number> {
      const { rowCount } = await db.query('DELETE FROM edge_revocations WHERE covers_until <= now()');
      return rowCount ?? 0;
    },
  };
}

export type EdgeRevocationQueries = ReturnType<typeof createEdgeRevocationQueries>;
