import type { AccountServiceClientApi, ChangeUndoClient, OutboundCeilingSettings } from '@sheetgate/proto';
import {
  HttpError,
  healthRoutes,
  jsonErrors,
  type Logger,
  logKoaErrors,
  type ReadinessCheck,
  requestLog,
  route,
  routeMiddleware,
} from '@sheetgate/service-runtime';
import Koa, { type Middleware } from 'koa';
import { assetRoutes } from './assets/assets.ts';
import { createFormTokens } from './forms/form-tokens.ts';
import { homePage } from './pages/home-page.ts';
import { activityRoutes } from './routes/activity-routes.ts';
import { apiKeyRoutes } from './routes/api-key-routes.ts';
import { APPROVAL_PATH_PREFIX, callApprovalRoutes } from './routes/call-approval-routes.ts';
import { connectedAppRoutes } from './routes/connected-app-routes.ts';
import { credentialChoiceRoutes } from './routes/credential-choice-routes.ts';
import { dashboardRoutes } from './routes/dashboard-routes.ts';
import type { DashboardDeps } from './routes/dashboard-view.ts';
import { legacySessionExchange } from './routes/legacy-session.ts';
import { PageError, pageErrors } from './routes/page-errors.ts';
import { pickedFileRoutes } from './routes/picked-file-routes.ts';
import type { PickerSettings } from './routes/picked-files-section.ts';
import { sendPage } from './routes/request-values.ts';
import { signInRoutes } from './routes/sign-in-routes.ts';
import { securityHeaders } from './security-headers.ts';

/**
 * Machine paths answer machines: unknown discovery documents, and near misses of the MCP endpoint
 * (`/api/mcp/`, `/api/mcp/tools`: the route table sends only `/api/mcp` itself to mcp), get JSON,
 * never an HTML page (docs/design.md §2).
 */
function machinePathsNotFound(logger: Logger, baseUrl: string): Middleware {
  const errors = jsonErrors(logger);
  return (ctx, next) => {
    if (ctx.path.startsWith('/api/mcp/')) {
      return errors(ctx, async () => {
        throw new HttpError(404, 'not_found', `no MCP endpoint here; it is ${baseUrl}/api/mcp`);
      });
    }
    if (!ctx.path.startsWith('/.well-known/')) return next();
    return errors(ctx, async () => {
      throw new HttpError(404, 'not_found', 'no such metadata document');
    });
  };
}

/**
 * The web service's HTTP app: `/`, `/login`, `/authorize`, `/dashboard` and its forms, the call
 * approval page (`/approve/<link>`), and the static assets. Everything it shows comes from auth's
 * AccountService, called with the browser's session cookie; the Activity page's Undo asks mcp's
 * ChangeUndoService, with the same cookie.
 */
export function createWebApp(options: {
  logger: Logger;
  baseUrl: string;
  accounts: AccountServiceClientApi;
  /** mcp's ChangeUndoService: the Activity page's Undo. */
  changeUndo: ChangeUndoClient;
  serviceToken: string;
  /** What /readyz checks (main.ts: auth's AccountService answers). */
  readiness: ReadinessCheck[];
  /** The Google Picker's settings (GOOGLE_SCOPE_MODE=picked-files). */
  picker?: PickerSettings | undefined;
  /** The operator's ceiling on outbound actions, shown on the dashboard when it forbids anything. */
  ceiling: OutboundCeilingSettings;
}): Koa {
  const { logger, baseUrl, accounts } = options;
  const app = new Koa({ proxy: false });
  logKoaErrors(app, logger);
  app.use(healthRoutes(options.readiness));
  app.use(requestLog(logger));
  app.use(securityHeaders({ noReferrerUnder: [APPROVAL_PATH_PREFIX] }));
  app.use(assetRoutes());
  app.use(machinePathsNotFound(logger, baseUrl));
  app.use(pageErrors(logger));
  app.use(legacySessionExchange({ accounts, baseUrl }));

  const home = homePage(baseUrl);
  const formTokens = createFormTokens(options.serviceToken);
  const dashboard: DashboardDeps = {
    accounts,
    formTokens,
    baseUrl,
    picker: options.picker,
    ceiling: options.ceiling,
  };
  app.use(
    routeMiddleware([
      route({ method: 'GET', path: '/', handle: (ctx) => sendPage(ctx, home) }),
      ...signInRoutes({ accounts }),
      ...activityRoutes({ accounts, changeUndo: options.changeUndo, formTokens, baseUrl }),
      ...dashboardRoutes(dashboard),
      ...apiKeyRoutes(dashboard),
      ...connectedAppRoutes(dashboard),
      ...credentialChoiceRoutes(dashboard),
      ...pickedFileRoutes(dashboard),
      ...callApprovalRoutes({ accounts, formTokens, baseUrl, serviceToken: options.serviceToken }),
    ]),
  );
  app.use(() => {
    throw new PageError(404, 'Page not found', 'There is no page at this address.', {
      href: '/',
      label: 'Go to the home page',
    });
  });
  return app;
}
