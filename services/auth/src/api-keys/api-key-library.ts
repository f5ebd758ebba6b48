import type { Logger } from '@sheetgate/service-runtime';
import type { AuditLog } from '../audit/index.ts';
import type { DatabasePool } from '../db/pool.ts';
import type { RateLimiter } from '../rate-limits/index.ts';
import { generateApiKey, isWellFormedApiKey } from './api-key-format.ts';
import { createApiKeyHasher } from './api-key-hash.ts';
import {
  ApiKeyInputError,
  type ApiKeyScopes,
  UUID,
  validExpiry,
  validName,
  validScopes,
} from './api-key-input.ts';
import { type ApiKeyRecord, createApiKeyQueries } from './api-key-queries.ts';
import { createLastUsedRecorder } from './last-used-recorder.ts';

export type ApiKeyResolution =
  | { ok: true; userId: string; scopes: ApiKeyScopes; keyId: string }
  | { ok: false; reason: 'unknown' | 'expired' | 'revoked' }
  | { ok: false; reason: 'rate_limited'; retryAfterSeconds: number };

export type ApiKeyStatus = 'active' | 'expired' | 'revoked';

export interface ApiKeyLibraryOptions {
  pool: DatabasePool;
  /** API_KEY_PEPPER. */
  pepper: string;
  /** The per-key limit (`createRateLimits(…).apiKey`). */
  rateLimiter: RateLimiter;
  audit: AuditLog;
  logger?: Logger;
  /** How often last-used times are written; 5 s by default. */
  lastUsedFlushIntervalMs?: number;
}

// A revoked or expired key that a forgotten script keeps sending would otherwise add an audit row
// per request; one row per key per replica in this interval tells the story.
const REFUSAL_AUDIT_INTERVAL_MS = 10 * 60_000;
const MAX_REFUSALS_REMEMBERED = 10_000;

/**
 * API keys: created on the dashboard (the secret is returned once), listed and revoked by their
 * owner, and resolved by the token broker on every API-key request. Only a keyed hash is stored.
 *
 * `resolve` reads the database on every call and caches nothing, so a revocation committed by any
 * replica is seen by the very next request on every replica; the read is one unique-index lookup.
 */
export function createApiKeyLibrary(options: ApiKeyLibraryOptions) {
  const queries = createApiKeyQueries(options.pool);
  const hasher = createApiKeyHasher(options.pepper);
  const lastUsed = createLastUsedRecorder(queries, options.lastUsedFlushIntervalMs ?? 5_000, options.logger);
  const background = new Set<Promise<void>>();
  const refusalsAudited = new Map<string, number>();

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

  return {
    /** Creates a key; `secret` is returned this once and is not recoverable afterwards. */
    async create(input: {
      userId: string;
      name: string;
      scopes: readonly string[];
      expiresAt?: Date | null;
    }): Promise<{ key: ApiKeyRecord; secret: string }> {
      if (typeof input.userId !== 'string' || !UUID.test(input.userId)) {
        throw new ApiKeyInputError('userId', 'Unknown user.');
      }
      const name = validName(input.name);
      const scopes = validScopes(input.scopes);
      const expiresAt = validExpiry(input.expiresAt, new Date());
      const { secret, displayPrefix } = generateApiKey();
      const key = await queries.insert({
        userId: input.userId,
        name,
        displayPrefix,
        secretHash: hasher.hash(secret),
        scopes,
        expiresAt,
      });
      await options.audit.record('api_key.created', {
        userId: key.userId,
        details: { keyId: key.id, name, displayPrefix, scopes, expiresAt: expiresAt?.toISOString() ?? null },
      });
      return { key, secret };
    },

    /** The user's keys, newest first, with their status; never a hash or a secret. */
    async list(userId: string): Promise<Array<ApiKeyRecord & { status: ApiKeyStatus }>> {
      if (!UUID.test(userId)) return [];
      const now = Date.now();
      return (await queries.listByUser(userId)).map((key) => ({
        ...key,
        status: key.revokedAt
          ? 'revoked'
          : key.expiresAt && key.expiresAt.getTime() <= now
            ? 'expired'
            : 'active',
      }));
    },

    /**
     * Revokes one of the user's keys. Idempotent; true when the user has (or had) that key, false
     * for someone else's key or no key at all, so an id of another user's key reveals nothing.
     */
    async revoke(userId: string, keyId: string): Promise<boolean> {
      if (!UUID.test(userId) || !UUID.test(keyId)) return false;
      const outcome = await queries.revoke(userId, keyId);
      if (outcome === 'revoked')
        await options.audit.record('api_key.revoked', { userId, details: { keyId } });
      return outcome !== 'not_found';
    },

    /**
     * The user and scopes behind a presented key, or why it is refused. Malformed input is
     * `unknown` before any hashing or I/O. A well-formed key costs one indexed read and one
     * rate-limit count; last-used and audit writes happen in the background.
     */
    async resolve(presented: unknown): Promise<ApiKeyResolution> {
      if (!isWellFormedApiKey(presented)) return { ok: false, reason: 'unknown' };
      const credential = await queries.findCredentialByHash(hasher.hash(presented));
      // The lookup is by an HMAC that an attacker cannot compute, so it leaks nothing by its
      // timing; the constant-time comparison guards the final decision all the same.
      if (!credential || !hasher.matches(presented, credential.secretHash))
        return { ok: false, reason: 'unknown' };
      if (credential.revokedAt) {
        auditRefusal(credential.id, credential.userId, 'revoked');
        return { ok: false, reason: 'revoked' };
      }
      if (credential.expiresAt && credential.expiresAt.getTime() <= Date.now()) {
        auditRefusal(credential.id, credential.userId, 'expired');
        return { ok: false, reason: 'expired' };
      }
      const decision = await options.rateLimiter.consume(credential.id);
      if (!decision.allowed) {
        if (decision.firstRefusal) {
          inBackground(
            options.audit.record('rate_limit.hit', {
              userId: credential.userId,
              details: { limit: options.rateLimiter.name, keyId: credential.id },
            }),
            'audit',
          );
        }
        return { ok: false, reason: 'rate_limited', retryAfterSeconds: decision.retryAfterSeconds };
      }
      lastUsed.mark(credential.id);
      return { ok: true, userId: credential.userId, scopes: credential.scopes, keyId: credential.id };
    },

    /** Writes pending last-used times and background audit events now (tests, shutdown). */
    async flush(): Promise<void> {
      await Promise.all([lastUsed.flush(), ...background]);
    },

    /** Stops the batch timer after writing what is pending. */
    async close(): Promise<void> {
      await lastUsed.close();
      await Promise.all(background);
    },
  };
}

export type ApiKeyLibrary = ReturnType<typeof createApiKeyLibrary>;
