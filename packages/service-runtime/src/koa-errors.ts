import type Koa from 'koa';
import type { Logger } from './logger.ts';

/**
 * Sends the errors Koa reports itself — those no middleware caught, such as a client resetting
 * the connection mid-request (`read ECONNRESET`) — to the service's redacting JSON logger.
 * Without a listener, Koa's own handler prints their stack traces to stderr as plain text.
 * `silent` also quiets that handler on an app whose `callback()` already ran (oidc-provider's).
 */
export function logKoaErrors(app: Koa, logger: Logger): void {
  app.silent = true;
  app.on('error', (error: Error & { status?: number; expose?: boolean }, ctx?: Koa.Context) => {
    // What Koa's own handler leaves out too: answers the client was meant to see.
    if (error.status === 404 || error.expose) return;
    logger.warn({ err: error, method: ctx?.method, path: ctx?.path }, 'request error');
  });
}
