import type { Logger } from '@sheetgate/service-runtime';
import type { DatabasePool } from '../db/pool.ts';
import { createEdgeRevocationQueries } from './edge-revocation-queries.ts';
import { createEdgeRevocations } from './edge-revocations.ts';
import { createRevocationBus } from './revocation-bus.ts';
import { createRevocationStreams, streamTiming } from './revocation-streams.ts';

export type { EdgeRevocations } from './edge-revocations.ts';

/**
 * Revocation at the edge, assembled (docs/design.md §4.6): the table, the relay between auth
 * replicas (Redis when configured), the MCP replicas' streams and the library that announces.
 */
export async function startEdgeRevocations(options: {
  pool: DatabasePool;
  redisUrl: string | undefined;
  /** The bus's namespace in Redis (`revocationBusNames`); its historical names when not given. */
  redisKeyPrefix?: string | undefined;
  heartbeatIntervalMs: number;
  /** How long a replica trusts its stream (REVOCATION_STALE_AFTER_MS); 4 heartbeats when not given. */
  staleAfterMs?: number | undefined;
  accessTokenTtlSeconds: number;
  logger: Logger;
}) {
  const { logger } = options;
  const queries = createEdgeRevocationQueries(options.pool);
  const timing = streamTiming(options.heartbeatIntervalMs, options.staleAfterMs);
  const bus = await createRevocationBus({
    redisUrl: options.redisUrl,
    keyPrefix: options.redisKeyPrefix,
    logger,
  });
  const streams = createRevocationStreams({
    snapshot: () => queries.lasting(),
    hearing: () => bus.hearing(),
    timing,
    logger,
  });
  // A relay that may have missed a revocation must not let its MCP replicas think they are current:
  // their streams end, and they stay stale (503) until a snapshot taken after it hears again.
  bus.onHearingChange((hearing) => {
    if (hearing) return;
    logger.warn('revocations cannot be relayed (Redis): ending the MCP replicas’ streams');
    streams.close();
  });
  const library = createEdgeRevocations({
    queries,
    bus,
    streams,
    timing,
    accessTokenTtlSeconds: options.accessTokenTtlSeconds,
    logger,
  });
  return {
    /** What revocations call: `grantRevoked`, `apiKeyRevoked`, `personRevoked`; `sweep`. */
    library,
    /** RevocationService's handler. */
    watchRevocations: streams.watch,
    /** How many MCP replicas stream from this auth replica. */
    connected: () => streams.connected,
    /** Ends every stream (shutting down: the replicas reconnect to another auth replica). */
    endStreams: () => streams.close(),
    close: () => library.close(),
  };
}
