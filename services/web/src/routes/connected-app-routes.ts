import { type Route, route, singleQueryValue } from '@sheetgate/service-runtime';
import { z } from 'zod';
import { formGuard } from '../forms/form-guard.ts';
import { disconnectAppPage } from '../pages/confirm-pages.ts';
import { isPlausibleId, text, tokenForm } from './dashboard-forms.ts';
import { type DashboardDeps, signedIn } from './dashboard-view.ts';
import { sendPage, sessionCookieOf } from './request-values.ts';

/** Disconnecting an app listed on the dashboard: the confirmation page, then the action. */
export function connectedAppRoutes(deps: DashboardDeps): Route[] {
  const { accounts, formTokens } = deps;
  const refuseForged = formGuard(deps);

  const confirmDisconnect = route({
    method: 'GET',
    path: '/dashboard/apps/disconnect',
    query: z.object({ client: singleQueryValue }),
    async handle(ctx, { query }) {
      const session = await signedIn(ctx, accounts);
      if (!session) return;
      const { apps } = await accounts.listConnectedApps({ sessionCookie: session.cookie });
      const app = apps.find((candidate) => candidate.clientId === query.client);
      if (!app) {
        ctx.status = 303;
        ctx.redirect('/dashboard?notice=nothing_to_disconnect');
        return;
      }
      sendPage(
        ctx,
        disconnectAppPage(app, formTokens.issue('disconnect-app', session.cookie), session.account),
      );
    },
  });

  const disconnectApp = route({
    method: 'POST',
    path: '/dashboard/apps/disconnect',
    form: z.object({ ...tokenForm, client: text }),
    checkForgery: refuseForged('disconnect-app'),
    async handle(ctx, { form }) {
      const sessionCookie = sessionCookieOf(ctx);
      const { disconnected } = isPlausibleId(form.client)
        ? await accounts.disconnectApp({ sessionCookie, clientId: form.client })
        : { disconnected: false };
      ctx.status = 303;
      ctx.redirect(`/dashboard?notice=${disconnected ? 'app_disconnected' : 'nothing_to_disconnect'}`);
    },
  });

  return [confirmDisconnect, disconnectApp];
}
