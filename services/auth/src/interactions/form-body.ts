import querystring from 'node:querystring';
import { HttpError } from '@sheetgate/service-runtime';
import type { Context } from 'koa';

const LIMIT = 16 * 1024;

/** Reads a small `application/x-www-form-urlencoded` body (the only kind our forms post). */
export async function readFormBody(ctx: Context): Promise<Record<string, string>> {
  if (!ctx.is('application/x-www-form-urlencoded')) {
    throw new HttpError(415, 'invalid_request', 'expected an application/x-www-form-urlencoded form');
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req) {
    size += (chunk as Buffer).length;
    if (size > LIMIT) throw new HttpError(413, 'invalid_request', 'form too large');
    chunks.push(chunk as Buffer);
  }
  const parsed = querystring.parse(Buffer.concat(chunks).toString('utf8'));
  const form: Record<string, string> = {};
  for (const [key, value] of Object.entries(parsed)) {
    if (typeof value === 'string') form[key] = value;
  }
  return form;
}
