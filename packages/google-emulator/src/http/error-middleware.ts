import type { Logger } from '@sheetgate/service-runtime';
import type { Middleware } from 'koa';
import { AdminInputError } from '../admin/admin-routes.ts';
import { GoogleApiError, googleErrors } from '../google-error.ts';
import { OAuthError } from '../oauth/oauth-error.ts';

/**
 * The one place errors become responses: Google's JSON error shape for the APIs, OAuth's shape for
 * the OAuth endpoints, a 400 for bad admin input, and a bare 500 (logged) for anything unexpected.
 */
export function emulatorErrors(logger: Logger): Middleware {
  return async (ctx, next) => {
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) {
        throw googleErrors.notFound(`Method not found: ${ctx.method} ${ctx.path}`);
      }
    } catch (error) {
      if (error instanceof GoogleApiError) {
        ctx.status = error.code;
        ctx.set(error.headers);
        ctx.body = error.toJSON();
      } else if (error instanceof OAuthError) {
        ctx.status = error.status;
        ctx.body = error.toJSON();
      } else if (error instanceof AdminInputError) {
        ctx.status = 400;
        ctx.body = { error: 'invalid_request', error_description: error.message };
      } else if (isHttpError(error) && error.status < 500) {
        ctx.status = error.status;
        ctx.body = new GoogleApiError({
          code: error.status,
          status: 'INVALID_ARGUMENT',
          message: error.message,
          reason: 'badRequest',
        }).toJSON();
      } else {
        logger.error({ err: error, method: ctx.method, path: ctx.path }, 'unexpected error');
        const internal = googleErrors.internal();
        ctx.status = 500;
        ctx.body = internal.toJSON();
      }
    }
  };
}

function isHttpError(error: unknown): error is { status: number; message: string } {
  return (
    typeof error === 'object' && error !== null && typeof (error as { status?: unknown }).status === 'number'
  );
}
