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

/** An error's HTTP answer: status, extra headers and the JSON body. */
export interface JsonErrorAnswer {
  status: number;
  headers: Record<string, string>;
  body: { error: string; error_description: string };
}

/**
 * The one mapper from errors to HTTP answers, `{"error": code, "error_description": message}`
 * (the OAuth error shape, which every Sheetgate JSON error uses): an `HttpError` as it says; any
 * other `SheetgateError` by its kind (a caller's fault with its message, `unavailable` as a 503
 * without detail); anything else a bare 500 that leaks no detail. `request` names the request in
 * the log line written for what is not the caller's fault.
 */
export function jsonErrorAnswer(
  error: unknown,
  logger: Logger,
  request: { method: string; path: string },
): JsonErrorAnswer {
  if (error instanceof HttpError) {
    return {
      status: error.status,
      headers: error.headers,
      body: { error: error.code, error_description: error.message },
    };
  }
  if (error instanceof SheetgateError && error.kind !== 'internal') {
    const { status, code } = HTTP_ANSWERS[error.kind];
    const shown = CALLER_FAULT_KINDS.has(error.kind);
    if (!shown) logger.warn({ err: error, ...request }, 'dependency unavailable');
    return {
      status,
      // As every other Sheetgate 503 says (auth's store outages, mcp, web's pages).
      headers: shown ? {} : { 'retry-after': String(UNAVAILABLE_RETRY_AFTER_SECONDS) },
      body: {
        error: code,
        error_description: shown ? error.message : 'temporarily unavailable; try again shortly',
      },
    };
  }
  const status = (error as { status?: number; expose?: boolean }).status;
  if (typeof status === 'number' && status >= 400 && status < 500 && (error as { expose?: boolean }).expose) {
    return {
      status,
      headers: {},
      body: { error: 'invalid_request', error_description: (error as Error).message },
    };
  }
  logger.error({ err: error, ...request }, 'unhandled error');
  return { status: 500, headers: {}, body: { error: 'server_error', error_description: 'internal error' } };
}

/** `jsonErrorAnswer` as Koa middleware: what the routes after it throw becomes its answer. */
export function jsonErrors(logger: Logger): Middleware {
  return async (ctx, next) => {
    try {
      await next();
    } catch (error) {
      const answer = jsonErrorAnswer(error, logger, { method: ctx.method, path: ctx.path });
      ctx.status = answer.status;
      ctx.set(answer.headers);
      ctx.body = answer.body;
    }
  };
}
