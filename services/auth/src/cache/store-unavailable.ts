import { SheetgateError } from '@sheetgate/service-runtime';
import { isDatabaseUnavailable } from '../db/pool.ts';

/**
 * A store auth keeps shared, losable state in (Redis: the cache, the provider's short-lived models,
 * the revocation version) could not do what was asked — unreachable, timed out or refusing. Not a
 * bug in the request: callers answer "try again shortly" (gRPC UNAVAILABLE, HTTP 503), not a 500.
 */
export class StoreUnavailableError extends SheetgateError {
  constructor(message: string, cause: unknown) {
    super('unavailable', message, { cause });
    this.name = 'StoreUnavailableError';
  }
}

/**
 * Whether `error`, or an error it was raised from, says a store auth needs is down: Redis (a
 * StoreUnavailableError) or PostgreSQL (down, restarting or unreachable). Answered "try again"
 * (HTTP 503, gRPC UNAVAILABLE), never as a bug.
 */
export function isStoreOutage(error: unknown): boolean {
  for (let current = error; current instanceof Error; current = current.cause) {
    if (current instanceof StoreUnavailableError || isDatabaseUnavailable(current)) return true;
  }
  return false;
}
