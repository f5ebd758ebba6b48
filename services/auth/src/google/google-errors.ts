import { SheetgateError } from '@sheetgate/service-runtime';
import { GaxiosError } from 'gaxios';

/**
 * Google could not be reached or failed (5xx, 429, network, timeout): the caller may retry. Never
 * a reason to ask the person to reconnect.
 */
export class GoogleUnavailableError extends SheetgateError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('unavailable', message, options);
    this.name = 'GoogleUnavailableError';
  }
}

/** The OAuth `error` code of a failed token-endpoint call (RFC 6749 §5.2), if Google sent one. */
export function oauthErrorCode(error: unknown): string | undefined {
  if (!(error instanceof GaxiosError)) return undefined;
  const data = error.response?.data as { error?: unknown } | undefined;
  return typeof data?.error === 'string' ? data.error : undefined;
}

/** Whether a failed Google call is transient: no answer at all, a 429 or a 5xx. */
export function isTransientGoogleError(error: unknown): boolean {
  if (!(error instanceof GaxiosError)) return false;
  const status = error.response?.status;
  return status === undefined || status === 429 || status >= 500;
}
