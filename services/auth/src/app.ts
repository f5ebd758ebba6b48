import {
  HttpError,
  healthRoutes,
  jsonErrors,
  type Logger,
  notImplemented,
  type ReadinessCheck,
  requestLog,
} from '@sheetgate/service-runtime';
import Koa from 'koa';

/**
 * The auth service's HTTP app. The OAuth provider, Google sign-in and interaction routes arrive
 * with the authorization-server issue; until then their paths answer 501, never a fake success.
 */
export function createAuthApp(options: { logger: Logger; readiness: ReadinessCheck[] }): Koa {
  const app = new Koa({ proxy: false });
  app.use(healthRoutes(options.readiness));
  app.use(requestLog(options.logger));
  app.use(jsonErrors(options.logger));
  app.use(async (ctx) => {
    const path = ctx.path;
    if (path.startsWith('/.well-known/openid-configuration')) notImplemented('OpenID discovery');
    if (path.startsWith('/.well-known/oauth-authorization-server'))
      notImplemented('authorization server metadata');
    if (path === '/api/auth' || path.startsWith('/api/auth/')) notImplemented(`${ctx.method} ${path}`);
    throw new HttpError(404, 'not_found', 'no such route');
  });
  return app;
}
