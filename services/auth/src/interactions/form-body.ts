import querystring from 'node:querystring';
import { HttpError, readBodyUpTo } from '@sheetgate/service-runtime';
import type { Context } from 'koa';

const LIMIT = 16 * 1024;

/** Reads a small `application/x-www-form-urlencoded` body (the only kind our forms post). */
export async function readFormBody(ctx: Context): Promise<Record<string, string>> {
  if (!ctx.is('application/x-www-form-urlencoded')) {
    throw new HttpError(415, 'invalid_request', 'expected an application/x-www-form-urlencoded form');
  }
  const body = await readBodyUpTo(ctx.req, LIMIT);
  // Past the limit the rest of the body may not have been read: the connection cannot carry
  // another request (as resource-guard.ts does for the token endpoint).
  if (!body) throw new HttpError(413, 'invalid_request', 'form too large', { connection: 'close' });
  const parsed = querystring.parse(body.toString('utf8'));
  const form: Record<string, string> = {};
  for (const [key, value] of Object.entries(parsed)) {
    if (typeof value === 'string') form[key] = value;
  }
  return form;
}
