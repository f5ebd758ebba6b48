import type { Middleware } from 'koa';
import type { Logger } from './logger.ts';

/** The one error type a handler throws to answer with a status and a JSON error body. */
export class HttpError extends Error {
  readonly status: number;
  readonly code: string;
  readonly headers: Record<string, string>;
  constructor(status: number, code: string, message: string, headers: Record<string, string> = {}) {
    super(message);
    this.name = 'HttpError';
    this.status = status;
    this.code = code;
    this.headers = headers;
  }
}

/**
 * Turns `HttpError` into `{"error": code, "error_description": message}` (the OAuth error shape,
 * which every Sheetgate JSON error uses) and anything else into a bare 500 that leaks no detail.
 */
export function jsonErrors(logger: Logger): Middleware {
  return async (ctx, next) => {
    try {
      await next();
    } catch (error) {
      if (error instanceof HttpError) {
        ctx.status = error.status;
        ctx.set(error.headers);
        ctx.body = { error: error.code, error_description: error.message };
        return;
      }
      const status = (error as { status?: number; expose?: boolean }).status;
      if (
        typeof status === 'number' &&
        status >= 400 &&
        status < 500 &&
        (error as { expose?: boolean }).expose
      ) {
        ctx.status = status;
        ctx.body = { error: 'invalid_request', error_description: (error as Error).message };
        return;
      }
      logger.error({ err: error, method: ctx.method, path: ctx.path }, 'unhandled error');
      ctx.status = 500;
      ctx.body = { error: 'server_error', error_description: 'internal error' };
    }
  };
}
