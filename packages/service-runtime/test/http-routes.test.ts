import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { HttpError, jsonErrors } from '../src/http-errors.ts';
import { route, routeMiddleware, singleQueryValue } from '../src/http-routes.ts';
import { closeHttpServer } from '../src/http-server.ts';
import { createLogger } from '../src/logger.ts';

let server: http.Server;
let base: string;
const forgeryChecks: string[] = [];

const routes = [
  route({
    method: 'GET',
    path: '/things/:id',
    params: z.object({ id: z.string().regex(/^[a-z]{1,8}$/) }),
    query: z.object({ tab: singleQueryValue, page: z.coerce.number().int().positive().optional() }),
    response: z.object({ id: z.string(), tab: z.string().nullable(), page: z.number().nullable() }),
    handle(ctx, { params, query }) {
      ctx.body = { id: params.id, tab: query.tab ?? null, page: query.page ?? null };
    },
  }),
  route({
    method: 'GET',
    path: '/broken',
    response: z.object({ ok: z.literal(true) }),
    handle(ctx) {
      ctx.body = { ok: 'yes' };
    },
  }),
  route({
    method: 'POST',
    path: '/things/:id',
    params: z.object({ id: z.string() }),
    form: z.object({ csrf: z.string().optional(), name: z.string().min(1), tags: z.array(z.string()) }),
    checkForgery(_ctx, field) {
      forgeryChecks.push(field('csrf') ?? '(none)');
      if (field('csrf') !== 'good') throw new HttpError(403, 'forged', 'not from our page');
      return true;
    },
    handle(ctx, { params, form }) {
      ctx.status = 201;
      ctx.body = { id: params.id, name: form.name, tags: form.tags };
    },
  }),
];

beforeAll(async () => {
  const app = new Koa();
  const logger = createLogger({ service: 'test', level: 'silent' });
  app.use(jsonErrors(logger));
  app.use(routeMiddleware(routes, { checkResponses: true }));
  app.use((ctx) => {
    ctx.status = 404;
    ctx.body = { fellThrough: ctx.path };
  });
  server = http.createServer(app.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => closeHttpServer(server));

const get = async (path: string) => {
  const response = await fetch(`${base}${path}`);
  return {
    status: response.status,
    json: (await response.json()) as Record<string, unknown>,
    allow: response.headers.get('allow'),
  };
};
const post = async (path: string, body: string) => {
  const response = await fetch(`${base}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body,
  });
  return { status: response.status, json: (await response.json()) as Record<string, unknown> };
};

describe('declared routes', () => {
  it('hand the handler its params, query and form, each through its schema', async () => {
    expect(await get('/things/abc?tab=keys&page=2')).toMatchObject({
      status: 200,
      json: { id: 'abc', tab: 'keys', page: 2 },
    });
    expect((await get('/things/abc?tab=a&tab=b')).json).toEqual({ id: 'abc', tab: null, page: null });
    expect(await post('/things/abc', 'csrf=good&name=n&tags=a&tags=b')).toEqual({
      status: 201,
      json: { id: 'abc', name: 'n', tags: ['a', 'b'] },
    });
  });

  it('answer params that do not fit with 404, a query or form that does not fit with a 400 naming the field', async () => {
    expect(await get('/things/ABC')).toMatchObject({
      status: 404,
      json: { error: 'not_found', error_description: 'no such route' },
    });
    expect(await get('/things/abc?page=-1')).toMatchObject({
      status: 400,
      json: { error: 'invalid_request', error_description: expect.stringMatching(/^page: /) },
    });
    expect(await post('/things/abc', 'csrf=good&name=')).toMatchObject({
      status: 400,
      json: { error: 'invalid_request', error_description: expect.stringMatching(/^name: /) },
    });
    expect((await post('/things/abc', 'csrf=good&name=a&name=b')).json).toEqual({
      error: 'invalid_request',
      error_description: 'the form field "name" was sent more than once',
    });
  });

  it('run the forgery check on the form as sent, before its schema', async () => {
    forgeryChecks.length = 0;
    expect(await post('/things/abc', 'name=a&name=b')).toMatchObject({
      status: 403,
      json: { error: 'forged' },
    });
    expect(await post('/things/abc', 'csrf=good&csrf=good&name=a')).toMatchObject({ status: 403 });
    expect(forgeryChecks).toEqual(['(none)', '(none)']);
  });

  it('answer a known path asked with another method with 405 and Allow', async () => {
    const response = await fetch(`${base}/things/abc`, { method: 'DELETE' });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('GET, POST, HEAD');
    expect(await response.json()).toEqual({
      error: 'method_not_allowed',
      error_description: 'use GET or POST',
    });
  });

  it('leave other paths, and declared ones spelt otherwise, to the next middleware', async () => {
    for (const path of ['/elsewhere', '/things/abc/', '/Things/abc']) {
      expect(await get(path)).toMatchObject({ status: 404, json: { fellThrough: path } });
    }
  });

  it('fail loudly (500) when a response does not fit its schema while responses are checked', async () => {
    expect(await get('/broken')).toMatchObject({ status: 500, json: { error: 'server_error' } });
  });
});
