import type { Cache } from '../cache/cache.ts';

/**
 * How much longer than the state's own lifetime its record is kept. Each MCP replica judges a
 * state's expiry by its own clock; a replica whose clock runs behind the one that claimed it would
 * still take the state for valid after a record kept exactly that long had gone.
 */
export const CLAIM_CLOCK_MARGIN_MS = 60_000;

/** The store key of a claimed state, beside the cache's other entries. */
const claimKey = (stateId: string) => `request-state:${stateId}`;

/**
 * The record of used MCP `requestState`s (docs/design.md §15): a state id is claimed once, by a
 * conditional write that only the first claim wins (Redis `SET NX PX`, shared by every auth
 * replica, or the in-process cache when auth runs alone), kept until the state has expired
 * everywhere. Losing the record (Redis flushed) would let a confirmed retry run again within its
 * five minutes, never anything the person did not confirm: the state still binds the credential,
 * the call and what was shown.
 */
export function createRequestStateClaims(cache: Cache, options: { clockMarginMs?: number } = {}) {
  const marginMs = options.clockMarginMs ?? CLAIM_CLOCK_MARGIN_MS;
  return {
    /** True the first time `stateId` is claimed; false while an earlier claim's record lasts. */
    claim(stateId: string, validForMs: number): Promise<boolean> {
      return cache.setIfAbsent(claimKey(stateId), '1', (validForMs + marginMs) / 1000);
    },
  };
}

export type RequestStateClaims = ReturnType<typeof createRequestStateClaims>;
