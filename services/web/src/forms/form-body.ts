import { HttpError, readBodyUpTo } from '@sheetgate/service-runtime';
import type { Context } from 'koa';

const LIMIT = 16 * 1024;

/** Reads a small `application/x-www-form-urlencoded` body, the only kind the pages post. */
export async function readFormBody(ctx: Context): Promise<Record<string, string>> {
  if (!ctx.is('application/x-www-form-urlencoded')) {
    throw new HttpError(415, 'invalid_request', 'This form must be sent by the page it came from.');
  }
  const body = await readBodyUpTo(ctx.req, LIMIT);
  // Past the limit the rest of the body may not have been read: the connection cannot carry
  // another request (as auth's forms and the MCP endpoint answer too).
  if (!body) throw new HttpError(413, 'invalid_request', 'The form is too large.', { connection: 'close' });
  const form: Record<string, string> = {};
  // A field sent twice keeps its first value: nothing here takes lists.
  for (const [key, value] of new URLSearchParams(body.toString('utf8'))) {
    if (!(key in form)) form[key] = value;
  }
  return form;
}
