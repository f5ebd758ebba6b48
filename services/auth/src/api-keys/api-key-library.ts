import type { ApiKeyResolution } from '@sheetgate/proto';
import type { Logger } from '@sheetgate/service-runtime';
import type { AuditLog } from '../audit/index.ts';
import type { DatabasePool } from '../db/pool.ts';
import type { RateLimiter } from '../rate-limits/index.ts';
import { createApiKeyHasher } from './api-key-hash.ts';
import { createApiKeyLeases } from './api-key-lease.ts';
import { createApiKeyLifecycle } from './api-key-lifecycle.ts';
import { createApiKeyQueries } from './api-key-queries.ts';
import { createApiKeyResolver, type ImportedApiKeys } from './api-key-resolver.ts';
import { createBackgroundWrites } from './background-writes.ts';
import type { KeyRevocations } from './key-revocations.ts';
import type { ApiKeyStatus } from './key-verdict.ts';
import { createLastUsedRecorder } from './last-used-recorder.ts';
import { createVerifiedKeyCache } from './verified-key-cache.ts';

export type { ApiKeyResolution, ApiKeyStatus, ImportedApiKeys };

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
 * API keys, assembled from their parts over one verified-key cache, one last-used recorder and
 * one revocation channel: the owner's lifecycle (api-key-lifecycle.ts: create, list, revoke), the
 * resolve path the token broker runs on every API-key request (api-key-resolver.ts), and the
 * leases of a key's rate-limit window an MCP replica spends itself (api-key-lease.ts).
 */
export function createApiKeyLibrary(options: ApiKeyLibraryOptions) {
  const queries = createApiKeyQueries(options.pool);
  const hasher = createApiKeyHasher(options.pepper);
  const cache = createVerifiedKeyCache(options.cache);
  const { revocations, audit } = options;
  const lastUsed = createLastUsedRecorder(queries, options.lastUsedFlushIntervalMs ?? 5_000, options.logger);
  const background = createBackgroundWrites(options.logger);
  let closing: Promise<void> | undefined;
  revocations.onRevoked((keyId) => cache.forgetKey(keyId));

  return {
    ...createApiKeyLifecycle({ queries, hasher, audit, cache, revocations }),
    ...createApiKeyResolver({
      queries,
      hasher,
      cache,
      revocations,
      rateLimiter: options.rateLimiter,
      addressFailureLimiter: options.addressFailureLimiter,
      audit,
      importedKeys: options.importedKeys,
      lastUsed,
      background,
      onLookup: options.onLookup,
      onThrottledUnread: options.onThrottledUnread,
    }),
    ...createApiKeyLeases({ rateLimiter: options.rateLimiter, lastUsed, audit, background }),

    /** Writes pending last-used times and background audit events now (tests, shutdown). */
    async flush(): Promise<void> {
      await Promise.all([lastUsed.flush(), background.settled()]);
    },

    /** Stops the batch timer after writing what is pending, and the revocation channel. */
    async close(): Promise<void> {
      closing ??= (async () => {
        await lastUsed.close();
        await background.settled();
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
