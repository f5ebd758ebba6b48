import { createHash } from 'node:crypto';
import { kindOfCallError, type TokenBrokerClient } from '@sheetgate/proto';
import type { Logger } from '@sheetgate/service-runtime';
import type { ApiKeyOutcome, ApiKeyResolver } from './broker-clients.ts';
import type { RevocationWatch } from './revocation-watch.ts';

const UNAVAILABLE_RETRY_AFTER_SECONDS = 5;
/**
 * The most one lease may grant. Auth grants what was asked (`leaseSize`), or more for a key whose
 * limit is large: a hundredth of the limit, at most 10,000 (auth's `apiKeyLeaseSize`), so that a
 * busy key costs auth a few calls a second rather than hundreds. A replica overshoots a key's
 * limit across a window boundary by at most one lease: max(leaseSize, 1% of the limit, 10,000 at
 * most).
 */
const MAX_GRANT = 10_000;
const MIN_LEASE_VALIDITY_MS = 1_000;
/** The most keys one replica holds; the oldest stored goes first. */
const DEFAULT_MAX_ENTRIES = 10_000;
/**
 * How long a held key is served before auth is asked about it again. The stream is what makes a
 * revocation immediate; this bounds what a revocation it could not carry costs — one auth could
 * not relay (its Redis down: RevokeApiKey answers UNAVAILABLE, "revoke it again") — at one resolve
 * per key per replica per minute.
 */
const DEFAULT_MAX_AGE_MS = 60_000;

/** What auth said of a key, kept by its SHA-256, and what this replica may still serve of its rate limit. */
interface Entry {
  hash: string;
  /** When auth said it (`performance.now()`). */
  storedAt: number;
  userId: string;
  scopes: readonly string[];
  keyId: string;
  expiresAtMs: number | null;
  /** The toolsets the key enables, null for every set. */
  toolsets: readonly string[] | null;
  /** Requests of the current lease left to serve. */
  allowance: number;
  /** When the lease's window ends (`performance.now()`); what is left of it is dropped then. */
  allowanceUntil: number;
  /** Until when auth said the window is spent (`performance.now()`): 429 without asking. */
  spentUntil: number;
  /** The lease request in flight, shared by every request that finds the allowance spent. */
  leasing: Promise<void> | undefined;
  /** Why the last lease request failed, for the requests that waited for it. */
  leaseFailure: ApiKeyOutcome | undefined;
}

/**
 * API keys served at the edge (docs/design.md §4, "API key"): what auth's ResolveApiKeys said of a
 * live key — its owner, scopes, toolsets, id and expiry — is kept by this replica, keyed by the SHA-256 of
 * the presented key (the key itself is held no longer than its request), and later requests with
 * it are answered without asking auth, while the revocation stream vouches for this replica:
 *
 * - an entry is dropped when the stream says its key was revoked (before the event is
 *   acknowledged, so the revocation returns only once it is gone here), and every entry when the
 *   stream opens again with a snapshot (what it missed meanwhile is unknown);
 * - while the stream cannot vouch (stale), auth is asked about a held key as about one not held
 *   (a refusal drops it), as access tokens are asked of auth then (revocation-check.ts): a key
 *   revoked meanwhile is refused at the next request, and auth unreachable is a 503;
 * - past its expiry an entry is dropped and the key asked about again (auth answers `expired`),
 *   and so is one held for `maxAgeMs` (a minute), bounding a revocation the stream could not carry;
 * - unknown, expired, revoked, rate-limited and throttled keys are never kept: they reach auth
 *   every time, so they keep counting toward its per-address limit.
 *
 * The per-key rate limit stays counted at auth: the request that resolved a key spent its own
 * point there, and later ones spend a lease (`LeaseApiKeyAllowance`, `leaseSize` requests at a
 * time, or what auth grants beyond for a key whose limit is large: a hundredth of it, at most
 * MAX_GRANT) taken when the last is spent, by one call however many requests are waiting for it. A
 * lease is good until the window it came from ends; a window auth says is spent is answered 429
 * with Retry-After until it ends, without asking again.
 */
/** How a request with an API key was served: see mcp-metrics.ts's `sheetgate_mcp_api_key_requests_total`. */
export type ApiKeyServed = 'lease' | 'auth' | 'limited';

export function edgeApiKeyResolver(deps: {
  /** Resolves what this replica does not hold (`brokerApiKeyResolver`). */
  resolver: ApiKeyResolver;
  broker: Pick<TokenBrokerClient, 'leaseApiKeyAllowance'>;
  revocations: Pick<RevocationWatch, 'isCurrent' | 'onEvent' | 'onResync'>;
  leaseSize: number;
  maxEntries?: number;
  /** How long a held key is served before auth is asked again (tests shrink it). */
  maxAgeMs?: number;
  logger?: Logger;
  /** Told how each request was served (the metrics). */
  onServed?: (served: ApiKeyServed) => void;
}): ApiKeyResolver & { readonly size: number } {
  const maxEntries = deps.maxEntries ?? DEFAULT_MAX_ENTRIES;
  const maxAgeMs = deps.maxAgeMs ?? DEFAULT_MAX_AGE_MS;
  const byHash = new Map<string, Entry>();
  const byKeyId = new Map<string, string>();
  /**
   * Changes with every revoked key and every snapshot: an answer from auth that crossed one of
   * them on its way may describe a key revoked since, so it serves its request but is not kept.
   */
  let epoch = 0;
  const now = () => performance.now();

  const forget = (entry: Entry) => {
    if (byHash.get(entry.hash) === entry) byHash.delete(entry.hash);
    if (byKeyId.get(entry.keyId) === entry.hash) byKeyId.delete(entry.keyId);
  };
  deps.revocations.onEvent((revocation) => {
    if (revocation.kind !== 'api_key') return;
    const { keyId } = revocation;
    epoch++;
    const hash = byKeyId.get(keyId);
    const entry = hash === undefined ? undefined : byHash.get(hash);
    if (entry) forget(entry);
    byKeyId.delete(keyId);
  });
  deps.revocations.onResync(() => {
    epoch++;
    byHash.clear();
    byKeyId.clear();
  });

  function remember(hash: string, outcome: Extract<ApiKeyOutcome, { ok: true }>): void {
    if (byHash.has(hash)) return;
    if (byHash.size >= maxEntries) {
      // A Map iterates in insertion order: the first entry is the oldest.
      const oldest = byHash.values().next().value;
      if (oldest) forget(oldest);
    }
    byHash.set(hash, {
      hash,
      storedAt: now(),
      userId: outcome.userId,
      scopes: outcome.scopes,
      keyId: outcome.keyId,
      expiresAtMs: outcome.expiresAtMs,
      toolsets: outcome.toolsets,
      allowance: 0,
      allowanceUntil: 0,
      spentUntil: 0,
      leasing: undefined,
      leaseFailure: undefined,
    });
    byKeyId.set(outcome.keyId, hash);
  }

  async function askAuth(apiKey: string, hash: string, clientAddress: string): Promise<ApiKeyOutcome> {
    const before = epoch;
    const outcome = await deps.resolver.resolve(apiKey, clientAddress);
    deps.onServed?.('auth');
    if (outcome.ok && epoch === before && !isExpired(outcome.expiresAtMs)) remember(hash, outcome);
    return outcome;
  }

  /**
   * A request for a key this replica does not hold (or no longer may serve) goes to auth. Auth may
   * find the key's window spent because, while this request was on its way, another one found the
   * key held and leased what was left of the window for this replica: that allowance serves this
   * request too (the window's requests are still counted once, at auth, as leased points).
   */
  async function resolveUnheld(apiKey: string, hash: string, clientAddress: string): Promise<ApiKeyOutcome> {
    const outcome = await askAuth(apiKey, hash, clientAddress);
    if (!outcome.ok && outcome.reason === 'rate_limited' && byHash.has(hash))
      return serve(hash, apiKey, clientAddress);
    return outcome;
  }

  function lease(entry: Entry): Promise<void> {
    entry.leasing ??= deps.broker
      .leaseApiKeyAllowance({ keyId: entry.keyId, requested: deps.leaseSize })
      .then(
        (answer) => {
          const at = now();
          entry.leaseFailure = undefined;
          entry.allowance = Math.max(0, Math.min(answer.granted, MAX_GRANT));
          // At least a second, so a grant at a window's very end (or from an auth that does not
          // say) cannot send the replica round a loop of leases it may not spend.
          entry.allowanceUntil = at + Math.max(MIN_LEASE_VALIDITY_MS, answer.validForMs);
          if (entry.allowance === 0) entry.spentUntil = at + Math.max(1, answer.retryAfterSeconds) * 1000;
        },
        (error: unknown) => {
          if (kindOfCallError(error) === 'unauthenticated') throw error;
          deps.logger?.warn({ err: error }, 'could not lease an API key allowance');
          entry.leaseFailure = {
            ok: false,
            reason: 'unavailable',
            retryAfterSeconds: UNAVAILABLE_RETRY_AFTER_SECONDS,
          };
        },
      )
      .finally(() => {
        entry.leasing = undefined;
      });
    return entry.leasing;
  }

  /** Serves a held key from its lease: a request of the allowance, 429, or the lease's failure. */
  async function serve(hash: string, apiKey: string, clientAddress: string): Promise<ApiKeyOutcome> {
    for (;;) {
      const entry = byHash.get(hash);
      // Dropped meanwhile (revoked, a snapshot): auth says what it is now.
      if (!entry) return askAuth(apiKey, hash, clientAddress);
      const at = now();
      if (entry.spentUntil > at) {
        deps.onServed?.('limited');
        return {
          ok: false,
          reason: 'rate_limited',
          retryAfterSeconds: Math.ceil((entry.spentUntil - at) / 1000),
        };
      }
      if (entry.allowance > 0 && entry.allowanceUntil > at) {
        entry.allowance--;
        deps.onServed?.('lease');
        return {
          ok: true,
          userId: entry.userId,
          scopes: entry.scopes,
          keyId: entry.keyId,
          expiresAtMs: entry.expiresAtMs,
          toolsets: entry.toolsets,
        };
      }
      entry.allowance = 0;
      await lease(entry);
      if (entry.leaseFailure) return entry.leaseFailure;
    }
  }

  return {
    async resolve(apiKey, clientAddress) {
      const hash = createHash('sha256').update(apiKey).digest('base64url');
      const held = byHash.get(hash);
      if (!held) return resolveUnheld(apiKey, hash, clientAddress);
      if (isExpired(held.expiresAtMs) || now() - held.storedAt >= maxAgeMs) {
        forget(held);
        return resolveUnheld(apiKey, hash, clientAddress);
      }
      if (!deps.revocations.isCurrent()) {
        // What the stream said cannot be vouched for: auth judges the key now, its request spending
        // its own point there, as for a key not held (found over the limit, it is served from what
        // this replica leased: auth has just found the key live). A refusal of the key drops it.
        const outcome = await resolveUnheld(apiKey, hash, clientAddress);
        if (!outcome.ok && KEY_REFUSALS.has(outcome.reason)) forget(held);
        return outcome;
      }
      return serve(hash, apiKey, clientAddress);
    },
    get size() {
      return byHash.size;
    },
  };
}

/** Auth's answers that the key itself is refused (not its rate, not auth's availability). */
const KEY_REFUSALS: ReadonlySet<string> = new Set(['unknown', 'expired', 'revoked']);

const isExpired = (expiresAtMs: number | null) => expiresAtMs !== null && expiresAtMs <= Date.now();
