import { kindOfCallError } from '@sheetgate/proto';
import {
  type ErrorKind,
  errorKind,
  HTTP_ANSWERS,
  HttpError,
  kindOfHttpStatus,
  type Logger,
  SheetgateError,
} from '@sheetgate/service-runtime';
import type { Middleware } from 'koa';
import { messagePage } from '../pages/message-page.ts';

/** A refusal a person reads: a status, a title, what happened and where to go next. */
export class PageError extends SheetgateError {
  readonly status: number;
  readonly title: string;
  readonly next: { href: string; label: string } | undefined;
  constructor(status: number, title: string, text: string, next?: { href: string; label: string }) {
    super(kindOfHttpStatus(status), text);
    this.name = 'PageError';
    this.status = status;
    this.title = title;
    this.next = next;
  }
}

/**
 * The page for a failure that is not a PageError, by its kind: Sheetgate's own errors carry one,
 * auth's answers over gRPC are read back to one (`kindOfCallError`), anything else is `internal`.
 */
function pageFor(kind: ErrorKind, error: unknown): PageError {
  const { status } = HTTP_ANSWERS[kind];
  if (error instanceof HttpError) return new PageError(error.status, 'Request refused', error.message);
  if (kind === 'unavailable')
    return new PageError(
      status,
      'Sheetgate is unavailable',
      'Sheetgate could not reach its account service. Nothing was changed; try again in a moment.',
    );
  return new PageError(500, 'Something went wrong', 'Sheetgate could not show this page. Try again.');
}

/**
 * Turns failures on the page routes into HTML pages: no session (auth's PERMISSION_DENIED) sends
 * the browser to sign in, auth unreachable is a 503 page, anything unexpected a 500 page that
 * leaks nothing (the detail goes to the log).
 */
export function pageErrors(logger: Logger): Middleware {
  return async (ctx, next) => {
    try {
      await next();
    } catch (error) {
      ctx.set('cache-control', 'no-store');
      const kind = errorKind(error) ?? kindOfCallError(error) ?? 'internal';
      if (!(error instanceof SheetgateError) && kind === 'permission_denied') {
        // Auth found no signed-in session for the cookie.
        ctx.status = 303;
        ctx.redirect(ctx.method === 'GET' ? `/login?return_to=${encodeURIComponent(ctx.path)}` : '/login');
        return;
      }
      const page = error instanceof PageError ? error : pageFor(kind, error);
      if (error instanceof HttpError) ctx.set(error.headers);
      else if (kind === 'unavailable') {
        logger.warn({ err: error, path: ctx.path }, 'account service unavailable');
        ctx.set('retry-after', '5');
      } else if (!(error instanceof PageError)) {
        logger.error({ err: error, method: ctx.method, path: ctx.path }, 'page failed');
      }
      ctx.status = page.status;
      ctx.type = 'html';
      ctx.body = messagePage({
        title: page.title,
        text: page.message,
        ...(page.next ? { next: page.next } : {}),
      });
    }
  };
}
