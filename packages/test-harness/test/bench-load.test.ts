import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { findWrk, luaLongString, runWrk, wrkScript } from '../src/bench-load.ts';

// wrk itself (Debian's package), against a real HTTP server that records what it was sent.

const wrk = findWrk();

interface Received {
  method: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

let server: http.Server | undefined;
afterEach(() => {
  server?.closeAllConnections();
  server?.close();
  server = undefined;
});

async function recordingServer(status: number) {
  const received: Received[] = [];
  server = http.createServer(async (req, res) => {
    let body = '';
    for await (const chunk of req) body += chunk;
    received.push({ method: req.method ?? '', headers: req.headers, body });
    res.writeHead(status, { 'content-type': 'application/json' }).end('{}');
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/mcp`, received };
}

// Everything a Lua string could get wrong: closing long brackets of several levels, quotes,
// backslashes and escapes, a leading newline (which Lua drops after an opening bracket), non-ASCII.
const HOSTILE_BODY = '\n{"a":"]]","b":"]=]","c":"]==]","q":"\\"\'\\\\n","u":"é😀\\u00e9","end":"]"}';

describe.skipIf(!wrk)('runWrk', () => {
  it('sends the method, headers and body exactly as given, and counts what was answered', async () => {
    const { url, received } = await recordingServer(200);
    const result = await runWrk(
      wrk!,
      {
        url,
        headers: { 'content-type': 'application/json', authorization: 'Bearer a.b-c_d]]', 'mcp-name': ']=]' },
        body: HOSTILE_BODY,
      },
      { connections: 2, seconds: 1, cores: '0' },
    );
    expect(result.requests).toBeGreaterThan(0);
    // wrk counts the answers it read; the server may have answered a few more as wrk stopped.
    expect(received.length).toBeGreaterThanOrEqual(result.requests);
    for (const request of received) {
      expect(request.method).toBe('POST');
      expect(request.body).toBe(HOSTILE_BODY);
      expect(request.headers.authorization).toBe('Bearer a.b-c_d]]');
      expect(request.headers['mcp-name']).toBe(']=]');
    }
    expect(result.non2xx).toBe(0);
    expect(result.socketErrors).toBe(0);
    expect(result.rps).toBeCloseTo(result.requests / result.seconds);
    // One wrk thread pinned to one core: some of that core, never more than all of it.
    expect(result.generatorCpu).toBeGreaterThan(0);
    expect(result.generatorCpu).toBeLessThanOrEqual(1.05);
  });

  it('counts answers outside 2xx/3xx', async () => {
    const { url } = await recordingServer(400);
    const result = await runWrk(wrk!, { url, headers: {}, body: '{}' }, { connections: 1, seconds: 1 });
    expect(result.requests).toBeGreaterThan(0);
    expect(result.non2xx).toBe(result.requests);
  });

  it('fails with wrk’s own message when it cannot run', async () => {
    await expect(
      runWrk(wrk!, { url: 'not a url', headers: {} }, { connections: 1, seconds: 1 }),
    ).rejects.toThrow(/wrk failed/);
  });
});

describe('wrkScript', () => {
  it('refuses a header holding a line break (it would smuggle another header)', () => {
    expect(() => wrkScript({ url: 'http://x/', headers: { 'x-a': 'b\r\nx-b: c' } })).toThrow(/line break/);
  });

  it('quotes text whatever closing brackets it holds', () => {
    expect(luaLongString('a]]b')).toBe('[=[a]]b]=]');
    expect(luaLongString('a]]b]=]')).toBe('[==[a]]b]=]]==]');
    // Text ending in `]=` would close `]=]` early with the bracket that follows it.
    expect(luaLongString('x]')).toBe('[=[x]]=]');
    expect(luaLongString('\nx')).toBe('[[\n\nx]]');
  });
});
