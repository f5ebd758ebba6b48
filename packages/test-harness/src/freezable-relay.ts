import net from 'node:net';
import { Transform, type TransformCallback } from 'node:stream';

export interface RelayTarget {
  host: string;
  port: number;
}

export interface FreezableRelay {
  /** Where the relay listens (loopback): a connection there reaches the target through the relay. */
  host: string;
  port: number;
  /** `host:port`, as a gRPC address is written. */
  address: string;
  /** Stops relaying: connections stay open (new ones are accepted), nothing is passed on either way. */
  freeze(): void;
  /** Relays again, holding nothing back: what was sent while frozen reaches the other side in order. */
  thaw(): void;
  /**
   * Resolves once the relay holds bytes a client sent while frozen (at once if it already does);
   * with `marker`, once what one connection's client sent while frozen contains it (looked for in
   * the first MiB or so, what the relay reads before it stops reading). Rejects on `close()`.
   */
  holding(marker?: string | Uint8Array): Promise<void>;
  /**
   * Freezes the relay the moment a client sends `marker` for the `times`-th time (counted over
   * every connection, chunk by chunk as they arrive), holding the chunk that carries it: a call
   * held after the calls before it have passed (a session that ends between two of a page's calls).
   * Resolves once frozen; rejects on `close()`.
   */
  freezeWhenSent(marker: string | Uint8Array, times?: number): Promise<void>;
  /**
   * Freezes, both ways, each connection whose server sends `marker` (looked for in the first 64 KiB
   * it sends): one open now that sent it already, and from now on any connection the moment it
   * sends it, holding the chunk that carries it. Every other connection is relayed: one call hung
   * among others to the same server (a stream stuck behind a proxy, kept stuck when it reconnects).
   * `thaw` ends it.
   */
  freezeConnectionsCarrying(marker: string | Uint8Array): void;
  close(): Promise<void>;
}

/** Beyond this many held bytes a direction stops reading: the rest waits in the sender's socket. */
const HOLD_LIMIT = 1024 * 1024;
/** How much of what a server sends first is kept per connection, for `freezeConnectionsCarrying`. */
const FIRST_BYTES_KEPT = 64 * 1024;

/** What the relay knows of one connection beyond its gates. */
interface Connection {
  /** Frozen by `freezeConnectionsCarrying`, whatever the relay as a whole is. */
  frozen: boolean;
  /** The first FIRST_BYTES_KEPT bytes its server sent. */
  fromServer: Buffer;
}

/**
 * One direction of one connection. Thawed it passes chunks straight on; frozen it keeps them, in
 * order, and reads on up to `HOLD_LIMIT` (so the relay sees what is sent while frozen), then
 * stops reading: backpressure on the sender, never a dropped byte. An end of input waits too.
 */
class Gate extends Transform {
  held: Buffer[] = [];
  private heldBytes = 0;
  private blocked: TransformCallback | undefined;
  private ending: TransformCallback | undefined;
  private readonly isFrozen: () => boolean;
  private readonly onHeld: () => void;
  private readonly inspect: (chunk: Buffer) => void;

  constructor(isFrozen: () => boolean, onHeld: () => void, inspect: (chunk: Buffer) => void = () => {}) {
    super();
    this.isFrozen = isFrozen;
    this.onHeld = onHeld;
    this.inspect = inspect;
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.inspect(chunk);
    if (!this.isFrozen()) {
      callback(null, chunk);
      return;
    }
    this.held.push(chunk);
    this.heldBytes += chunk.length;
    this.onHeld();
    if (this.heldBytes < HOLD_LIMIT) callback();
    else this.blocked = callback;
  }

  override _flush(callback: TransformCallback): void {
    if (this.isFrozen()) this.ending = callback;
    else callback();
  }

  /** Passes on what was held, then whatever was waiting behind it. */
  release(): void {
    for (const chunk of this.held) this.push(chunk);
    this.held = [];
    this.heldBytes = 0;
    const blocked = this.blocked;
    const ending = this.ending;
    this.blocked = undefined;
    this.ending = undefined;
    blocked?.();
    ending?.();
  }
}

interface Tripwire {
  marker: Buffer;
  remaining: number;
  resolve(): void;
  reject(error: Error): void;
}

function occurrences(bytes: Buffer, marker: Buffer): number {
  let count = 0;
  for (let at = bytes.indexOf(marker); at !== -1; at = bytes.indexOf(marker, at + marker.length)) count++;
  return count;
}

interface Waiter {
  marker: Buffer | undefined;
  resolve(): void;
  reject(error: Error): void;
}

/**
 * A TCP relay in front of a real server that can stop relaying without closing anything: a hung
 * server (a stopped process, a partitioned network), which a stopped server is not — that one
 * refuses connections at once. Frozen, the relay holds what either side sends instead of passing
 * it on, losing nothing: thawed, it delivers all of it in order.
 */
export async function startFreezableRelay(target: RelayTarget): Promise<FreezableRelay> {
  const sockets = new Set<net.Socket>();
  const gates = new Set<Gate>();
  const fromClients = new Set<Gate>();
  const waiters = new Set<Waiter>();
  const tripwires = new Set<Tripwire>();
  const connections = new Set<Connection>();
  /** Markers of `freezeConnectionsCarrying`, until the thaw. */
  const carried: Buffer[] = [];
  let frozen = false;
  const carriesMarker = (connection: Connection) =>
    carried.some((marker) => connection.fromServer.includes(marker));

  const trip = (chunk: Buffer) => {
    for (const tripwire of tripwires) {
      tripwire.remaining -= occurrences(chunk, tripwire.marker);
      if (tripwire.remaining > 0) continue;
      tripwires.delete(tripwire);
      frozen = true;
      tripwire.resolve();
    }
  };

  const settleWaiters = () => {
    if (waiters.size === 0) return;
    const held = [...fromClients].map((gate) => Buffer.concat(gate.held)).filter((bytes) => bytes.length > 0);
    for (const waiter of waiters) {
      const { marker } = waiter;
      if (marker ? !held.some((bytes) => bytes.includes(marker)) : held.length === 0) continue;
      waiters.delete(waiter);
      waiter.resolve();
    }
  };

  const server = net.createServer((client) => {
    const upstream = net.connect(target.port, target.host);
    const connection: Connection = { frozen: false, fromServer: Buffer.alloc(0) };
    connections.add(connection);
    const isFrozen = () => frozen || connection.frozen;
    const toTarget = new Gate(isFrozen, settleWaiters, trip);
    // Looked at before the chunk is passed on: the one carrying a marker is held.
    const inspectFromServer = (chunk: Buffer) => {
      if (connection.fromServer.length >= FIRST_BYTES_KEPT) return;
      connection.fromServer = Buffer.concat([connection.fromServer, chunk]).subarray(0, FIRST_BYTES_KEPT);
      if (carriesMarker(connection)) connection.frozen = true;
    };
    const toClient = new Gate(isFrozen, () => {}, inspectFromServer);
    gates.add(toTarget).add(toClient);
    fromClients.add(toTarget);
    const closeAll = () => {
      for (const stream of [client, upstream, toTarget, toClient]) stream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
      gates.delete(toTarget);
      gates.delete(toClient);
      fromClients.delete(toTarget);
      connections.delete(connection);
    };
    for (const stream of [client, upstream, toTarget, toClient]) stream.on('error', () => {});
    for (const socket of [client, upstream]) {
      // As the endpoints themselves do (grpc-js, undici): Nagle's wait for an ACK the other side
      // delays would add ~40 ms to a small request passing through.
      socket.setNoDelay(true);
      sockets.add(socket);
      socket.on('close', closeAll);
    }
    client.pipe(toTarget).pipe(upstream);
    upstream.pipe(toClient).pipe(client);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    // Port 0 is safe here (unlike a port picked for another process to bind, see ports.ts): the
    // relay holds the port from the moment the OS picks it.
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as net.AddressInfo;

  return {
    host: '127.0.0.1',
    port,
    address: `127.0.0.1:${port}`,
    freeze() {
      frozen = true;
    },
    thaw() {
      frozen = false;
      carried.length = 0;
      for (const connection of connections) connection.frozen = false;
      for (const gate of gates) gate.release();
    },
    freezeConnectionsCarrying(marker) {
      carried.push(Buffer.from(marker));
      for (const connection of connections) if (carriesMarker(connection)) connection.frozen = true;
    },
    holding(marker) {
      return new Promise<void>((resolve, reject) => {
        waiters.add({ marker: marker === undefined ? undefined : Buffer.from(marker), resolve, reject });
        settleWaiters();
      });
    },
    freezeWhenSent(marker, times = 1) {
      return new Promise<void>((resolve, reject) => {
        tripwires.add({ marker: Buffer.from(marker), remaining: times, resolve, reject });
      });
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const waiter of [...waiters, ...tripwires]) waiter.reject(new Error('the relay was closed'));
        waiters.clear();
        tripwires.clear();
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
