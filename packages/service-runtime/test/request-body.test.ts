import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { closeHttpServer, listen } from '../src/http-server.ts';
import { readBodyUpTo } from '../src/request-body.ts';

const servers: http.Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => closeHttpServer(server)));
});

/** A server that answers 200 with the body's length, or 413 when readBodyUpTo refuses it. */
async function serve(limit: number, drainLimit?: number): Promise<number> {
  const server = http.createServer(async (req, res) => {
    const body = await readBodyUpTo(req, limit, drainLimit);
    if (!body) res.writeHead(413, { connection: 'close' }).end('too large');
    else res.writeHead(200).end(String(body.length));
  });
  servers.push(server);
  await listen(server, 0, '127.0.0.1', 'TEST_PORT');
  return (server.address() as AddressInfo).port;
}

/** POSTs `size` bytes in 1 KiB writes, as a slow client or a proxy streams them. */
function post(port: number, size: number, declareLength = true): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      {
        port,
        method: 'POST',
        path: '/',
        headers: declareLength ? { 'content-length': String(size) } : { 'transfer-encoding': 'chunked' },
      },
      (response) => {
        let body = '';
        response.on('data', (chunk) => {
          body += chunk;
        });
        response.on('end', () => resolve({ status: response.statusCode!, body }));
      },
    );
    request.on('error', reject);
    const chunk = Buffer.alloc(1024, 'a');
    let sent = 0;
    const writeMore = () => {
      while (sent < size) {
        const part = chunk.subarray(0, Math.min(chunk.length, size - sent));
        sent += part.length;
        if (!request.write(part)) return void request.once('drain', writeMore);
      }
      request.end();
    };
    writeMore();
  });
}

describe('readBodyUpTo', () => {
  it('returns a body within the limit', async () => {
    const port = await serve(16 * 1024);
    expect(await post(port, 16 * 1024)).toEqual({ status: 200, body: String(16 * 1024) });
    expect(await post(port, 0)).toEqual({ status: 200, body: '0' });
  });

  it.each([
    ['with a Content-Length', true],
    ['chunked', false],
  ])('refuses a larger body %s, and the client receives the 413 rather than a reset', async (_, declared) => {
    const port = await serve(16 * 1024);
    for (const size of [16 * 1024 + 1, 200 * 1024, 2 * 1024 * 1024]) {
      expect(await post(port, size, declared)).toEqual({ status: 413, body: 'too large' });
    }
  });

  it('hands every byte of a body over the limit to pastLimit, in order, and none of one within it', async () => {
    const handed: Buffer[] = [];
    const server = http.createServer(async (req, res) => {
      const body = await readBodyUpTo(req, 4 * 1024, 1024 * 1024, (chunk) => handed.push(chunk));
      res.writeHead(body ? 200 : 413, { connection: 'close' }).end();
    });
    servers.push(server);
    await listen(server, 0, '127.0.0.1', 'TEST_PORT');
    const port = (server.address() as AddressInfo).port;
    const send = (body: Buffer) =>
      new Promise<number>((resolve, reject) => {
        const request = http.request({ port, method: 'POST' }, (response) => resolve(response.statusCode!));
        request.on('error', reject);
        // In 1 KiB writes, so that the limit is crossed within a later chunk.
        for (let at = 0; at < body.length; at += 1024) request.write(body.subarray(at, at + 1024));
        request.end();
      });
    const within = Buffer.alloc(4 * 1024, 'w');
    expect(await send(within)).toBe(200);
    expect(handed).toEqual([]);
    const over = Buffer.from(Array.from({ length: 40 * 1024 }, (_, index) => 97 + (index % 26)));
    expect(await send(over)).toBe(413);
    expect(Buffer.concat(handed).equals(over)).toBe(true);
  });

  it('does not read a body declared larger than what it drains', async () => {
    let read = 0;
    const server = http.createServer(async (req, res) => {
      req.on('data', (chunk: Buffer) => {
        read += chunk.length;
      });
      const body = await readBodyUpTo(req, 10, 100);
      res.writeHead(body ? 200 : 413, { connection: 'close' }).end();
    });
    servers.push(server);
    await listen(server, 0, '127.0.0.1', 'TEST_PORT');
    const port = (server.address() as AddressInfo).port;
    const status = await new Promise<number>((resolve) => {
      const request = http.request(
        { port, method: 'POST', headers: { 'content-length': '1000000' } },
        (response) => resolve(response.statusCode!),
      );
      request.on('error', () => resolve(-1));
      request.write(Buffer.alloc(10));
    });
    expect(status).toBe(413);
    expect(read).toBeLessThanOrEqual(10);
  });

  // The MCP endpoint asks for the body after a few awaits: by then a small body has arrived whole.
  describe('a body that has fully arrived before it is asked for', () => {
    async function serveLate(limit: number) {
      const seen: Array<{ complete: boolean; body: string | undefined }> = [];
      const server = http.createServer(async (req, res) => {
        for (let i = 0; i < 20 && !req.complete; i++) await new Promise((resolve) => setTimeout(resolve, 5));
        const complete = req.complete;
        const body = await readBodyUpTo(req, limit);
        seen.push({ complete, body: body?.toString('latin1') });
        if (!body) res.writeHead(413, { connection: 'close' }).end('too large');
        else res.writeHead(200).end(String(body.length));
      });
      servers.push(server);
      await listen(server, 0, '127.0.0.1', 'TEST_PORT');
      return { port: (server.address() as AddressInfo).port, seen };
    }

    it('is read whole from the stream, however many chunks it came in', async () => {
      const { port, seen } = await serveLate(256 * 1024);
      // 12 KiB in 1 KiB writes: several chunks waiting in the stream's buffer (a body larger than
      // the buffer never arrives whole before it is read: the socket is paused).
      expect(await post(port, 12 * 1024)).toEqual({ status: 200, body: String(12 * 1024) });
      expect(await post(port, 0)).toEqual({ status: 200, body: '0' });
      expect(seen.map((entry) => entry.complete)).toEqual([true, true]);
      expect(seen[0]!.body).toBe('a'.repeat(12 * 1024));
    });

    it('is refused over the limit, and the client receives the 413', async () => {
      const { port, seen } = await serveLate(8 * 1024);
      expect(await post(port, 8 * 1024 + 1)).toEqual({ status: 413, body: 'too large' });
      expect(await post(port, 8 * 1024)).toEqual({ status: 200, body: String(8 * 1024) });
      expect(seen.map((entry) => entry.complete)).toEqual([true, true]);
    });
  });

  it('rejects, rather than waiting for ever, when the client leaves mid-body', async () => {
    const outcome = new Promise<string>((resolve) => {
      const server = http.createServer((req) => {
        readBodyUpTo(req, 1024).then(
          () => resolve('resolved'),
          () => resolve('rejected'),
        );
      });
      servers.push(server);
      void listen(server, 0, '127.0.0.1', 'TEST_PORT').then(() => {
        const request = http.request({
          port: (server.address() as AddressInfo).port,
          method: 'POST',
          headers: { 'content-length': '100' },
        });
        request.on('error', () => {});
        request.write(Buffer.alloc(10), () => setTimeout(() => request.destroy(), 50));
      });
    });
    expect(await outcome).toBe('rejected');
  });
});
