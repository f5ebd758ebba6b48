import type { Context } from 'koa';
import { HttpError } from './http-errors.ts';
import { readBodyUpTo } from './request-body.ts';

/** Larger than any form Sheetgate's pages post. */
const FORM_LIMIT = 16 * 1024;

/** Every value sent for each field a route reads. */
export type SentFormFields = Record<string, string[]>;
export type FormFields = Record<string, string | string[]>;

/** The fields a route reads from a form, and which of them may repeat. */
export interface FormFieldRules {
  fields: ReadonlySet<string>;
  lists: ReadonlySet<string>;
}

/**
 * Reads a small `application/x-www-form-urlencoded` body, the only kind Sheetgate's forms post:
 * every value of each field in `fields`; fields the route does not read are dropped unread.
 */
export async function readSentForm(ctx: Context, fields: ReadonlySet<string>): Promise<SentFormFields> {
  if (!ctx.is('application/x-www-form-urlencoded')) {
    throw new HttpError(415, 'invalid_request', 'expected an application/x-www-form-urlencoded form');
  }
  const body = await readBodyUpTo(ctx.req, FORM_LIMIT);
  // Past the limit the rest of the body may not have been read: the connection cannot carry
  // another request.
  if (!body) throw new HttpError(413, 'invalid_request', 'form too large', { connection: 'close' });
  // No prototype: a field named `__proto__` or `constructor` is just a field.
  const sent: SentFormFields = Object.create(null);
  for (const [name, value] of new URLSearchParams(body.toString('utf8'))) {
    if (!fields.has(name)) continue;
    const values = sent[name];
    if (values) values.push(value);
    else sent[name] = [value];
  }
  return sent;
}

/**
 * A field in `lists` may repeat and is always a list (empty when absent); any other field sent
 * twice is refused (400) rather than silently reduced to its first or last value, which the
 * browser and a proxy in between could disagree about.
 */
export function singleValuedForm(sent: SentFormFields, lists: ReadonlySet<string>): FormFields {
  const form: FormFields = Object.create(null);
  for (const name of lists) form[name] = sent[name] ?? [];
  for (const [name, values] of Object.entries(sent)) {
    if (lists.has(name)) continue;
    if (values.length > 1)
      throw new HttpError(400, 'invalid_request', `the form field "${name}" was sent more than once`);
    form[name] = values[0]!;
  }
  return form;
}

/** `readSentForm` then `singleValuedForm`: the form a route declared, or a 400/413/415. */
export async function readFormBody(ctx: Context, rules: FormFieldRules): Promise<FormFields> {
  return singleValuedForm(await readSentForm(ctx, rules.fields), rules.lists);
}
