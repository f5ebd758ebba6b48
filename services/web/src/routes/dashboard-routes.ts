import { type Route, route, singleQueryValue } from '@sheetgate/service-runtime';
import { z } from 'zod';
import { type DashboardDeps, dashboardRenderer, signedIn } from './dashboard-view.ts';

/**
 * `GET /dashboard`. Its forms have route modules of their own (api-key-routes.ts,
 * connected-app-routes.ts, picked-file-routes.ts), listed beside this one in app.ts's route table.
 * Every POST there is checked twice before its fields are read: Fetch Metadata / Origin say it
 * came from our own page, and web's CSRF token (bound to the session cookie) says it came from a
 * form web rendered for this session. The posts to auth (sign-out) carry auth's own token.
 */
export function dashboardRoutes(deps: DashboardDeps): Route[] {
  const renderDashboard = dashboardRenderer(deps);

  const dashboard = route({
    method: 'GET',
    path: '/dashboard',
    query: z.object({ notice: singleQueryValue }),
    async handle(ctx, { query }) {
      const session = await signedIn(ctx, deps.accounts);
      if (!session) return;
      await renderDashboard(ctx, session, { notice: query.notice });
    },
  });

  return [dashboard];
}
