import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface GoogleProxy {
  url: string;
  /** Where requests go; settable after start, so the emulator can be told the proxy's URL first. */
  target: string;
  /** POSTs to /token seen so far (refreshes, when only the broker talks through the proxy). */
  tokenRequests: number;
  /** When set, /token answers this status instead of reaching the emulator. */
  failTokenWith: number | undefined;
  /** When set, /token is answered this much later (a slow Google). */
  tokenDelayMs: number;
  /** When set, a successful /token answer is replaced by what this makes of it (a forged ID token). */
  rewriteTokenAnswer: ((answer: Record<string, unknown>) => Promise<Record<string, unknown>>) | undefined;
  close(): Promise<void>;
}

const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'transfer-encoding',
  'content-length',
  'content-encoding',
]);

/** An HTTP proxy in front of the Google emulator that counts, fails, slows or rewrites token requests. */
export async function startGoogleProxy(target = ''): Promise<GoogleProxy> {
  const state: GoogleProxy = {
    url: '',
    target,
    tokenRequests: 0,
    failTokenWith: undefined,
    tokenDelayMs: 0,
    rewriteTokenAnswer: undefined,
    close: async () => {},
  };
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    if (req.method === 'POST' && req.url?.startsWith('/token')) {
      state.tokenRequests += 1;
      if (state.tokenDelayMs) await new Promise((resolve) => setTimeout(resolve, state.tokenDelayMs));
      if (state.failTokenWith) {
        res.writeHead(state.failTokenWith, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: 'backend_error' }));
        return;
      }
    }
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) {
      if (typeof value === 'string' && !['host', 'connection', 'content-length'].includes(name))
        headers.set(name, value);
    }
    const upstream = await fetch(`${state.target}${req.url}`, {
      method: req.method!,
      headers,
      ...(chunks.length > 0 ? { body: Buffer.concat(chunks) } : {}),
      redirect: 'manual',
    });
    let body = Buffer.from(await upstream.arrayBuffer());
    if (state.rewriteTokenAnswer && req.url?.startsWith('/token') && upstream.status === 200) {
      const rewritten = await state.rewriteTokenAnswer(
        JSON.parse(body.toString()) as Record<string, unknown>,
      );
      body = Buffer.from(JSON.stringify(rewritten));
    }
    const answer: Record<string, string> = {};
    upstream.headers.forEach((value, name) => {
      if (!HOP_BY_HOP.has(name)) answer[name] = value;
    });
    res.writeHead(upstream.status, answer);
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  state.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return state;
}
