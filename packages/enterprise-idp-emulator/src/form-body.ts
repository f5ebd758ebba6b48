import type { Context } from 'koa';
import { OAuthError } from './oauth-error.ts';

const MAX_FORM_BYTES = 64 * 1024;

/** An `application/x-www-form-urlencoded` body (refused over 64 KiB), or no fields for any other type. */
export async function readForm(ctx: Context): Promise<URLSearchParams> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req) {
    size += (chunk as Buffer).length;
    if (size > MAX_FORM_BYTES) throw new OAuthError('invalid_request', 'the request body is too large', 413);
    chunks.push(chunk as Buffer);
  }
  if (!ctx.is('application/x-www-form-urlencoded')) return new URLSearchParams();
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

/** The one value of a form field; a field sent twice is refused (RFC 6749 §3.1). */
export function single(form: URLSearchParams, name: string): string | undefined {
  const values = form.getAll(name);
  if (values.length > 1) throw new OAuthError('invalid_request', `${name} was sent more than once`);
  return values[0] || undefined;
}
