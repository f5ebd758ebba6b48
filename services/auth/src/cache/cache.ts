/**
 * The small cache interface auth keeps its losable state behind (docs/design.md §5): Redis when
 * `REDIS_URL` is set, an in-process map otherwise (one auth replica only).
 */
export interface Cache {
  get(key: string): Promise<string | undefined>;
  /** Stores `value` for `ttlSeconds`. */
  set(key: string, value: string, ttlSeconds: number): Promise<void>;
  /** Stores `value` only if `key` is absent; true when it was stored (locks, replay detection). */
  setIfAbsent(key: string, value: string, ttlSeconds: number): Promise<boolean>;
  delete(key: string): Promise<void>;
  /** Resolves when the backing store answers; used by /readyz. */
  ping(): Promise<void>;
  close(): Promise<void>;
}
