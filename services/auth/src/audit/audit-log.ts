import { isUuid, redactValue } from '@sheetgate/service-runtime';
import type { DatabasePool } from '../db/pool.ts';
import { type AuditEvent, createAuditQueries } from './audit-queries.ts';

/** The security events Sheetgate records. Adding one is a deliberate change to this list. */
export const auditEventKinds = [
  'api_key.created',
  'api_key.revoked',
  'api_key.refused',
  'api_key.choices_changed',
  'app.choices_changed',
  'call_approval.answered',
  'rate_limit.hit',
  'sign_in',
  'sign_out',
  'grant.revoked',
  'refresh_token.reused',
  'enterprise_grant.issued',
  'enterprise_grant.refused',
  'google.reauth_required',
  'provider.imported',
  'oauth.reset',
] as const;

export type AuditEventKind = (typeof auditEventKinds)[number];

export interface AuditEntry {
  /** The user the event is about, when there is one; anything but a UUID is dropped. */
  userId?: string | null;
  /** Ids, names, IP addresses, reasons: never a secret (credential-shaped values are redacted). */
  details?: Record<string, unknown>;
}

// An audit row is for a person reading an incident; a caller that passes a request body by
// mistake must not be able to grow the table without bound.
const MAX_DETAILS_BYTES = 4_096;

/**
 * The audit log of security events (sign-in, key created/revoked/refused, grants revoked, refresh
 * token reuse, rate-limit hits) in `audit_events`. Details go through the same redaction as the
 * logs, as a second line of defence behind callers that never pass secrets.
 */
export function createAuditLog(pool: DatabasePool) {
  const queries = createAuditQueries(pool);
  return {
    async record(kind: AuditEventKind, entry: AuditEntry = {}): Promise<void> {
      const userId = entry.userId && isUuid(entry.userId) ? entry.userId : null;
      let details = redactValue(entry.details ?? {}) as Record<string, unknown>;
      if (JSON.stringify(details).length > MAX_DETAILS_BYTES) details = { truncated: true };
      await queries.insert(kind, userId, details);
    },

    /** Newest events first, for the dashboard and for tests. */
    recent(filter: { userId?: string; kind?: AuditEventKind; limit?: number } = {}): Promise<AuditEvent[]> {
      if (filter.userId !== undefined && !isUuid(filter.userId)) return Promise.resolve([]);
      return queries.recent({ ...filter, limit: Math.min(Math.max(filter.limit ?? 50, 1), 500) });
    },
  };
}

export type AuditLog = ReturnType<typeof createAuditLog>;
export type { AuditEvent };
