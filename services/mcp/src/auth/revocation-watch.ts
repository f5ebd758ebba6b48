import {
  createRevocationServiceClient,
  createRevokedSet,
  fromRevocationEvent,
  fromRevocationSnapshot,
  kindOfCallError,
  type Revocation,
  type RevocationServiceClient,
  type TokenFacts,
  type WatchRevocationsRequest,
  type WatchRevocationsResponse,
} from '@sheetgate/proto';
import type { Logger } from '@sheetgate/service-runtime';
import { createStreamFreshness } from './stream-freshness.ts';

/** Probes before the snapshot says the interval (auth's REVOCATION_HEARTBEAT_MS default). */
const INITIAL_PROBE_INTERVAL_MS = 250;
/** Reconnection back-off after a broken stream: from this, doubling… */
const FIRST_RETRY_MS = 100;
/** …up to this. */
const MAX_RETRY_MS = 1_000;
/** How often entries no token is left for are dropped. */
const PRUNE_INTERVAL_MS = 30_000;

// grpc-js's own reconnection waits up to 2 minutes between attempts by default; a replica that
// cannot vouch for its revocations asks auth of every credential meanwhile, so it tries again
// within a second.
const CHANNEL_OPTIONS = {
  'grpc.initial_reconnect_backoff_ms': 100,
  'grpc.max_reconnect_backoff_ms': 1_000,
  'grpc.enable_retries': 0,
  'grpc.keepalive_time_ms': 10_000,
  'grpc.keepalive_timeout_ms': 5_000,
};

type Stream = ReturnType<RevocationServiceClient['watchRevocations']>;

/**
 * Told of every event once the revoked set has it, before it is acknowledged: what a listener
 * drops synchronously is gone when auth learns the replica applied it. One that throws has the
 * stream reopened (unacknowledged), so every listener starts again from the next snapshot.
 */
export type RevocationListener = (revocation: Revocation) => void;
/**
 * Told when a snapshot arrives (the stream opened or reopened): events may have been missed, so
 * everything a listener kept on the stream's word must be dropped. Should not throw (one that
 * does has the stream reopened, and the replica answers 503 until a snapshot goes through).
 */
export type ResyncListener = () => void;

/**
 * The MCP replica's end of auth's revocation stream (proto/sheetgate/v1/revocations.proto): holds
 * it open (reopening it when it breaks), keeps what it says in a revoked set, acknowledges each
 * event once applied, and judges whether what it knows is current. What a request may trust of it
 * is revocation-check.ts's to say (tokens) and api-key-edge.ts's (held keys).
 */
export function watchRevocations(options: { address: string; serviceToken: string; logger: Logger }) {
  const { logger } = options;
  const client = createRevocationServiceClient({
    address: options.address,
    serviceToken: options.serviceToken,
    channelOptions: CHANNEL_OPTIONS,
  });
  const revoked = createRevokedSet();
  const freshness = createStreamFreshness();
  let stream: Stream | undefined;
  let prober: NodeJS.Timeout | undefined;
  let retry: NodeJS.Timeout | undefined;
  let retryMs = FIRST_RETRY_MS;
  let closed = false;
  /** Whether a snapshot ever arrived: before it, auth not answering yet is the start-up order. */
  let everOpened = false;
  /** Whether this loss (or the wait for auth at start) was said. */
  let lostLogged = false;
  /** Caches kept on the stream's word (api-key-edge.ts, edge-google-tokens.ts): told of every event, before it is acknowledged… */
  const eventListeners: RevocationListener[] = [];
  /** …and of every snapshot, after which what was missed is unknown. */
  const resyncListeners: ResyncListener[] = [];

  const now = () => performance.now();

  function connect() {
    retry = undefined;
    if (closed) return;
    const current = client.watchRevocations();
    stream = current;
    let opened = false;
    const send = (message: Partial<WatchRevocationsRequest>) =>
      current.write({ probe: 0, acknowledged: 0, ...message });
    const probe = () => send({ probe: freshness.probe(now()) });
    const probeEvery = (intervalMs: number) => {
      clearInterval(prober);
      prober = setInterval(probe, intervalMs);
      prober.unref();
    };

    current.on('data', (message: WatchRevocationsResponse) => {
      if (message.snapshot) {
        const snapshot = fromRevocationSnapshot(message.snapshot);
        if (!snapshot) return broken('a snapshot without its timing');
        revoked.replace(snapshot.revocations);
        if (!told(resyncListeners, (listener) => listener())) return;
        opened = true;
        retryMs = FIRST_RETRY_MS;
        probeEvery(snapshot.heartbeatIntervalMs);
        freshness.echoed(message.probeEcho, snapshot.staleAfterMs);
        if (lostLogged) logger.info(everOpened ? 'revocation stream open again' : 'revocation stream open');
        everOpened = true;
        lostLogged = false;
      } else if (!opened) {
        return broken('a message before the snapshot');
      } else if (message.event) {
        const event = fromRevocationEvent(message.event);
        if (!event) return broken('an event naming no revocation');
        revoked.apply(event.revocation);
        if (!told(eventListeners, (listener) => listener(event.revocation))) return;
        send({ acknowledged: event.sequence });
        freshness.echoed(message.probeEcho);
      } else {
        freshness.echoed(message.probeEcho);
      }
    });
    current.on('error', (error: Error) => lost(current, error));
    current.on('end', () => lost(current));

    /**
     * Runs the listeners; when one throws, what it kept cannot be vouched for: the stream is
     * reopened unacknowledged, and the next snapshot has every listener start again.
     */
    function told<Listener>(listeners: Listener[], tell: (listener: Listener) => void): boolean {
      try {
        for (const listener of listeners) tell(listener);
        return true;
      } catch (error) {
        logger.error({ err: error }, 'a revocation listener failed; reopening the stream');
        current.cancel();
        lost(current);
        return false;
      }
    }
    function broken(what: string) {
      logger.warn({ what }, 'the revocation stream sent something malformed; reconnecting');
      current.cancel();
      lost(current);
    }
    probe();
    probeEvery(INITIAL_PROBE_INTERVAL_MS);
  }

  function lost(which: Stream, error?: Error) {
    if (stream !== which) return;
    stream = undefined;
    clearInterval(prober);
    // Events sent while it was down are not known: trust nothing until the next snapshot.
    freshness.lost();
    if (closed) return;
    if (!lostLogged) {
      lostLogged = true;
      const kind = kindOfCallError(error);
      // mcp starting before auth listens (`pnpm start` starts them together) is not a fault; a
      // wrong credential or a stream broken once it was up is. Once per loss, not per retry.
      if (!everOpened && kind === 'unavailable') logger.info('waiting for auth (revocation stream)');
      else
        logger.warn(
          { reason: error?.message ?? 'auth ended the stream', kind },
          'revocation stream lost; credentials are checked with auth until it is back',
        );
    }
    logger.debug({ inMs: retryMs }, 'revocation stream: trying again');
    retry = setTimeout(connect, retryMs);
    retry.unref();
    retryMs = Math.min(retryMs * 2, MAX_RETRY_MS);
  }

  const pruner = setInterval(() => revoked.prune(Date.now()), PRUNE_INTERVAL_MS);
  pruner.unref();
  connect();

  return {
    /**
     * Whether a revocation the stream told of refuses the token. A refusal holds whether or not
     * the stream is current (what it revoked stays revoked); "no" is worth only what `isCurrent` says.
     */
    knownRevoked: (token: TokenFacts): boolean => revoked.refuses(token),
    /**
     * Whether what it knows is current now: its "no" above, and caches kept on the stream's word,
     * are trusted only while it is (and the metrics' gauge).
     */
    isCurrent: () => freshness.isCurrent(now()),
    /** How many revocations it holds. */
    entries: () => revoked.size,
    /** Every event, as it is applied (see RevocationListener); for caches kept on the stream's word. */
    onEvent(listener: RevocationListener): void {
      eventListeners.push(listener);
    },
    /** Every snapshot, first included (see ResyncListener). */
    onResync(listener: ResyncListener): void {
      resyncListeners.push(listener);
    },
    close() {
      closed = true;
      clearInterval(prober);
      clearInterval(pruner);
      clearTimeout(retry);
      stream?.cancel();
      client.close();
    },
  };
}

export type RevocationWatch = ReturnType<typeof watchRevocations>;
