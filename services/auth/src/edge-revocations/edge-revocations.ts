import { randomUUID } from 'node:crypto';
import { createRevokedSet, isLasting, type Revocation, type TokenFacts } from '@sheetgate/proto';
import type { Logger } from '@sheetgate/service-runtime';
import { StoreUnavailableError } from '../cache/store-unavailable.ts';
import type { EdgeRevocationQueries } from './edge-revocation-queries.ts';
import type { RevocationBus } from './revocation-bus.ts';
import type { RevocationStreams, StreamTiming } from './revocation-streams.ts';

/**
 * Past the streams' own bound (and its margin), how long an announcer waits for another relay's
 * report: the time for Redis to carry the announcement there and the report back, milliseconds.
 */
const RELAY_MARGIN_MS = 500;
/**
 * Added to an access token's lifetime for how long an entry is kept: the MCP service accepts a
 * token 5 s past `exp`, and auth replicas' clocks may differ a little.
 */
const EXPIRY_MARGIN_MS = 60_000;

/**
 * Revocation reaching the edge (docs/design.md §4): what a revocation on this auth replica does
 * so that every MCP replica refuses what it revoked on the very next request. `announce` records
 * it (so a replica connecting later, even after auth restarts, gets it in its snapshot), relays it
 * to every auth replica's streams, and resolves once every relay reported its MCP replicas
 * acknowledged it or can no longer trust themselves — within the streams' staleness bound and a
 * margin, whatever happens to any replica.
 */
export function createEdgeRevocations(deps: {
  queries: EdgeRevocationQueries;
  bus: RevocationBus;
  streams: RevocationStreams;
  timing: StreamTiming;
  accessTokenTtlSeconds: number;
  logger: Logger;
}) {
  const { bus, streams, logger } = deps;
  /** Announcements of this replica still waiting for relays' reports, by id. */
  const waiting = new Map<string, { relays: Set<string>; done: () => void }>();

  // This replica relays every announcement, its own included, to its MCP streams.
  bus.onAnnouncement((announcement) => {
    streams
      .deliver(announcement.revocation)
      .then(() => bus.reportDelivered(announcement.id))
      .catch((error: unknown) =>
        logger.warn(
          { err: error },
          'could not report a delivered revocation (the announcer waits out its bound)',
        ),
      );
  });
  bus.onDelivered((announcementId, relayId) => {
    const entry = waiting.get(announcementId);
    if (!entry) return;
    entry.relays.delete(relayId);
    if (entry.relays.size === 0) entry.done();
  });

  const coversUntil = (from: number) => from + deps.accessTokenTtlSeconds * 1000 + EXPIRY_MARGIN_MS;

  async function announce(revocation: Revocation): Promise<void> {
    if (isLasting(revocation)) await deps.queries.record(revocation);
    const id = randomUUID();
    const relays = new Set(
      await bus.liveRelays().catch((error: unknown) => {
        throw new StoreUnavailableError('the revocation cannot be relayed to the MCP replicas now', error);
      }),
    );
    const delivered = new Promise<void>((resolve) => {
      const bound = setTimeout(
        () => {
          const missing = waiting.get(id)?.relays.size ?? 0;
          if (missing > 0)
            logger.warn({ relays: missing }, 'auth replicas did not report a revocation delivered in time');
          done();
        },
        deps.timing.staleAfterMs + RELAY_MARGIN_MS * 2,
      );
      function done() {
        clearTimeout(bound);
        waiting.delete(id);
        resolve();
      }
      waiting.set(id, { relays, done });
    });
    try {
      await bus.publish({ id, revocation });
    } catch (error) {
      waiting.get(id)?.done();
      throw new StoreUnavailableError('the revocation cannot be relayed to the MCP replicas now', error);
    }
    await delivered;
  }

  return {
    announce,
    /** An OAuth grant revoked: its access tokens are refused until the last of them expires. */
    grantRevoked: (grantId: string) =>
      announce({ kind: 'grant', grantId, coversUntil: coversUntil(Date.now()) }),
    /** Every grant of a person revoked now: their tokens issued until now are refused. */
    personRevoked(userId: string) {
      const revokedAt = Date.now();
      return announce({ kind: 'person', userId, revokedAt, coversUntil: coversUntil(revokedAt) });
    },
    /**
     * An API key revoked (its row is revoked already). Not recorded for snapshots: a replica drops
     * every key it holds on a snapshot.
     */
    apiKeyRevoked: (keyId: string) => announce({ kind: 'api_key', keyId }),
    /**
     * The person's Google connection changed (disconnected, reconnected, or refused by Google): MCP
     * replicas forget the Google access token they kept for them. Not recorded: a replica that
     * connects later forgets every Google token it kept when its snapshot arrives.
     */
    googleConnectionChanged: (userId: string) => announce({ kind: 'google_connection', userId }),
    /** What a replica connecting now must know. */
    snapshot: () => deps.queries.lasting(),
    /**
     * Whether what is recorded refuses each token, by the rule the replicas apply to the stream
     * (`CheckRevocations`, for a replica whose stream lags). Recorded before it is relayed, a
     * revocation that has returned is found here.
     */
    async refuses(tokens: readonly TokenFacts[]): Promise<boolean[]> {
      const revoked = createRevokedSet();
      revoked.replace(await deps.queries.covering(tokens));
      return tokens.map((token) => revoked.refuses(token));
    },
    /** Drops entries no unexpired access token is left for. */
    sweep: () => deps.queries.sweep(),
    close: () => bus.close(),
  };
}

export type EdgeRevocations = ReturnType<typeof createEdgeRevocations>;
