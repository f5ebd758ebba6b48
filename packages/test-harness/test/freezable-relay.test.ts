import { once } from 'node:events';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FreezableRelay, startFreezableRelay } from '../src/freezable-relay.ts';

// The relay in front of a real TCP echo server.

let echo: net.Server;
let relay: FreezableRelay;

beforeAll(async () => {
  echo = net.createServer((socket) => socket.pipe(socket));
  echo.listen(0, '127.0.0.1');
  await once(echo, 'listening');
  relay = await startFreezableRelay({ host: '127.0.0.1', port: (echo.address() as net.AddressInfo).port });
});
afterAll(async () => {
  await relay?.close();
  echo?.close();
});

/** A client whose echoed bytes are collected as text. */
async function client() {
  const socket = net.connect(relay.port, relay.host);
  await once(socket, 'connect');
  let received = '';
  socket.on('data', (chunk) => {
    received += chunk.toString();
  });
  return { socket, received: () => received };
}

const until = async (condition: () => boolean) => {
  for (let i = 0; i < 100 && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 20));
};

describe('freezeWhenSent', () => {
  it('lets the first sendings of the marker through and freezes on the n-th, holding it until the thaw', async () => {
    const frozen = relay.freezeWhenSent('MARK', 2);
    const { socket, received } = await client();
    socket.write('one MARK;');
    await until(() => received() === 'one MARK;');
    expect(received()).toBe('one MARK;');
    socket.write('two MARK;');
    await frozen;
    await relay.holding('two MARK;');
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(received()).toBe('one MARK;');
    relay.thaw();
    await until(() => received() === 'one MARK;two MARK;');
    expect(received()).toBe('one MARK;two MARK;');
    socket.destroy();
  });
});

describe('freezeConnectionsCarrying', () => {
  it('freezes the connections whose server sent the marker, now and later, and relays the others', async () => {
    const stuck = await client();
    stuck.socket.write('STREAM;');
    await until(() => stuck.received() === 'STREAM;');
    const other = await client();
    other.socket.write('other;');
    await until(() => other.received() === 'other;');

    relay.freezeConnectionsCarrying('STREAM');
    stuck.socket.write('held;');
    await relay.holding('held;');
    other.socket.write('still;');
    await until(() => other.received() === 'other;still;');
    expect(other.received()).toBe('other;still;');

    // A later connection is frozen the moment its server sends the marker, that chunk held.
    const later = await client();
    later.socket.write('again STREAM;');
    let frozen = false;
    void relay.holding('ping;').then(() => {
      frozen = true;
    });
    for (let i = 0; i < 100 && !frozen; i++) {
      later.socket.write('ping;');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(frozen).toBe(true);
    expect(later.received()).not.toContain('STREAM');
    expect(stuck.received()).toBe('STREAM;');

    relay.thaw();
    await until(() => stuck.received() === 'STREAM;held;' && later.received().includes('STREAM'));
    expect(stuck.received()).toBe('STREAM;held;');
    expect(later.received()).toMatch(/^again STREAM;(ping;)+$/);
    for (const socket of [stuck.socket, other.socket, later.socket]) socket.destroy();
  });
});
