import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import { describe, expect, it } from 'vitest';
import { SESSION_COOKIE, sessionCookie } from '../src/browser-cookies.ts';

describe('the session cookie', () => {
  async function serve(secure: boolean) {
    const app = new Koa();
    app.use(async (ctx) => {
      if (ctx.path === '/set') sessionCookie.set(ctx, 'value-1', new Date(Date.now() + 60_000), secure);
      else if (ctx.path === '/clear') sessionCookie.clear(ctx, secure);
      ctx.body = { read: sessionCookie.read(ctx) ?? null };
    });
    const server = createServer(app.callback());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return { base, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
  }

  it('is HttpOnly, SameSite=Lax, Path=/, and Secure when BASE_URL is https (even behind a TLS-ending hop)', async () => {
    const secure = await serve(true);
    const plain = await serve(false);
    try {
      const setSecure = (await fetch(`${secure.base}/set`)).headers.get('set-cookie')!;
      expect(setSecure).toMatch(new RegExp(`^${SESSION_COOKIE}=value-1;`));
      expect(setSecure).toMatch(/; path=\//);
      expect(setSecure).toMatch(/; expires=/);
      expect(setSecure).toMatch(/; samesite=lax/);
      expect(setSecure).toMatch(/; secure/);
      expect(setSecure).toMatch(/; httponly/);
      const setPlain = (await fetch(`${plain.base}/set`)).headers.get('set-cookie')!;
      expect(setPlain).not.toMatch(/; secure/);
      expect(setPlain).toMatch(/; httponly/);

      const read = await fetch(`${plain.base}/read`, { headers: { cookie: `${SESSION_COOKIE}=abc` } });
      expect(await read.json()).toEqual({ read: 'abc' });
      const cleared = (await fetch(`${secure.base}/clear`)).headers.get('set-cookie')!;
      expect(cleared).toMatch(new RegExp(`^${SESSION_COOKIE}=;`));
      expect(cleared).toMatch(/expires=Thu, 01 Jan 1970/);
    } finally {
      await secure.close();
      await plain.close();
    }
  });
});
