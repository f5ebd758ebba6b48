import type { ApiKeyResolution } from '@sheetgate/proto';
import { addressLimitKey } from '@sheetgate/service-runtime';
import type { AuditLog } from '../audit/index.ts';
import type { RateLimitDecision, RateLimiter } from '../rate-limits/index.ts';
import { isWellFormedApiKey } from './api-key-format.ts';
import type { ApiKeyHasher } from './api-key-hash.ts';
import type { ApiKeyCredential, ApiKeyQueries } from './api-key-queries.ts';
import type { BackgroundWrites } from './background-writes.ts';
import type { KeyRevocations } from './key-revocations.ts';
import { admission, judgeKey, type KeyVerdict } from './key-verdict.ts';
import type { LastUsedRecorder } from './last-used-recorder.ts';
import type { VerifiedKey, VerifiedKeyCache } from './verified-key-cache.ts';

/**
 * Keys imported from a retired provider, which may have any shape outside `sg_` and keep that
 * provider's hash until their first use: the resolver's one seam to the provider migration
 * (`createImportedApiKeys` in provider-migration/), which alone knows how they were hashed.
 */
export interface ImportedApiKeys {
  /** Whether a presented value has a shape an imported key may have (never Sheetgate's own). */
  mayBeOne(value: unknown): value is string;
  /** Whether any key was ever imported, so a value of another shape may be one. */
  mayExist(): Promise<boolean>;
  /**
   * The credentials of presented keys of another shape that the lookup by HMAC did not find;
   * those still carrying their legacy hash get Sheetgate's HMAC (`secretHash`) on the way.
   */
  find(keys: ReadonlyArray<{ presented: string; secretHash: string }>): Promise<ApiKeyCredential[]>;
}

// A revoked or expired key that a forgotten script keeps sending would otherwise add an audit row
// per request; one row per key per replica in this interval tells the story.
const REFUSAL_AUDIT_INTERVAL_MS = 10 * 60_000;
const MAX_REFUSALS_REMEMBERED = 10_000;
const UNKNOWN: ApiKeyResolution = { ok: false, reason: 'unknown' };

/** A presented key of the right shape, with its HMAC computed once. */
interface Candidate {
  index: number;
  digest: Buffer;
  hashHex: string;
  /** A key of another shape, which may be one imported from a retired provider (migrate:import). */
  imported?: string;
  /**
   * What the presenting client's address counts under (`addressLimitKey`), for a key the cache has
   * never verified; undefined for a cached key or when the caller gave no address.
   */
  address?: string;
}

/**
 * The hot path of every API-key request: the user, scopes and toolsets behind presented keys, or
 * why each is refused, with its rate-limit point spent.
 *
 * A verified key is trusted from the in-memory cache only under the current revocation version
 * (key-revocations.ts), read on every resolve: a command of its own, sent together with the cached
 * keys' rate-limit count (two commands on two connections, awaited together, so the resolve waits
 * for the slower one rather than for both in turn); a revocation changes that version before it
 * answers, so it applies to the very next request on every replica. Keys not cached (or cached
 * under an older version) cost one indexed PostgreSQL read per batch.
 */
export function createApiKeyResolver(deps: {
  queries: Pick<ApiKeyQueries, 'findCredentialsByHashes'>;
  hasher: ApiKeyHasher;
  cache: VerifiedKeyCache;
  revocations: Pick<KeyRevocations, 'version'>;
  /** The per-key limit (`createRateLimits(…).apiKey`). */
  rateLimiter: RateLimiter;
  /** The per-address limit on unknown keys (`createRateLimits(…).apiKeyFailures`). */
  addressFailureLimiter: RateLimiter;
  audit: AuditLog;
  importedKeys: ImportedApiKeys;
  lastUsed: Pick<LastUsedRecorder, 'mark'>;
  background: BackgroundWrites;
  /** Told of every read of presented keys from PostgreSQL (the `api_key_lookups` metric). */
  onLookup?: (() => void) | undefined;
  /** Told how many keys of a batch were refused unread because their address had spent its failures. */
  onThrottledUnread?: ((keys: number) => void) | undefined;
}) {
  const { queries, hasher, cache, revocations, audit, importedKeys, lastUsed, background } = deps;
  const refusalsAudited = new Map<string, number>();

  const auditRefusal = (keyId: string, userId: string, reason: 'expired' | 'revoked') => {
    const now = Date.now();
    if (now - (refusalsAudited.get(keyId) ?? 0) < REFUSAL_AUDIT_INTERVAL_MS) return;
    if (refusalsAudited.size >= MAX_REFUSALS_REMEMBERED) refusalsAudited.clear();
    refusalsAudited.set(keyId, now);
    background.add(audit.record('api_key.refused', { userId, details: { keyId, reason } }), 'audit');
  };

  /** A live key's answer from its rate-limit decision, auditing the first refusal of a window. */
  const admit = (key: VerifiedKey, decision: RateLimitDecision): ApiKeyResolution => {
    if (!decision.allowed && decision.firstRefusal) {
      background.add(
        audit.record('rate_limit.hit', {
          userId: key.userId,
          details: { limit: deps.rateLimiter.name, keyId: key.keyId },
        }),
        'audit',
      );
    }
    if (decision.allowed) lastUsed.mark(key.keyId);
    return admission(key, decision);
  };

  /** Keeps the cache in step with a verdict from PostgreSQL, and audits a refusal it found. */
  const followUp = (hashHex: string, verdict: KeyVerdict, version: string | undefined) => {
    if (verdict.outcome === 'live') {
      if (version !== undefined) cache.remember(hashHex, verdict.key, version);
      return;
    }
    if (verdict.outcome === 'refused') auditRefusal(verdict.keyId, verdict.userId, verdict.reason);
    cache.forget(hashHex);
  };

  /** A refusal of a key from an address past the failure bound, auditing the first of a window. */
  const throttle = (address: string, decision: RateLimitDecision & { allowed: false }): ApiKeyResolution => {
    if (decision.firstRefusal) {
      background.add(
        audit.record('rate_limit.hit', {
          details: { limit: deps.addressFailureLimiter.name, ip: address },
        }),
        'audit',
      );
    }
    return { ok: false, reason: 'throttled', retryAfterSeconds: decision.retryAfterSeconds };
  };

  /**
   * Resolves a batch of presented keys, each exactly as `resolve` would at this moment: each is
   * checked against the revocation version and the store, and each live one consumes its own
   * rate-limit point. Keys the cache knows start counting while the version is read, so a cached
   * key costs the wait of one Redis round trip (two commands in flight together) and nothing from
   * PostgreSQL.
   *
   * `clientAddresses[i]` is the address that presented `presented[i]` (none: no per-address
   * limit). Each unknown key counts a failure against its address; from an address past the bound,
   * a key the cache has never verified is refused as `throttled` without being looked up, while
   * known keys still resolve, so a guesser spends neither PostgreSQL reads nor anyone else's access.
   */
  async function resolveMany(
    presented: readonly unknown[],
    clientAddresses: readonly string[] = [],
  ): Promise<ApiKeyResolution[]> {
    const results: Array<ApiKeyResolution | Promise<ApiKeyResolution>> = [];
    const candidates: Candidate[] = [];
    const importsPossible = presented.some(importedKeys.mayBeOne) && (await importedKeys.mayExist());
    presented.forEach((value, index) => {
      const ours = isWellFormedApiKey(value);
      if (!ours && !(importsPossible && importedKeys.mayBeOne(value))) {
        results[index] = UNKNOWN;
        return;
      }
      const digest = hasher.digest(value as string);
      candidates.push({
        index,
        digest,
        hashHex: digest.toString('hex'),
        ...(ours ? {} : { imported: value as string }),
      });
    });

    const cached = candidates.map((candidate) => cache.peek(candidate.hashHex));
    const countedEarly = cached.flatMap((entry) => (entry ? [entry.key.keyId] : []));
    const strangersFrom = new Set<string>();
    candidates.forEach((candidate, position) => {
      const address = clientAddresses[candidate.index];
      if (cached[position] || !address) return;
      candidate.address = addressLimitKey(address);
      strangersFrom.add(candidate.address);
    });
    const [version, earlyDecisions, spentAddresses] = await Promise.all([
      candidates.length > 0 ? revocations.version() : undefined,
      deps.rateLimiter.consumeMany(countedEarly),
      strangersFrom.size > 0 ? deps.addressFailureLimiter.spent(strangersFrom) : undefined,
    ]);
    const throttledFor = (candidate: Candidate) =>
      candidate.address === undefined ? undefined : spentAddresses?.get(candidate.address);

    // Decided once: an entry that ages out while PostgreSQL answers for the others must not end up
    // neither vouched for nor looked up.
    const vouched = cached.map((entry) => entry !== undefined && cache.isCurrent(entry, version));
    // Whatever the cache cannot vouch for under this version is read from PostgreSQL, in one query.
    const unverified = candidates.filter(
      (candidate, position) => !vouched[position] && throttledFor(candidate) === undefined,
    );
    const rows = new Map<string, ApiKeyCredential>();
    if (unverified.length > 0) {
      const hashes = [...new Set(unverified.map((candidate) => candidate.hashHex))];
      deps.onLookup?.();
      for (const row of await queries.findCredentialsByHashes(hashes)) rows.set(row.secretHash, row);
      const notFound = new Map<string, string>();
      for (const candidate of unverified) {
        if (candidate.imported !== undefined && !rows.has(candidate.hashHex))
          notFound.set(candidate.hashHex, candidate.imported);
      }
      if (notFound.size > 0) {
        const imported = await importedKeys.find(
          [...notFound].map(([secretHash, presented]) => ({ presented, secretHash })),
        );
        for (const row of imported) rows.set(row.secretHash, row);
      }
    }

    const live: Array<{ candidate: Candidate; key: VerifiedKey; early?: RateLimitDecision }> = [];
    const failed: Candidate[] = [];
    const nowMs = Date.now();
    let early = 0;
    let throttledUnread = 0;
    candidates.forEach((candidate, position) => {
      const entry = cached[position];
      const earlyDecision = entry ? earlyDecisions[early++] : undefined;
      const throttledSeconds = throttledFor(candidate);
      if (throttledSeconds !== undefined) {
        results[candidate.index] = { ok: false, reason: 'throttled', retryAfterSeconds: throttledSeconds };
        throttledUnread++;
        return;
      }
      let verdict: KeyVerdict;
      if (entry && vouched[position]) {
        verdict = judgeKey({ source: 'cache', key: entry.key }, nowMs);
      } else {
        const row = rows.get(candidate.hashHex);
        const matches = row !== undefined && hasher.matches(candidate.digest, row.secretHash);
        verdict = judgeKey({ source: 'store', row, matches }, nowMs);
        followUp(candidate.hashHex, verdict, version);
      }
      if (verdict.outcome === 'unknown') {
        results[candidate.index] = UNKNOWN;
        if (candidate.address !== undefined) failed.push(candidate);
      } else if (verdict.outcome === 'refused')
        results[candidate.index] = { ok: false, reason: verdict.reason };
      else live.push({ candidate, key: verdict.key, ...(earlyDecision ? { early: earlyDecision } : {}) });
    });

    if (throttledUnread > 0) deps.onThrottledUnread?.(throttledUnread);

    // Keys read from PostgreSQL for the first time are counted now, and unknown keys against their
    // addresses (a second round trip, once: one store operation per distinct key and address).
    const late = live.filter((entry) => !entry.early);
    const [lateDecisions, failureDecisions] = await Promise.all([
      deps.rateLimiter.consumeMany(late.map((entry) => entry.key.keyId)),
      deps.addressFailureLimiter.consumeMany(failed.map((candidate) => candidate.address!)),
    ]);
    late.forEach((entry, position) => {
      entry.early = lateDecisions[position];
    });
    failed.forEach((candidate, position) => {
      const decision = failureDecisions[position]!;
      if (!decision.allowed) results[candidate.index] = throttle(candidate.address!, decision);
    });
    for (const entry of live) results[entry.candidate.index] = admit(entry.key, entry.early!);
    return Promise.all(results);
  }

  return {
    resolveMany,

    /**
     * The user and scopes behind a presented key, or why it is refused. Malformed input is
     * `unknown` before any hashing or I/O.
     */
    async resolve(presented: unknown, clientAddress?: string): Promise<ApiKeyResolution> {
      return (await resolveMany([presented], clientAddress ? [clientAddress] : []))[0]!;
    },
  };
}

export type ApiKeyResolver = ReturnType<typeof createApiKeyResolver>;
