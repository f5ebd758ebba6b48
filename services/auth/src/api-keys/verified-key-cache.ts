import type { ApiKeyScopes } from './api-key-input.ts';

/** What a verified key stands for. None of it changes during a key's life except revocation. */
export interface VerifiedKey {
  keyId: string;
  userId: string;
  scopes: ApiKeyScopes;
  /** Null: every set. */
  toolsets: readonly string[] | null;
  expiresAtMs: number | null;
}

interface Entry {
  key: VerifiedKey;
  /** The revocation version read before the key's row was read (see key-revocations.ts). */
  version: string;
  storedAtMs: number;
}

/**
 * Keys found live in PostgreSQL, by the HMAC of the secret (never the secret itself), so repeated
 * requests with one key skip the database read. An entry is only trusted under the revocation
 * version it was stored with; `maxAgeMs` bounds how long any entry lives in case a version change
 * were ever missed, and `maxEntries` bounds memory (oldest first out).
 */
export function createVerifiedKeyCache(options: { maxEntries?: number; maxAgeMs?: number } = {}) {
  const maxEntries = options.maxEntries ?? 10_000;
  const maxAgeMs = options.maxAgeMs ?? 60_000;
  const entries = new Map<string, Entry>();

  return {
    /** The entry for a key's HMAC, current or not: its key id is known even when its status is not. */
    peek(hashHex: string): Entry | undefined {
      return entries.get(hashHex);
    },
    /** Whether an entry may be trusted under the version just read. */
    isCurrent(entry: Entry, version: string | undefined): boolean {
      return version !== undefined && entry.version === version && Date.now() - entry.storedAtMs < maxAgeMs;
    },
    remember(hashHex: string, key: VerifiedKey, version: string): void {
      entries.delete(hashHex);
      if (entries.size >= maxEntries) {
        // A Map iterates in insertion order: the first entry is the oldest.
        const oldest = entries.keys().next().value;
        if (oldest !== undefined) entries.delete(oldest);
      }
      entries.set(hashHex, { key, version, storedAtMs: Date.now() });
    },
    forget(hashHex: string): void {
      entries.delete(hashHex);
    },
    /** Drops the entry of a revoked key (revocations are rare; a scan is fine). */
    forgetKey(keyId: string): void {
      for (const [hashHex, entry] of entries) if (entry.key.keyId === keyId) entries.delete(hashHex);
    },
    get size(): number {
      return entries.size;
    },
  };
}

export type VerifiedKeyCache = ReturnType<typeof createVerifiedKeyCache>;
