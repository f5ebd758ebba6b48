import type { Logger } from '@sheetgate/service-runtime';

/**
 * Writes the resolve path does not wait for (audit events): a failure is logged, never answered,
 * and each write is tracked so `flush` and `close` can wait for what is still in flight.
 */
export function createBackgroundWrites(logger?: Logger) {
  const inFlight = new Set<Promise<void>>();
  return {
    add(work: Promise<void>, what: string): void {
      const tracked = work
        .catch((error: unknown) => logger?.warn({ err: error }, `could not ${what}`))
        .finally(() => inFlight.delete(tracked));
      inFlight.add(tracked);
    },
    /** Resolves once every write started so far has ended. */
    async settled(): Promise<void> {
      await Promise.all(inFlight);
    },
  };
}

export type BackgroundWrites = ReturnType<typeof createBackgroundWrites>;
