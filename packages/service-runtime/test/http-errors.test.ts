import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import Koa from 'koa';
import { afterEach, describe, expect, it } from 'vitest';
import { type ErrorKind, errorKind, SheetgateError } from '../src/errors.ts';
import { HttpError, jsonErrors } from '../src/http-errors.ts';
import { closeHttpServer, listen } from '../src/http-server.ts';
import { createLogger } from '../src/logger.ts';

const servers: http.Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => closeHttpServer(server)));
});

/** What a Koa app behind `jsonErrors` answers when its route throws `error`, and what it logged. */
async function answerTo(error: unknown) {
  const lines: string[] = [];
  const logger = createLogger({
    service: 'test',
    level: 'info',
    destination: new Writable({
      write(chunk, _encoding, done) {
        lines.push(String(chunk));
        done();
      },
    }),
  });
  const app = new Koa();
  app.use(jsonErrors(logger));
  app.use(() => {
    throw error;
  });
  const server = http.createServer(app.callback());
  servers.push(server);
  await listen(server, 0, '127.0.0.1', 'TEST_PORT');
  const response = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
  // biome-ignore lint/suspicious/noExplicitAny: tests assert the shape with expect
  const body: any = await response.json();
  return { status: response.status, headers: response.headers, body, lines };
}

describe('jsonErrors, the one HTTP mapper', () => {
  it('answers an HttpError with exactly its status, code, message and headers', async () => {
    const { status, headers, body } = await answerTo(
      new HttpError(429, 'rate_limited', 'slow down', { 'retry-after': '7' }),
    );
    expect(status).toBe(429);
    expect(headers.get('retry-after')).toBe('7');
    expect(body).toEqual({ error: 'rate_limited', error_description: 'slow down' });
  });

  it.each<[ErrorKind, number, string]>([
    ['invalid_argument', 400, 'invalid_request'],
    ['unauthenticated', 401, 'unauthenticated'],
    ['permission_denied', 403, 'access_denied'],
    ['not_found', 404, 'not_found'],
    ['conflict', 409, 'conflict'],
    ['rate_limited', 429, 'rate_limited'],
  ])('answers a %s error with %i and its message', async (kind, expectedStatus, code) => {
    const { status, body } = await answerTo(new SheetgateError(kind, 'what the caller should know'));
    expect(status).toBe(expectedStatus);
    expect(body).toEqual({ error: code, error_description: 'what the caller should know' });
  });

  it('answers unavailable with 503, Retry-After and no internal detail, and logs it', async () => {
    const { status, headers, body, lines } = await answerTo(
      new SheetgateError('unavailable', 'db-7.internal:5432 refused the connection'),
    );
    expect(status).toBe(503);
    expect(headers.get('retry-after')).toBe('5');
    expect(body.error).toBe('temporarily_unavailable');
    expect(JSON.stringify(body)).not.toContain('db-7');
    expect(lines.join('')).toContain('db-7');
  });

  it('answers internal errors and anything unexpected with a bare 500 that leaks nothing', async () => {
    for (const error of [new SheetgateError('internal', 'invariant x broke'), new Error('secret detail')]) {
      const { status, body, lines } = await answerTo(error);
      expect(status).toBe(500);
      expect(body).toEqual({ error: 'server_error', error_description: 'internal error' });
      expect(lines.join('')).toContain('unhandled error');
    }
  });
});

describe('HttpError', () => {
  it.each<[number, ErrorKind]>([
    [400, 'invalid_argument'],
    [401, 'unauthenticated'],
    [403, 'permission_denied'],
    [404, 'not_found'],
    [409, 'conflict'],
    [413, 'invalid_argument'],
    [429, 'rate_limited'],
    [500, 'internal'],
    [503, 'unavailable'],
  ])('of status %i is a SheetgateError of kind %s', (status, kind) => {
    const error = new HttpError(status, 'code', 'message');
    expect(error).toBeInstanceOf(SheetgateError);
    expect(errorKind(error)).toBe(kind);
  });

  it('is told apart from errors that are not Sheetgate’s', () => {
    expect(errorKind(new Error('x'))).toBeUndefined();
    expect(errorKind('a string')).toBeUndefined();
  });
});
