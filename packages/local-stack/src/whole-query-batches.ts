import type { PGLiteSocketServer } from '@electric-sql/pglite-socket';

/**
 * Why this exists: PGlite is one PostgreSQL session, and pglite-socket (0.2.17, the newest
 * release) serves every connection from it through one queue that takes each wire-protocol
 * message on its own. A `pg` client sends a parameterised query as separate messages (Parse, Bind,
 * Describe, Execute, Sync), so under load another connection's messages land between them: its
 * Parse replaces the unnamed statement this connection is about to Bind ("bind message supplies 1
 * parameters, but prepared statement "" requires 2", "unnamed prepared statement does not
 * exist"), or — when the parameters happen to fit — runs the other query and answers this
 * connection with its rows. The queue already keeps an explicit transaction's connection in
 * front; this gives an extended-protocol batch, everything up to its Sync, the same rule, so no
 * other connection's message runs inside it. No release does this; upstream may, and then this
 * goes (test/embedded-postgres.test.ts interleaves two connections to prove the rule either way).
 */

/** The queue of pglite-socket 0.2.17, as far as this file uses it (its fields are not typed). */
interface QueuedMessage {
  handlerId: number;
  message: Uint8Array;
  timestamp: number;
  onData: (data: Uint8Array) => void;
  resolve: (bytes: number) => void;
  reject: (error: unknown) => void;
}
interface QueryQueue {
  queue: QueuedMessage[];
  processing: boolean;
  lastHandlerId: number | null;
  db: {
    isInTransaction(): boolean;
    runExclusive<T>(work: () => Promise<T>): Promise<T>;
    execProtocolRawStream(
      message: Uint8Array,
      options: { onRawData: (data: Uint8Array) => void },
    ): Promise<void>;
    exec(query: string): Promise<unknown>;
  };
  processQueue(): Promise<void>;
  clearTransactionIfNeeded(handlerId: number): Promise<void>;
}

/** Frontend messages that open (or continue) an extended-protocol batch: Parse, Bind, Describe, Execute, Close, Flush. */
const IN_BATCH = new Set([0x50, 0x42, 0x44, 0x45, 0x43, 0x48]);
const SYNC = 0x53;
const SYNC_MESSAGE = new Uint8Array([SYNC, 0, 0, 0, 4]);

/** Makes `server`'s queue run each connection's extended-protocol batch whole (see above). */
export function keepQueryBatchesWhole(server: PGLiteSocketServer): void {
  const queue = (server as unknown as { queryQueue?: QueryQueue }).queryQueue;
  if (!queue || !Array.isArray(queue.queue) || typeof queue.processQueue !== 'function') {
    throw new Error('pglite-socket changed: its query queue is not where whole-query-batches.ts expects it');
  }
  /** The connection whose batch is open: only its messages run until its Sync. */
  let batchOf: number | null = null;

  queue.processQueue = async function processQueue(this: QueryQueue) {
    if (this.processing || this.queue.length === 0) return;
    this.processing = true;
    try {
      while (this.queue.length > 0) {
        const owner = batchOf ?? (this.db.isInTransaction() ? this.lastHandlerId : null);
        const index = owner === null ? 0 : this.queue.findIndex((item) => item.handlerId === owner);
        // The owner's next message has not come yet: its enqueue starts the queue again.
        if (index === -1) break;
        const [item] = this.queue.splice(index, 1) as [QueuedMessage];
        const type = item.message[0]!;
        if (IN_BATCH.has(type)) batchOf = item.handlerId;
        else if (type === SYNC && batchOf === item.handlerId) batchOf = null;
        let bytes = 0;
        try {
          await this.db.runExclusive(() =>
            this.db.execProtocolRawStream(item.message, {
              onRawData: (data) => {
                bytes += data.length;
                item.onData(data);
              },
            }),
          );
        } catch (error) {
          item.reject(error);
          continue;
        }
        this.lastHandlerId = item.handlerId;
        item.resolve(bytes);
      }
    } finally {
      this.processing = false;
    }
  };

  // A connection that goes away inside its batch: a Sync of ours ends the batch in the session
  // (its answer is nobody's), so the others can go on; its transaction is rolled back as before.
  const clearTransaction = queue.clearTransactionIfNeeded;
  queue.clearTransactionIfNeeded = async function clearTransactionIfNeeded(this: QueryQueue, handlerId) {
    if (batchOf === handlerId) {
      await this.db.runExclusive(() => this.db.execProtocolRawStream(SYNC_MESSAGE, { onRawData: () => {} }));
      batchOf = null;
    }
    await clearTransaction.call(this, handlerId);
    await this.processQueue();
  };
}
