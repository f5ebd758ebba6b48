import type { Context } from 'koa';

/** Uploads above this are refused; the emulator keeps everything in memory. */
export const MAX_BODY_BYTES = 64 * 1024 * 1024;

const bodies = new WeakMap<Context, Buffer>();

/** The raw request body, read once per request (uploads need the bytes, forms and JSON the text). */
export async function readRawBody(ctx: Context): Promise<Buffer> {
  const cached = bodies.get(ctx);
  if (cached) return cached;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) ctx.throw(413, 'request body too large');
    chunks.push(chunk as Buffer);
  }
  const body = Buffer.concat(chunks);
  bodies.set(ctx, body);
  return body;
}

/** An `application/x-www-form-urlencoded` body (OAuth endpoints), or empty params for any other type. */
export async function readFormBody(ctx: Context): Promise<URLSearchParams> {
  const raw = await readRawBody(ctx);
  if (!ctx.is('application/x-www-form-urlencoded')) return new URLSearchParams();
  return new URLSearchParams(raw.toString('utf8'));
}

/** A JSON body, or `undefined` when the body is empty. Throws SyntaxError on malformed JSON. */
export async function readJsonBody(ctx: Context): Promise<unknown> {
  const raw = await readRawBody(ctx);
  const text = raw.toString('utf8').trim();
  return text === '' ? undefined : JSON.parse(text);
}
