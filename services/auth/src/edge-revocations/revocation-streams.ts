import type { ServerDuplexStream } from '@grpc/grpc-js';
import {
  GrpcStatus,
  type LastingRevocation,
  type Revocation,
  toRevocationEvent,
  toRevocationSnapshot,
  type WatchRevocationsRequest,
  type WatchRevocationsResponse,
} from '@sheetgate/proto';
import type { Logger } from '@sheetgate/service-runtime';

export interface StreamTiming {
  /** How often each stream gets a heartbeat. */
  heartbeatIntervalMs: number;
  /** How long a replica trusts its state after sending a probe whose echo has not come back. */
  staleAfterMs: number;
}

/** Heartbeat intervals without an answered probe before a replica stops trusting itself, by default. */
const HEARTBEATS_BEFORE_STALE = 4;

/**
 * The streams' timing from the heartbeat interval (REVOCATION_HEARTBEAT_MS) and the staleness
 * bound (REVOCATION_STALE_AFTER_MS; 4 heartbeats when not given).
 */
export function streamTiming(heartbeatIntervalMs: number, staleAfterMs?: number): StreamTiming {
  return { heartbeatIntervalMs, staleAfterMs: staleAfterMs ?? heartbeatIntervalMs * HEARTBEATS_BEFORE_STALE };
}

/**
 * Past `staleAfterMs`, how much longer a delivery waits for an acknowledgement: clocks run at
 * slightly different rates, and the replica's timer fires a little late under load.
 */
const STALENESS_MARGIN_MS = 250;

type Call = ServerDuplexStream<WatchRevocationsRequest, WatchRevocationsResponse>;

/** One MCP replica's stream, as this auth replica holds it. */
interface EdgeStream {
  /** Sends the event now, or after the snapshot when that is still being read. */
  send(revocation: Revocation): Promise<void>;
  end(): void;
}

/**
 * The server side of `WatchRevocations` (proto/sheetgate/v1/revocations.proto): every MCP replica
 * connected to this auth replica, the snapshot it gets on connecting, heartbeats, and the events
 * `deliver` sends, each waited for until the replica acknowledges it or can no longer trust
 * itself.
 */
export function createRevocationStreams(deps: {
  /** What is revoked now, read when a replica connects. */
  snapshot: () => Promise<LastingRevocation[]>;
  /** Whether this auth replica hears every revocation now (else streams are refused UNAVAILABLE). */
  hearing: () => boolean;
  timing: StreamTiming;
  logger: Logger;
}) {
  const { timing, logger } = deps;
  const streams = new Set<EdgeStream>();

  function watch(call: Call): void {
    let probe = 0;
    let sequence = 0;
    let acknowledged = 0;
    let snapshotSent = false;
    let ended = false;
    const beforeSnapshot: Revocation[] = [];
    /** Acknowledgements awaited, by sequence. */
    const awaited = new Map<number, () => void>();
    let heartbeat: NodeJS.Timeout | undefined;

    const write = (message: Omit<WatchRevocationsResponse, 'probeEcho'>) => {
      if (!ended) call.write({ probeEcho: probe, ...message });
    };
    const sendEvent = (revocation: Revocation) => {
      sequence += 1;
      write({ event: toRevocationEvent(sequence, revocation) });
      return sequence;
    };
    const stream: EdgeStream = {
      send(revocation) {
        if (ended) return Promise.resolve();
        return new Promise<void>((resolve) => {
          // A replica that never acknowledges has stopped trusting itself by then (the contract).
          const bound = setTimeout(done, timing.staleAfterMs + STALENESS_MARGIN_MS);
          let awaitedSequence: number | undefined;
          function done() {
            clearTimeout(bound);
            if (awaitedSequence !== undefined) awaited.delete(awaitedSequence);
            resolve();
          }
          const sent = (at: number) => {
            awaitedSequence = at;
            if (acknowledged >= at) done();
            else awaited.set(at, done);
          };
          if (snapshotSent) sent(sendEvent(revocation));
          else {
            beforeSnapshot.push(revocation);
            pendingUntilSnapshot.push(sent);
          }
        });
      },
      end() {
        finish();
        call.end();
      },
    };
    const pendingUntilSnapshot: Array<(sequence: number) => void> = [];

    function finish() {
      if (ended) return;
      ended = true;
      clearInterval(heartbeat);
      streams.delete(stream);
      // Deliveries still awaited end at their own bound: the replica may trust what it has until then.
    }
    function refuse(details: string) {
      finish();
      call.emit('error', { code: GrpcStatus.INVALID_ARGUMENT, details });
    }

    call.on('data', (request: WatchRevocationsRequest) => {
      if (ended) return;
      const opening = probe === 0;
      if (request.probe !== 0 && request.probe <= probe)
        return refuse('a probe must be greater than the last');
      if (opening && request.probe === 0) return refuse('the first message must carry a probe');
      if (request.acknowledged > sequence) return refuse('acknowledged an event never sent');
      if (request.probe !== 0) probe = request.probe;
      if (request.acknowledged > acknowledged) {
        acknowledged = request.acknowledged;
        for (const [at, done] of awaited) if (at <= acknowledged) done();
      }
      if (opening) open();
    });
    call.on('error', finish);
    call.on('end', () => {
      finish();
      call.end();
    });
    call.on('cancelled', finish);

    function open() {
      if (!deps.hearing()) {
        finish();
        call.emit('error', { code: GrpcStatus.UNAVAILABLE, details: 'revocations cannot be relayed now' });
        return;
      }
      // Listed before the snapshot is read, so nothing announced meanwhile is missed: a revocation
      // recorded before the read is in the snapshot, one relayed after it waits behind it.
      streams.add(stream);
      deps.snapshot().then(
        (revocations) => {
          if (ended) return;
          write({
            snapshot: toRevocationSnapshot({
              revocations,
              heartbeatIntervalMs: timing.heartbeatIntervalMs,
              staleAfterMs: timing.staleAfterMs,
            }),
          });
          snapshotSent = true;
          for (const [index, revocation] of beforeSnapshot.entries())
            pendingUntilSnapshot[index]!(sendEvent(revocation));
          beforeSnapshot.length = 0;
          pendingUntilSnapshot.length = 0;
          heartbeat = setInterval(() => write({ heartbeat: {} }), timing.heartbeatIntervalMs);
        },
        (error: unknown) => {
          logger.warn({ err: error }, 'could not read the revocation snapshot; the MCP replica will retry');
          finish();
          call.emit('error', { code: GrpcStatus.UNAVAILABLE, details: 'revocations cannot be read now' });
        },
      );
    }
  }

  return {
    /** The `watchRevocations` handler. */
    watch,
    /** Sends the revocation to every connected replica; resolves once each acknowledged it or went stale. */
    async deliver(revocation: Revocation): Promise<void> {
      await Promise.all([...streams].map((stream) => stream.send(revocation)));
    },
    /** How many MCP replicas are connected to this auth replica. */
    get connected() {
      return streams.size;
    },
    /** Ends every stream (the replicas reconnect elsewhere). */
    close() {
      for (const stream of [...streams]) stream.end();
    },
  };
}

export type RevocationStreams = ReturnType<typeof createRevocationStreams>;
