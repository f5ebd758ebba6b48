import Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import { z } from 'zod';
import { type FormFieldRules, readSentForm, singleValuedForm } from './form-body.ts';
import { HttpError } from './http-errors.ts';

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
type FormSchema = z.ZodObject;
type Validated<Schema, Otherwise> = Schema extends z.ZodType ? z.output<Schema> : Otherwise;

/** What a handler receives: params, query and form, each already through its schema. */
export interface RouteInput<Params, Query, Form> {
  params: Validated<Params, Record<string, string>>;
  query: Validated<Query, Record<string, string | string[] | undefined>>;
  form: Validated<Form, undefined>;
}

/**
 * One HTTP route as data (the shape of Logto's `koaGuard`): method, path with `:params`, and zod
 * schemas for what it takes. Input is checked before the handler runs: params that do not fit
 * name nothing (404), a query or form that does not fit is a 400 naming the field, never a 500.
 * `form` is an `application/x-www-form-urlencoded` body: a field whose schema is an array may
 * repeat, any other field sent twice is refused. `response` is the JSON body's shape, checked
 * outside production so a wrong shape fails a test rather than a client.
 */
export interface RouteDeclaration<
  Params extends z.ZodType | undefined = undefined,
  Query extends z.ZodType | undefined = undefined,
  Form extends FormSchema | undefined = undefined,
> {
  method: Method;
  path: string;
  params?: Params;
  query?: Query;
  form?: Form;
  response?: z.ZodType;
  /**
   * Runs on the form as sent, before its schema: a forged post (wrong origin, no CSRF token) is
   * refused as such whatever else its fields say. `field` is a field's value when sent once.
   * Throws to refuse; false ends the request as answered (a redirect to sign in).
   */
  checkForgery?(ctx: Context, field: (name: string) => string | undefined): boolean | Promise<boolean>;
  handle(ctx: Context, input: RouteInput<Params, Query, Form>): unknown;
}

// biome-ignore lint/suspicious/noExplicitAny: a list of routes holds routes of every input type
export type Route = RouteDeclaration<any, any, any>;

/** Declares a route; the identity, there for the types it infers from the schemas. */
export function route<
  Params extends z.ZodType | undefined = undefined,
  Query extends z.ZodType | undefined = undefined,
  Form extends FormSchema | undefined = undefined,
>(declaration: RouteDeclaration<Params, Query, Form>): Route {
  return declaration;
}

/**
 * A query parameter sent at most once; sent several times it counts as absent (a link Sheetgate
 * wrote never repeats one).
 */
export const singleQueryValue = z.preprocess(
  (value) => (Array.isArray(value) ? undefined : value),
  z.string().optional(),
);

const describeIssues = (error: z.ZodError) =>
  error.issues
    .map((issue) => (issue.path.length ? `${issue.path.join('.')}: ${issue.message}` : issue.message))
    .join('; ');

/** The form's fields, and those that may repeat: whose schema (under optional/default) is an array. */
function formFieldRules(form: FormSchema): FormFieldRules {
  const lists = new Set<string>();
  for (const [name, field] of Object.entries(form.shape)) {
    let def = (field as z.ZodType)._zod.def as { type: string; innerType?: z.ZodType };
    while (def.innerType && def.type !== 'array') def = def.innerType._zod.def as typeof def;
    if (def.type === 'array') lists.add(name);
  }
  return { fields: new Set(Object.keys(form.shape)), lists };
}

function guarded(declaration: Route, checkResponses: boolean): Middleware {
  const rules = declaration.form ? formFieldRules(declaration.form) : undefined;
  return async (ctx) => {
    // Set by the router: the path's `:params`, decoded.
    let params: unknown = (ctx as Context & { params: Record<string, string> }).params;
    if (declaration.params) {
      const parsed = declaration.params.safeParse(params);
      if (!parsed.success) throw new HttpError(404, 'not_found', 'no such route');
      params = parsed.data;
    }
    let query: unknown = ctx.query;
    if (declaration.query) {
      const parsed = declaration.query.safeParse(ctx.query);
      if (!parsed.success) throw new HttpError(400, 'invalid_request', describeIssues(parsed.error));
      query = parsed.data;
    }
    let form: unknown;
    if (declaration.form && rules) {
      const sent = await readSentForm(ctx, rules.fields);
      const field = (name: string) => (sent[name]?.length === 1 ? sent[name][0] : undefined);
      if (declaration.checkForgery && !(await declaration.checkForgery(ctx, field))) return;
      const parsed = declaration.form.safeParse(singleValuedForm(sent, rules.lists));
      if (!parsed.success) throw new HttpError(400, 'invalid_request', describeIssues(parsed.error));
      form = parsed.data;
    } else if (declaration.checkForgery && !(await declaration.checkForgery(ctx, () => undefined))) {
      // A route without a form body is checked for forgery all the same.
      return;
    }
    await declaration.handle(ctx, { params, query, form } as RouteInput<never, never, never>);
    if (declaration.response && checkResponses) {
      const checked = declaration.response.safeParse(ctx.body);
      if (!checked.success)
        throw new Error(
          `${declaration.method} ${declaration.path} answered a body its response schema refuses: ${describeIssues(checked.error)}`,
        );
    }
  };
}

/**
 * One middleware answering every declared route; a request for none of them goes on to `next`. A
 * known path asked with another method is a 405 naming the allowed ones. Paths match exactly as
 * declared: no trailing slash, same case.
 */
export function routeMiddleware(
  routes: readonly Route[],
  options: { checkResponses?: boolean } = {},
): Middleware {
  const checkResponses = options.checkResponses ?? process.env.NODE_ENV !== 'production';
  const router = new Router({ strict: true, sensitive: true });
  const methodsByPath = new Map<string, Method[]>();
  for (const declaration of routes) {
    router.register(declaration.path, [declaration.method], guarded(declaration, checkResponses));
    methodsByPath.set(declaration.path, [...(methodsByPath.get(declaration.path) ?? []), declaration.method]);
  }
  for (const [path, methods] of methodsByPath) {
    const allow = methods.includes('GET') ? [...methods, 'HEAD'] : methods;
    router.all(path, () => {
      throw new HttpError(405, 'method_not_allowed', `use ${methods.join(' or ')}`, {
        allow: allow.join(', '),
      });
    });
  }
  return router.routes() as Middleware;
}
