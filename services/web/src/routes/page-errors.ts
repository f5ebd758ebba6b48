import { GrpcStatus, isServiceError } from '@sheetgate/proto';
import { HttpError, type Logger } from '@sheetgate/service-runtime';
import type { Middleware } from 'koa';
import { messagePage } from '../pages/message-page.ts';

/** A refusal a person reads: a status, a title, what happened and where to go next. */
export class PageError extends Error {
  readonly status: number;
  readonly title: string;
  readonly next: { href: string; label: string } | undefined;
  constructor(status: number, title: string, text: string, next?: { href: string; label: string }) {
    super(text);
    this.name = 'PageError';
    this.status = status;
    this.title = title;
    this.next = next;
  }
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
      if (isServiceError(error, GrpcStatus.PERMISSION_DENIED)) {
        ctx.status = 303;
        ctx.redirect(ctx.method === 'GET' ? `/login?return_to=${encodeURIComponent(ctx.path)}` : '/login');
        return;
      }
      let page: PageError;
      if (error instanceof PageError) page = error;
      else if (error instanceof HttpError) {
        page = new PageError(error.status, 'Request refused', error.message);
        ctx.set(error.headers);
      } else if (
        isServiceError(error, GrpcStatus.UNAVAILABLE) ||
        isServiceError(error, GrpcStatus.DEADLINE_EXCEEDED)
      ) {
        logger.warn({ err: error, path: ctx.path }, 'account service unavailable');
        page = new PageError(
          503,
          'Sheetgate is unavailable',
          'Sheetgate could not reach its account service. Nothing was changed; try again in a moment.',
        );
        ctx.set('retry-after', '5');
      } else {
        logger.error({ err: error, method: ctx.method, path: ctx.path }, 'page failed');
        page = new PageError(500, 'Something went wrong', 'Sheetgate could not show this page. Try again.');
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
