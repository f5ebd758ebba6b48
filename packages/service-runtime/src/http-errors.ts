import type { Middleware } from 'koa';
import { CALLER_FAULT_KINDS, type ErrorKind, SheetgateError } from './errors.ts';
import type { Logger } from './logger.ts';

/** How long a client should wait before retrying an `unavailable` answer. */
const UNAVAILABLE_RETRY_AFTER_SECONDS = 5;

/** The HTTP status and OAuth-style `error` code each kind answers with (JSON errors and pages alike). */
export const HTTP_ANSWERS: Record<ErrorKind, { status: number; code: string }> = {
  invalid_argument: { status: 400, code: 'invalid_request' },
  unauthenticated: { status: 401, code: 'unauthenticated' },
  permission_denied: { status: 403, code: 'access_denied' },
  not_found: { status: 404, code: 'not_found' },
  conflict: { status: 409, code: 'conflict' },
  rate_limited: { status: 429, code: 'rate_limited' },
  unavailable: { status: 503, code: 'temporarily_unavailable' },
  internal: { status: 500, code: 'server_error' },
};

/** The kind an HTTP error status means: the inverse of `HTTP_ANSWERS`, for errors made from a status. */
export function kindOfHttpStatus(status: number): ErrorKind {
  switch (status) {
    case 401:
      return 'unauthenticated';
    case 403:
      return 'permission_denied';
    case 404:
      return 'not_found';
    case 409:
      return 'conflict';
    case 429:
      return 'rate_limited';
    case 502:
    case 503:
    case 504:
      return 'unavailable';
    default:
      return status >= 500 ? 'internal' : 'invalid_argument';
  }
}

/**
 * The error a route throws to answer with exactly this status, `error` code and headers; its
 * `kind` follows from the status. For an error that means the same on every transport, throw a
 * `SheetgateError` of the right kind instead.
 */
export class HttpError extends SheetgateError {
  readonly status: number;
  readonly code: string;
  readonly headers: Record<string, string>;
  constructor(status: number, code: string, message: string, headers: Record<string, string> = {}) {
    super(kindOfHttpStatus(status), message);
    this.name = 'HttpError';
    this.status = status;
    this.code = code;
    this.headers = headers;
  }
}

/**
 * The one mapper from errors to HTTP answers, `{"error": code, "error_description": message}`
 * (the OAuth error shape, which every Sheetgate JSON error uses): an `HttpError` as it says; any
 * other `SheetgateError` by its kind (a caller's fault with its message, `unavailable` as a 503
 * without detail); anything else a bare 500 that leaks no detail.
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
      if (error instanceof SheetgateError && error.kind !== 'internal') {
        const { status, code } = HTTP_ANSWERS[error.kind];
        const shown = CALLER_FAULT_KINDS.has(error.kind);
        if (!shown) {
          logger.warn({ err: error, method: ctx.method, path: ctx.path }, 'dependency unavailable');
          // As every other Sheetgate 503 says (auth's store outages, mcp, web's pages).
          ctx.set('retry-after', String(UNAVAILABLE_RETRY_AFTER_SECONDS));
        }
        ctx.status = status;
        ctx.body = {
          error: code,
          error_description: shown ? error.message : 'temporarily unavailable; try again shortly',
        };
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
