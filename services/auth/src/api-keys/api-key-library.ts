import { API_KEY_NAMESPACE, type ApiKeyResolution, mayBeApiKey } from '@sheetgate/proto';
import { addressLimitKey, isUuid, type Logger } from '@sheetgate/service-runtime';
import type { AuditLog } from '../audit/index.ts';
import { StoreUnavailableError } from '../cache/store-unavailable.ts';
import type { DatabasePool } from '../db/pool.ts';
import type { RateLimitDecision, RateLimiter, RateLimitLease } from '../rate-limits/index.ts';
import { generateApiKey, isWellFormedApiKey } from './api-key-format.ts';
import { createApiKeyHasher } from './api-key-hash.ts';
import { ApiKeyInputError, validExpiry, validName, validScopes, validToolsets } from './api-key-input.ts';
import { type ApiKeyCredential, type ApiKeyRecord, createApiKeyQueries } from './api-key-queries.ts';
import type { KeyRevocations } from './key-revocations.ts';
import { type ApiKeyStatus, admission, judgeKey, type KeyVerdict, keyStatus } from './key-verdict.ts';
import { createLastUsedRecorder } from './last-used-recorder.ts';
import { createVerifiedKeyCache, type VerifiedKey } from './verified-key-cache.ts';

export type { ApiKeyResolution, ApiKeyStatus };

/**
 * Keys imported from a retired provider, which may have any shape outside `sg_` and keep that
 * provider's hash until their first use. Built in provider-migration/ (`createImportedApiKeys`).
 */
export interface ImportedApiKeys {
  /** Whether any key was ever imported, so a value of another shape may be one. */
  mayExist(): Promise<boolean>;
  /**
   * Gives keys still carrying their legacy hash Sheetgate's HMAC (`secretHash`), all in one
   * statement, and answers the rows it upgraded.
   */
  upgrade(keys: ReadonlyArray<{ presented: string; secretHash: string }>): Promise<ApiKeyCredential[]>;
}

export interface ApiKeyLibraryOptions {
  pool: DatabasePool;
  /** API_KEY_PEPPER. */
  pepper: string;
  /** The per-key limit (`createRateLimits(…).apiKey`). */
  rateLimiter: RateLimiter;
  /** The per-address limit on unknown keys (`createRateLimits(…).apiKeyFailures`). */
  addressFailureLimiter: RateLimiter;
  /** How revocations reach every replica (`createKeyRevocations`); closed by `close()`. */
  revocations: KeyRevocations;
  audit: AuditLog;
  /** Keys imported from a retired provider (`createImportedApiKeys` in provider-migration/). */
  importedKeys: ImportedApiKeys;
  logger?: Logger;
  /** Told of every read of presented keys from PostgreSQL (the `api_key_lookups` metric). */
  onLookup?: () => void;
  /**
   * Told how many keys of a batch were refused unread because their address had spent its
   * failures (those the limiter refuses itself are counted where its refusals are).
   */
  onThrottledUnread?: (keys: number) => void;
  /** How often last-used times are written; 5 s by default. */
  lastUsedFlushIntervalMs?: number;
  /** Bounds of the verified-key cache (tests shrink them). */
  cache?: { maxEntries?: number; maxAgeMs?: number };
}

/**
 * The share of a key's limit that one lease is at least (LeaseApiKeyAllowance): a replica asks
 * for its API_KEY_LEASE_SIZE (50 by default), and a key whose limit is large is leased more at a
 * time — a hundredth of its window, at most MAX_SCALED_API_KEY_LEASE — so that a replica serving
 * thousands of requests a second with it asks auth a few times a second, not hundreds (each
 * unary gRPC call costs auth ~0.5 ms of CPU; at 50 a lease that was 16 µs per request).
 *
 * What this costs the limit's precision is bounded by the same share: a replica overshoots a
 * key's limit by at most one lease across a window boundary, and loses what it leased but did not
 * spend before the window ended — at most max(API_KEY_LEASE_SIZE, 1% of the limit, capped at
 * MAX_SCALED_API_KEY_LEASE) per replica. The default limit (600 a minute) has a scaled lease of 6,
 * so its replicas' leases stay at what they ask for.
 */
export const API_KEY_LEASE_SHARE = 0.01;
/** The most one scaled lease grants (the MCP edge accepts a grant up to this). */
export const MAX_SCALED_API_KEY_LEASE = 10_000;

/** How many requests a lease asked for `requested` takes of a key limited by `rule`. */
export const apiKeyLeaseSize = (requested: number, rule: { points: number }): number =>
  Math.max(requested, Math.min(MAX_SCALED_API_KEY_LEASE, Math.floor(rule.points * API_KEY_LEASE_SHARE)));

// A revoked or expired key that a forgotten script keeps sending would otherwise add an audit row
// per request; one row per key per replica in this interval tells the story.
const REFUSAL_AUDIT_INTERVAL_MS = 10 * 60_000;
const MAX_REFUSALS_REMEMBERED = 10_000;
const UNKNOWN: ApiKeyResolution = { ok: false, reason: 'unknown' };
/** A value that may be an imported key: the shape the MCP service lets through, outside `sg_`. */
const mayBeImportedKey = (value: unknown): value is string =>
  mayBeApiKey(value) && !value.startsWith(API_KEY_NAMESPACE);

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
 * API keys: created on the dashboard (the secret is returned once), listed and revoked by their
 * owner, and resolved by the token broker on every API-key request. Only a keyed hash is stored.
 *
 * Resolving trusts a verified key from an in-memory cache only under the current revocation
 * version (key-revocations.ts), read on every resolve: a command of its own, sent together with
 * the cached keys' rate-limit count (two commands on two connections, awaited together, so the
 * resolve waits for the slower one rather than for both in turn); a revocation changes that
 * version before it answers, so it applies to the very next request on every replica. Keys not
 * cached (or cached under an older version) cost one indexed PostgreSQL read per batch.
 */
export function createApiKeyLibrary(options: ApiKeyLibraryOptions) {
  const queries = createApiKeyQueries(options.pool);
  const hasher = createApiKeyHasher(options.pepper);
  const cache = createVerifiedKeyCache(options.cache);
  const revocations = options.revocations;
  const lastUsed = createLastUsedRecorder(queries, options.lastUsedFlushIntervalMs ?? 5_000, options.logger);
  const background = new Set<Promise<void>>();
  const refusalsAudited = new Map<string, number>();
  let closing: Promise<void> | undefined;
  revocations.onRevoked((keyId) => cache.forgetKey(keyId));

  /** Fire-and-forget writes off the resolve path; tracked so `flush` and `close` can wait for them. */
  const inBackground = (work: Promise<void>, what: string) => {
    const tracked = work
      .catch((error: unknown) => options.logger?.warn({ err: error }, `could not ${what}`))
      .finally(() => background.delete(tracked));
    background.add(tracked);
  };

  const auditRefusal = (keyId: string, userId: string, reason: 'expired' | 'revoked') => {
    const now = Date.now();
    if (now - (refusalsAudited.get(keyId) ?? 0) < REFUSAL_AUDIT_INTERVAL_MS) return;
    if (refusalsAudited.size >= MAX_REFUSALS_REMEMBERED) refusalsAudited.clear();
    refusalsAudited.set(keyId, now);
    inBackground(options.audit.record('api_key.refused', { userId, details: { keyId, reason } }), 'audit');
  };

  /**
   * The keys of another shape that the lookup by HMAC did not find: those still carrying their
   * legacy hash are upgraded, all in one statement, and their rows answered. A key upgraded by a
   * concurrent request between this batch's lookup and its upgrade is no longer found by its
   * legacy hash, so what the upgrade did not find is looked up once more by HMAC (garbage of
   * another shape costs these two statements per batch, whatever its size).
   */
  async function upgradeImportedKeys(candidates: Candidate[]): Promise<ApiKeyCredential[]> {
    const missing = new Map(candidates.map((candidate) => [candidate.hashHex, candidate.imported!]));
    if (missing.size === 0) return [];
    const upgraded = await options.importedKeys.upgrade(
      [...missing].map(([secretHash, presented]) => ({ presented, secretHash })),
    );
    for (const row of upgraded) missing.delete(row.secretHash);
    if (missing.size === 0) return upgraded;
    return [...upgraded, ...(await queries.findCredentialsByHashes([...missing.keys()]))];
  }

  /** A live key's answer from its rate-limit decision, auditing the first refusal of a window. */
  const admit = (key: VerifiedKey, decision: RateLimitDecision): ApiKeyResolution => {
    if (!decision.allowed && decision.firstRefusal) {
      inBackground(
        options.audit.record('rate_limit.hit', {
          userId: key.userId,
          details: { limit: options.rateLimiter.name, keyId: key.keyId },
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
      inBackground(
        options.audit.record('rate_limit.hit', {
          details: { limit: options.addressFailureLimiter.name, ip: address },
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
    const importsPossible = presented.some(mayBeImportedKey) && (await options.importedKeys.mayExist());
    presented.forEach((value, index) => {
      const ours = isWellFormedApiKey(value);
      if (!ours && !(importsPossible && mayBeImportedKey(value))) {
        results[index] = UNKNOWN;
        return;
      }
      const digest = hasher.digest(value as string);
      candidates.push({
        index,
        digest,
        hashHex: digest.toString('hex'),
        ...(ours ? {} : { imported: value }),
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
      options.rateLimiter.consumeMany(countedEarly),
      strangersFrom.size > 0 ? options.addressFailureLimiter.spent(strangersFrom) : undefined,
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
      options.onLookup?.();
      for (const row of await queries.findCredentialsByHashes(hashes)) rows.set(row.secretHash, row);
      const notFound = unverified.filter((candidate) => candidate.imported && !rows.has(candidate.hashHex));
      for (const row of await upgradeImportedKeys(notFound)) rows.set(row.secretHash, row);
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

    if (throttledUnread > 0) options.onThrottledUnread?.(throttledUnread);

    // Keys read from PostgreSQL for the first time are counted now, and unknown keys against their
    // addresses (a second round trip, once: one store operation per distinct key and address).
    const late = live.filter((entry) => !entry.early);
    const [lateDecisions, failureDecisions] = await Promise.all([
      options.rateLimiter.consumeMany(late.map((entry) => entry.key.keyId)),
      options.addressFailureLimiter.consumeMany(failed.map((candidate) => candidate.address!)),
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
    /** Creates a key; `secret` is returned this once and is not recoverable afterwards. */
    async create(input: {
      userId: string;
      name: string;
      scopes: readonly string[];
      /** Undefined: every set. */
      toolsets?: readonly string[] | undefined;
      expiresAt?: Date | null;
    }): Promise<{ key: ApiKeyRecord; secret: string }> {
      if (typeof input.userId !== 'string' || !isUuid(input.userId)) {
        throw new ApiKeyInputError('userId', 'Unknown user.');
      }
      const name = validName(input.name);
      const scopes = validScopes(input.scopes);
      const toolsets = validToolsets(input.toolsets);
      const expiresAt = validExpiry(input.expiresAt, new Date());
      const { secret, displayPrefix } = generateApiKey();
      const key = await queries.insert({
        userId: input.userId,
        name,
        displayPrefix,
        secretHash: hasher.hash(secret),
        scopes,
        toolsets,
        expiresAt,
      });
      await options.audit.record('api_key.created', {
        userId: key.userId,
        details: {
          keyId: key.id,
          name,
          displayPrefix,
          scopes,
          toolsets,
          expiresAt: expiresAt?.toISOString() ?? null,
        },
      });
      return { key, secret };
    },

    /** The user's keys, newest first, with their status; never a hash or a secret. */
    async list(userId: string): Promise<Array<ApiKeyRecord & { status: ApiKeyStatus }>> {
      if (!isUuid(userId)) return [];
      const nowMs = Date.now();
      return (await queries.listByUser(userId)).map((key) => ({ ...key, status: keyStatus(key, nowMs) }));
    },

    /**
     * Revokes one of the user's keys. Idempotent; true when the user has (or had) that key, false
     * for someone else's key or no key at all, so an id of another user's key reveals nothing.
     * Answers only once every replica will refuse the key on its next resolve: the revocation is
     * committed, then announced (which changes the revocation version). When the announcement
     * fails this rejects with a StoreUnavailableError (the dashboard says "try again"), and
     * revoking again (already revoked) announces again.
     */
    async revoke(userId: string, keyId: string): Promise<boolean> {
      if (!isUuid(userId) || !isUuid(keyId)) return false;
      const outcome = await queries.revoke(userId, keyId);
      if (outcome === 'not_found') return false;
      cache.forgetKey(keyId);
      // The audit event and the announcement both follow the commit, and neither failure may cost
      // the other: a retry finds the key already revoked and audits nothing, and an unannounced
      // revocation leaves other replicas trusting their cached entry.
      const [audited, announced] = await Promise.allSettled([
        outcome === 'revoked'
          ? options.audit.record('api_key.revoked', { userId, details: { keyId } })
          : Promise.resolve(),
        revocations.announce(keyId),
      ]);
      if (announced.status === 'rejected') {
        throw new StoreUnavailableError(
          'the key is revoked, but other replicas could not be told yet; revoke it again',
          announced.reason,
        );
      }
      if (audited.status === 'rejected') throw audited.reason;
      return true;
    },

    /**
     * The user and scopes behind a presented key, or why it is refused. Malformed input is
     * `unknown` before any hashing or I/O.
     */
    async resolve(presented: unknown, clientAddress?: string): Promise<ApiKeyResolution> {
      return (await resolveMany([presented], clientAddress ? [clientAddress] : []))[0]!;
    },

    resolveMany,

    /**
     * Takes requests of a key's rate-limit window for an MCP replica to spend itself
     * (LeaseApiKeyAllowance): what is left of the window, at most the lease's size — `requested`,
     * or more for a key whose limit is large (`apiKeyLeaseSize`). It counts; it does not judge the
     * key (the replica asks only for keys ResolveApiKeys resolved, and forgets them when the
     * revocation stream says so). A grant marks the key used, as a resolve does.
     */
    async leaseAllowance(keyId: string, requested: number): Promise<RateLimitLease> {
      const lease = await options.rateLimiter.lease(
        keyId,
        apiKeyLeaseSize(requested, options.rateLimiter.rule),
      );
      if (lease.granted > 0) lastUsed.mark(keyId);
      if (lease.firstRefusal) {
        inBackground(
          options.audit.record('rate_limit.hit', {
            details: { limit: options.rateLimiter.name, keyId },
          }),
          'audit',
        );
      }
      return lease;
    },

    /** Writes pending last-used times and background audit events now (tests, shutdown). */
    async flush(): Promise<void> {
      await Promise.all([lastUsed.flush(), ...background]);
    },

    /** Stops the batch timer after writing what is pending, and the revocation channel. */
    async close(): Promise<void> {
      closing ??= (async () => {
        await lastUsed.close();
        await Promise.all(background);
        await revocations.close();
      })();
      await closing;
    },

    /** How many verified keys are cached (for tests of the cache's bounds). */
    get cachedKeys(): number {
      return cache.size;
    },
  };
}

export type ApiKeyLibrary = ReturnType<typeof createApiKeyLibrary>;
