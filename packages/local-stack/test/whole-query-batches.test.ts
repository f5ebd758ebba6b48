import net from 'node:net';
import path from 'node:path';
import type { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type EmbeddedPostgres, startEmbeddedPostgres } from '../src/embedded-postgres.ts';

// The socket server the embedded PostgreSQL makes, kept as it is handed to the rule under test, so
// the test can see its query queue (the field whole-query-batches.ts itself relies on).
const servers = vi.hoisted(() => [] as PGLiteSocketServer[]);
vi.mock('../src/whole-query-batches.ts', async (importOriginal) => {
  const original = await importOriginal<typeof import('../src/whole-query-batches.ts')>();
  return {
    ...original,
    keepQueryBatchesWhole(server: PGLiteSocketServer) {
      servers.push(server);
      original.keepQueryBatchesWhole(server);
    },
  };
});

// Two connections to the one PGlite session, their wire-protocol messages sent by hand so that
// they interleave exactly where a `pg` client's do under load (whole-query-batches.ts): inside an
// extended-protocol batch, between its Bind and its Sync.

let database: EmbeddedPostgres;

beforeAll(async () => {
  database = await startEmbeddedPostgres({});
}, 60_000);

afterAll(async () => {
  await database?.close();
});

const message = (type: string, ...parts: Buffer[]): Buffer => {
  const body = Buffer.concat(parts);
  const length = Buffer.alloc(4);
  length.writeInt32BE(body.length + 4);
  return Buffer.concat([Buffer.from(type), length, body]);
};
const cString = (text: string) => Buffer.from(`${text}\0`);
const int16 = (value: number) => Buffer.from([value >> 8, value & 0xff]);
const int32 = (value: number) => {
  const buffer = Buffer.alloc(4);
  buffer.writeInt32BE(value);
  return buffer;
};
const parse = (sql: string) => message('P', cString(''), cString(sql), int16(0));
const bind = (values: string[]) =>
  message(
    'B',
    cString(''),
    cString(''),
    int16(0),
    int16(values.length),
    ...values.flatMap((value) => [int32(Buffer.byteLength(value)), Buffer.from(value)]),
    int16(0),
  );
const describePortal = message('D', Buffer.from('P'), cString(''));
const execute = message('E', cString(''), int32(0));
const sync = message('S');
const flush = message('H');

/** One raw connection: what it sends, and the backend messages it received, by type. */
class RawConnection {
  private received = Buffer.alloc(0);
  readonly messages: Array<{ type: string; body: Buffer }> = [];
  private waiters: Array<() => void> = [];
  private readonly socket: net.Socket;

  private constructor(socket: net.Socket) {
    this.socket = socket;
    socket.on('data', (chunk: Buffer) => {
      this.received = Buffer.concat([this.received, chunk]);
      while (this.received.length >= 5) {
        const length = this.received.readInt32BE(1);
        if (this.received.length < 1 + length) break;
        this.messages.push({
          type: String.fromCharCode(this.received[0]!),
          body: this.received.subarray(5, 1 + length),
        });
        this.received = this.received.subarray(1 + length);
      }
      for (const wake of this.waiters.splice(0)) wake();
    });
  }

  static async open(url: string): Promise<RawConnection> {
    const socketDir = new URL(url).searchParams.get('host')!;
    const socket = net.connect(path.join(socketDir, '.s.PGSQL.5432'));
    await new Promise((resolve, reject) => socket.once('connect', resolve).once('error', reject));
    const connection = new RawConnection(socket);
    const startup = Buffer.concat([
      int32(196_608),
      cString('user'),
      cString('postgres'),
      cString('database'),
      cString('postgres'),
      Buffer.from([0]),
    ]);
    socket.write(Buffer.concat([int32(startup.length + 4), startup]));
    await connection.until('Z');
    connection.messages.length = 0;
    return connection;
  }

  send(...messages: Buffer[]): void {
    this.socket.write(Buffer.concat(messages));
  }

  /** Resolves once a message of `type` has come (the test's own time limit ends a wait that never does). */
  async until(type: string): Promise<void> {
    while (!this.messages.some((received) => received.type === type))
      await new Promise<void>((resolve) => this.waiters.push(resolve));
  }

  has(type: string): boolean {
    return this.messages.some((received) => received.type === type);
  }

  /** The text of the first column of each DataRow received, and each error's message. */
  answers(): string[] {
    return this.messages.flatMap(({ type, body }) => {
      if (type === 'D') return [body.subarray(6, 6 + body.readInt32BE(2)).toString()];
      if (type === 'E')
        return [
          `error: ${body
            .toString()
            .split('\0')
            .find((field) => field.startsWith('M'))
            ?.slice(1)}`,
        ];
      return [];
    });
  }

  close(): void {
    this.socket.destroy();
  }
}

describe('the embedded PostgreSQL runs each connection’s query batch whole', () => {
  it('holds another connection’s query until this one’s Sync, and both get their own answers', async () => {
    const first = await RawConnection.open(database.url);
    const second = await RawConnection.open(database.url);
    // The first connection's statement is parsed and bound: the session is inside its batch.
    first.send(parse("SELECT 'first:' || $1::text"), bind(['one']), flush);
    await first.until('2');
    // The second's whole query, with a statement of another shape, arrives in the middle.
    second.send(parse('SELECT $1::text || $2::text'), bind(['two', 'three']), describePortal, execute, sync);
    // The server has the second's Parse (the first's ran already): waiting in its queue — or, were
    // the batch not kept whole, its whole query answered.
    const queue = (servers[0] as unknown as { queryQueue: { queue: Array<{ message: Uint8Array }> } })
      .queryQueue;
    const secondParseQueued = () => queue.queue.some((item) => item.message[0] === 'P'.charCodeAt(0));
    await vi.waitFor(() => expect(secondParseQueued() || second.has('Z')).toBe(true), {
      timeout: 5_000,
      interval: 5,
    });
    // Inside the first's batch it must not have run (before the fix it ran, and replaced the
    // unnamed statement the first was about to execute).
    expect(second.has('Z')).toBe(false);
    first.send(describePortal, execute, sync);
    await Promise.all([first.until('Z'), second.until('Z')]);
    expect(first.answers()).toEqual(['first:one']);
    expect(second.answers()).toEqual(['twothree']);
    first.close();
    second.close();
  });

  it('lets the others go on when a connection goes away inside its batch', async () => {
    const leaving = await RawConnection.open(database.url);
    leaving.send(parse("SELECT 'never run'"), flush);
    await leaving.until('1');
    leaving.close();
    const staying = await RawConnection.open(database.url);
    staying.send(parse('SELECT $1::text'), bind(['still served']), describePortal, execute, sync);
    await staying.until('Z');
    expect(staying.answers()).toEqual(['still served']);
    staying.close();
  });
});
