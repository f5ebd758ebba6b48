/**
 * What went wrong, in terms a caller can act on. Every Sheetgate service maps a kind the same way:
 * `jsonErrors` to an HTTP status, auth's gRPC handlers to a gRPC status.
 */
export type ErrorKind =
  /** The request itself is wrong; the message says what, and is fit to show. */
  | 'invalid_argument'
  /** No credential, or a wrong one. */
  | 'unauthenticated'
  /** A credential that may not do this (or a session that is gone). */
  | 'permission_denied'
  | 'not_found'
  /** The state the request needs is not the state there is (already exists, changed meanwhile). */
  | 'conflict'
  | 'rate_limited'
  /** A dependency (database, Redis, Google) is down or slow: retry shortly. */
  | 'unavailable'
  /** A bug or a broken invariant: nothing the caller can fix, no detail leaks. */
  | 'internal';

/**
 * The one base of Sheetgate's own errors. A subclass names the situation (`GoogleUnavailableError`,
 * `ApiKeyInputError`); its `kind` says how every transport answers it.
 */
export class SheetgateError extends Error {
  readonly kind: ErrorKind;
  constructor(kind: ErrorKind, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'SheetgateError';
    this.kind = kind;
  }
}

/** The kind of `error` if it is one of Sheetgate's, else undefined (an unexpected failure). */
export function errorKind(error: unknown): ErrorKind | undefined {
  return error instanceof SheetgateError ? error.kind : undefined;
}

/** Kinds whose message is written for the caller (the rest may carry internal detail). */
export const CALLER_FAULT_KINDS: ReadonlySet<ErrorKind> = new Set([
  'invalid_argument',
  'unauthenticated',
  'permission_denied',
  'not_found',
  'conflict',
  'rate_limited',
]);
