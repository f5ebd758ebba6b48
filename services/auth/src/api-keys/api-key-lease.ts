import type { AuditLog } from '../audit/index.ts';
import type { RateLimiter, RateLimitLease } from '../rate-limits/index.ts';
import type { BackgroundWrites } from './background-writes.ts';
import type { LastUsedRecorder } from './last-used-recorder.ts';

/**
 * The share of a key's limit that one lease is at least (LeaseApiKeyAllowance): a replica asks
 * for its API_KEY_LEASE_SIZE, and a key whose limit is large is leased more at a time — a
 * hundredth of its window, at most MAX_SCALED_API_KEY_LEASE — so that a replica serving such a key
 * at a high rate asks auth a few times a second rather than for every handful of requests (each
 * lease is a unary gRPC call, whose CPU cost would otherwise be paid per request).
 *
 * What this costs the limit's precision is bounded by the same share: a replica overshoots a
 * key's limit by at most one lease across a window boundary, and loses what it leased but did not
 * spend before the window ended — at most max(API_KEY_LEASE_SIZE, the share of the limit, capped
 * at MAX_SCALED_API_KEY_LEASE) per replica. For the default limit the scaled lease is smaller
 * than what replicas ask for, so their leases stay at what they ask for.
 */
export const API_KEY_LEASE_SHARE = 0.01;
/** The most one scaled lease grants (the MCP edge accepts a grant up to this). */
export const MAX_SCALED_API_KEY_LEASE = 10_000;

/** How many requests a lease asked for `requested` takes of a key limited by `rule`. */
export const apiKeyLeaseSize = (requested: number, rule: { points: number }): number =>
  Math.max(requested, Math.min(MAX_SCALED_API_KEY_LEASE, Math.floor(rule.points * API_KEY_LEASE_SHARE)));

/**
 * Takes requests of a key's rate-limit window for an MCP replica to spend itself
 * (LeaseApiKeyAllowance): what is left of the window, at most the lease's size — `requested`, or
 * more for a key whose limit is large (`apiKeyLeaseSize`). It counts; it does not judge the key
 * (the replica asks only for keys ResolveApiKeys resolved, and forgets them when the revocation
 * stream says so). A grant marks the key used, as a resolve does.
 */
export function createApiKeyLeases(deps: {
  rateLimiter: RateLimiter;
  lastUsed: Pick<LastUsedRecorder, 'mark'>;
  audit: AuditLog;
  background: BackgroundWrites;
}) {
  const { rateLimiter, lastUsed, audit, background } = deps;
  return {
    async leaseAllowance(keyId: string, requested: number): Promise<RateLimitLease> {
      const lease = await rateLimiter.lease(keyId, apiKeyLeaseSize(requested, rateLimiter.rule));
      if (lease.granted > 0) lastUsed.mark(keyId);
      if (lease.firstRefusal) {
        background.add(
          audit.record('rate_limit.hit', { details: { limit: rateLimiter.name, keyId } }),
          'audit',
        );
      }
      return lease;
    },
  };
}
