import net from 'node:net';

export interface FreezableRelay {
  /** A Redis URL that reaches the real server through the relay. */
  url: string;
  /** Stops relaying: connections stay open, commands are held, nothing is answered. */
  freeze(): void;
  /** Relays again, holding nothing back: what was sent while frozen reaches Redis in order. */
  thaw(): void;
  close(): Promise<void>;
}

/**
 * A TCP relay in front of a real Redis that can stop relaying without closing anything: a hung
 * Redis (a stopped process, a partitioned network), which a stopped server is not — that one
 * refuses connections at once. Frozen sockets are paused, not drained, so no byte is lost.
 */
export async function startFreezableRelay(redisUrl: string): Promise<FreezableRelay> {
  const target = new URL(redisUrl);
  const sockets = new Set<net.Socket>();
  let frozen = false;
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(target.port || 6379), target.hostname);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      if (frozen) socket.pause();
      socket.on('close', () => {
        sockets.delete(socket);
        client.destroy();
        upstream.destroy();
      });
      socket.on('error', () => {});
    }
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `redis://127.0.0.1:${(server.address() as net.AddressInfo).port}`,
    freeze() {
      frozen = true;
      for (const socket of sockets) socket.pause();
    },
    thaw() {
      frozen = false;
      for (const socket of sockets) socket.resume();
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
