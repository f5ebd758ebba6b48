import { HttpError } from '@sheetgate/service-runtime';
import type { Context } from 'koa';

const LIMIT = 16 * 1024;

/** Reads a small `application/x-www-form-urlencoded` body, the only kind the pages post. */
export async function readFormBody(ctx: Context): Promise<Record<string, string>> {
  if (!ctx.is('application/x-www-form-urlencoded')) {
    throw new HttpError(415, 'invalid_request', 'This form must be sent by the page it came from.');
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req) {
    size += (chunk as Buffer).length;
    if (size > LIMIT) throw new HttpError(413, 'invalid_request', 'The form is too large.');
    chunks.push(chunk as Buffer);
  }
  const form: Record<string, string> = {};
  // A field sent twice keeps its first value: nothing here takes lists.
  for (const [key, value] of new URLSearchParams(Buffer.concat(chunks).toString('utf8'))) {
    if (!(key in form)) form[key] = value;
  }
  return form;
}
