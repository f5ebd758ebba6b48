import type { Logger } from '@sheetgate/service-runtime';
import type { ApiKeyQueries } from './api-key-queries.ts';

/**
 * Batches "this key was used" so the resolve path never waits for a write: `mark` adds the key id
 * to a set in memory, and the set is written in one UPDATE every `intervalMs` and on `flush`/`close`.
 * A crash loses at most one interval of last-used times, which only the dashboard shows.
 */
export function createLastUsedRecorder(queries: ApiKeyQueries, intervalMs: number, logger?: Logger) {
  let pending = new Set<string>();
  let inFlight: Promise<void> = Promise.resolve();

  const flush = (): Promise<void> => {
    inFlight = inFlight.then(async () => {
      if (pending.size === 0) return;
      const batch = pending;
      pending = new Set();
      try {
        await queries.touchLastUsed([...batch], new Date());
      } catch (error) {
        // Keep the ids for the next attempt rather than losing them to a transient error.
        for (const id of batch) pending.add(id);
        logger?.warn({ err: error, keys: batch.size }, 'could not record API-key last use');
      }
    });
    return inFlight;
  };

  const timer = setInterval(() => void flush(), intervalMs);
  timer.unref();

  return {
    mark(keyId: string): void {
      pending.add(keyId);
    },
    flush,
    async close(): Promise<void> {
      clearInterval(timer);
      await flush();
    },
  };
}

export type LastUsedRecorder = ReturnType<typeof createLastUsedRecorder>;
