import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFormBody } from '../src/form-body.ts';
import { jsonErrors } from '../src/http-errors.ts';
import { closeHttpServer } from '../src/http-server.ts';
import { createLogger } from '../src/logger.ts';

let server: http.Server;
let base: string;

beforeAll(async () => {
  const app = new Koa();
  app.use(jsonErrors(createLogger({ service: 'test', level: 'silent' })));
  app.use(async (ctx) => {
    const form = await readFormBody(ctx, {
      fields: new Set(['name', 'scope', '__proto__']),
      lists: new Set(['scope']),
    });
    ctx.body = { form, prototype: Object.getPrototypeOf(form) === null };
  });
  server = http.createServer(app.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => closeHttpServer(server));

const send = async (body: string, contentType = 'application/x-www-form-urlencoded') => {
  const response = await fetch(base, { method: 'POST', headers: { 'content-type': contentType }, body });
  return {
    status: response.status,
    connection: response.headers.get('connection'),
    json: (await response.json()) as Record<string, unknown>,
  };
};

describe('the form body reader', () => {
  it('keeps the fields the route reads, lists always as lists, and drops the rest', async () => {
    const { status, json } = await send('name=Deploy+key&scope=a&scope=b&other=x&other=y');
    expect(status).toBe(200);
    expect(json).toEqual({ form: { name: 'Deploy key', scope: ['a', 'b'] }, prototype: true });
    expect((await send('name=x')).json).toMatchObject({ form: { name: 'x', scope: [] } });
  });

  it('refuses a field the route does not take as a list when it is sent twice (400)', async () => {
    for (const body of ['name=a&name=b', 'name=a&name=a', 'scope=a&name=&name=']) {
      const { status, json } = await send(body);
      expect(status).toBe(400);
      expect(json).toEqual({
        error: 'invalid_request',
        error_description: 'the form field "name" was sent more than once',
      });
    }
  });

  it('treats a field named __proto__ as a field', async () => {
    const { status, json } = await send('__proto__=x');
    expect(status).toBe(200);
    // JSON text: an object literal's `__proto__` would set the prototype instead.
    expect(JSON.stringify(json.form)).toBe('{"scope":[],"__proto__":"x"}');
  });

  it('answers a body that is not a form with 415', async () => {
    const { status, json } = await send('{"name":"x"}', 'application/json');
    expect(status).toBe(415);
    expect(json).toMatchObject({ error_description: 'expected an application/x-www-form-urlencoded form' });
  });

  it('answers a body over 16 KiB with 413 and closes the connection', async () => {
    const { status, connection, json } = await send(`name=${'a'.repeat(16 * 1024)}`);
    expect(status).toBe(413);
    expect(connection).toBe('close');
    expect(json).toEqual({ error: 'invalid_request', error_description: 'form too large' });
  });
});
