import { type AccountServiceClientApi, kindOfCallError } from '@sheetgate/proto';
import { type Route, route, singleQueryValue } from '@sheetgate/service-runtime';
import { z } from 'zod';
import { activityPage } from '../pages/activity-page.ts';
import { sendPage, sessionCookieOf } from './request-values.ts';

const PAGE_SIZE = 50;

/** GET /dashboard/activity: the signed-in person's change journal (AccountService.ListRecentChanges). */
export function activityRoutes(deps: { accounts: AccountServiceClientApi }): Route[] {
  const { accounts } = deps;
  return [
    route({
      method: 'GET',
      path: '/dashboard/activity',
      query: z.object({ spreadsheet: singleQueryValue, page: singleQueryValue }),
      async handle(ctx, { query }) {
        const cookie = sessionCookieOf(ctx);
        const session = cookie ? await accounts.getSession({ sessionCookie: cookie }) : undefined;
        if (!session?.user) {
          ctx.status = 303;
          ctx.redirect('/login');
          return;
        }
        const spreadsheetId = (query.spreadsheet ?? '').slice(0, 200);
        let page: Awaited<ReturnType<typeof accounts.listRecentChanges>>;
        try {
          page = await accounts.listRecentChanges({
            sessionCookie: cookie,
            spreadsheetId,
            pageSize: PAGE_SIZE,
            pageToken: (query.page ?? '').slice(0, 200),
          });
        } catch (error) {
          // A page token that is not ours: the first page instead.
          if (kindOfCallError(error) !== 'invalid_argument') throw error;
          page = await accounts.listRecentChanges({
            sessionCookie: cookie,
            spreadsheetId,
            pageSize: PAGE_SIZE,
            pageToken: '',
          });
        }
        sendPage(
          ctx,
          activityPage({
            account: { email: session.user.email, signOutCsrfToken: session.signOutCsrfToken },
            changes: page.changes,
            spreadsheetId: spreadsheetId || undefined,
            nextPageToken: page.nextPageToken,
          }),
        );
      },
    }),
  ];
}
