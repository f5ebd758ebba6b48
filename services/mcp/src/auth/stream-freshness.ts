/**
 * Whether this replica may trust what the revocation stream told it (the rule of
 * proto/sheetgate/v1/revocations.proto): it sends numbered probes and auth echoes the newest it
 * received in everything it sends; the state is current until `staleAfterMs` after the replica
 * *sent* the newest probe it has seen echoed. Counted from the sending, so a message held up on
 * the way (a frozen connection let go) cannot make an old state look current: once auth sent an
 * event this replica has not received, no echo it holds is of a probe sent after that moment.
 * Times are this process's monotonic milliseconds (`performance.now()`).
 */
const MAX_UNECHOED_PROBES = 1_000;

export function createStreamFreshness() {
  /** Probes sent and not yet echoed or superseded: number → when sent. */
  const sent = new Map<number, number>();
  let nextProbe = 1;
  let currentUntil = Number.NEGATIVE_INFINITY;
  let staleAfterMs = 0;

  return {
    /** A new probe to send now, remembered with its moment. */
    probe(now: number): number {
      const probe = nextProbe++;
      sent.set(probe, now);
      // While nothing is echoed (a frozen stream) probes pile up; the oldest could not make the
      // state current any more than a newer one.
      if (sent.size > MAX_UNECHOED_PROBES) sent.delete(sent.keys().next().value!);
      return probe;
    },
    /**
     * A message echoing `probe` arrived; with `staleAfter` from the snapshot once known. Echoes of
     * unknown or older probes change nothing.
     */
    echoed(probe: number, staleAfter = staleAfterMs): void {
      staleAfterMs = staleAfter;
      const at = sent.get(probe);
      if (at === undefined) return;
      for (const earlier of sent.keys()) if (earlier <= probe) sent.delete(earlier);
      currentUntil = Math.max(currentUntil, at + staleAfterMs);
    },
    /** Nothing known may be trusted any more (the stream broke): current again only after a new snapshot. */
    lost(): void {
      sent.clear();
      currentUntil = Number.NEGATIVE_INFINITY;
      staleAfterMs = 0;
    },
    isCurrent(now: number): boolean {
      return now < currentUntil;
    },
    /** How long until the state stops being current (0 when it is not). */
    remainingMs(now: number): number {
      return Math.max(0, currentUntil - now);
    },
  };
}

export type StreamFreshness = ReturnType<typeof createStreamFreshness>;
