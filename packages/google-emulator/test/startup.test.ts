import http from 'node:http';
import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { startGoogleEmulator } from '../src/index.ts';

/** A port below the ephemeral range that nothing listens on at this moment. */
async function unusedPort(): Promise<number> {
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    const probe = net.createServer();
    const bound = await new Promise<boolean>((resolve) => {
      probe.once('error', () => resolve(false));
      probe.listen(port, '127.0.0.1', () => resolve(true));
    });
    if (bound) {
      await new Promise((resolve) => probe.close(resolve));
      return port;
    }
  }
}

interface Answer {
  status: number | undefined;
  /** Whether the connection was made before startGoogleEmulator had resolved. */
  connectedWhileStarting: boolean;
}

describe('the emulator while it starts', () => {
  it('answers a request that reaches its port before it has finished starting', async () => {
    const port = await unusedPort();
    let started = false;
    // Tries to connect until the port listens: the first connection lands in the moments between
    // the emulator's listen and the end of its start (it makes a signing key then).
    const firstAnswer = (async (): Promise<Answer> => {
      for (;;) {
        const answer = await new Promise<Answer | undefined>((resolve) => {
          let connectedWhileStarting = false;
          const request = http.get(
            { host: '127.0.0.1', port, path: '/healthz', agent: false },
            (response) => {
              response.resume();
              resolve({ status: response.statusCode, connectedWhileStarting });
            },
          );
          request.on('socket', (socket) =>
            socket.once('connect', () => {
              connectedWhileStarting = !started;
            }),
          );
          request.on('error', () => resolve(undefined));
        });
        if (answer) return answer;
        await new Promise((resolve) => setImmediate(resolve));
      }
    })();
    const emulator = await startGoogleEmulator({ port });
    started = true;
    try {
      // Without a handler at listen time, this request was never answered (the test timed out).
      await expect(firstAnswer).resolves.toEqual({ status: 200, connectedWhileStarting: true });
    } finally {
      await emulator.close();
    }
  });
});
