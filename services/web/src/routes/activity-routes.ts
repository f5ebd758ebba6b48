import {
  type AccountServiceClientApi,
  type ChangeUndoClient,
  kindOfCallError,
  type UndoChangeResponse,
} from '@sheetgate/proto';
import { isUuid, type Route, route, singleQueryValue } from '@sheetgate/service-runtime';
import type { Context } from 'koa';
import { z } from 'zod';
import { formGuard } from '../forms/form-guard.ts';
import type { FormTokens } from '../forms/form-tokens.ts';
import { type ActivityMessage, activityPage } from '../pages/activity-page.ts';
import { sendPage, sessionCookieOf } from './request-values.ts';

const PAGE_SIZE = 50;
/** Change ids are UUIDs the MCP service chose; anything else names no change. */

const NOT_FOUND: ActivityMessage = {
  kind: 'not_undone',
  text: 'That change was not found among your changes (changes are kept for a limited time).',
};
const UNAVAILABLE: ActivityMessage = {
  kind: 'not_undone',
  text: 'Undo is unavailable right now: Sheetgate could not reach its MCP service. Nothing was changed; try again in a moment.',
};

/** `/dashboard/activity` with the list's filter (and a notice), for a redirect back to it. */
function activityUrl(spreadsheetId: string, notice?: Record<string, string>): string {
  const query = new URLSearchParams({ ...(spreadsheetId ? { spreadsheet: spreadsheetId } : {}), ...notice });
  return `/dashboard/activity${query.size ? `?${query.toString()}` : ''}`;
}

/** What the page says of ChangeUndoService's answer, or a redirect for an answer that needs none. */
function outcomeOf(answer: UndoChangeResponse): ActivityMessage | 'undone' | 'not_found' {
  if (answer.undone) return 'undone';
  if (answer.notFound) return 'not_found';
  if (answer.changedSince) return { kind: 'changed_since', changeId: '', ...answer.changedSince };
  if (answer.notPossible) return { kind: 'not_undone', text: answer.notPossible.message };
  if (answer.googleReconnectNeeded)
    return {
      kind: 'not_undone',
      text: 'Sheetgate can no longer reach your Google account. Reconnect Google on your dashboard, then undo again.',
      next: { href: '/dashboard', label: 'Go to your dashboard to reconnect Google' },
    };
  return {
    kind: 'not_undone',
    text: answer.failed?.message || 'Google did not take the undo. Try again in a moment.',
  };
}

/**
 * GET /dashboard/activity: the signed-in person's change journal (AccountService.ListRecentChanges)
 * with an Undo button per change that can be undone. POST /dashboard/activity/undo: the button,
 * checked like every dashboard form (same-origin, CSRF token bound to the session), sent to mcp's
 * ChangeUndoService with the session cookie (mcp asks auth whose it is). Undone or not found
 * redirects back to the list with a notice; a refusal is shown above the list, the cells changed
 * since named, with "Undo anyway" (the same form with `force`).
 */
export function activityRoutes(deps: {
  accounts: AccountServiceClientApi;
  changeUndo: ChangeUndoClient;
  formTokens: FormTokens;
  baseUrl: string;
}): Route[] {
  const { accounts, changeUndo, formTokens } = deps;
  const refuseForged = formGuard(deps);

  async function renderActivity(
    ctx: Context,
    view: { spreadsheetId: string; pageToken: string; message?: ActivityMessage | undefined },
    status = 200,
  ): Promise<void> {
    const cookie = sessionCookieOf(ctx);
    const session = cookie ? await accounts.getSession({ sessionCookie: cookie }) : undefined;
    if (!session?.user) {
      ctx.status = 303;
      ctx.redirect('/login');
      return;
    }
    const { spreadsheetId } = view;
    let page: Awaited<ReturnType<typeof accounts.listRecentChanges>>;
    try {
      page = await accounts.listRecentChanges({
        sessionCookie: cookie,
        spreadsheetId,
        pageSize: PAGE_SIZE,
        pageToken: view.pageToken,
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
        undoCsrf: formTokens.issue('undo-change', cookie),
        message: view.message,
      }),
      status,
    );
  }

  return [
    route({
      method: 'GET',
      path: '/dashboard/activity',
      query: z.object({
        spreadsheet: singleQueryValue,
        page: singleQueryValue,
        notice: singleQueryValue,
        change: singleQueryValue,
      }),
      async handle(ctx, { query }) {
        const changeId = isUuid(query.change ?? '') ? query.change! : '';
        const message: ActivityMessage | undefined =
          query.notice === 'undone' && changeId
            ? { kind: 'undone', changeId }
            : query.notice === 'undo_not_found'
              ? NOT_FOUND
              : undefined;
        await renderActivity(ctx, {
          spreadsheetId: (query.spreadsheet ?? '').slice(0, 200),
          pageToken: (query.page ?? '').slice(0, 200),
          message,
        });
      },
    }),

    route({
      method: 'POST',
      path: '/dashboard/activity/undo',
      form: z.object({
        csrf: z.string().optional(),
        change: z.string().optional(),
        spreadsheet: z.string().optional(),
        force: z.string().optional(),
      }),
      checkForgery: refuseForged('undo-change'),
      async handle(ctx, { form }) {
        const spreadsheetId = (form.spreadsheet ?? '').slice(0, 200);
        const changeId = form.change ?? '';
        if (!isUuid(changeId)) {
          ctx.status = 303;
          ctx.redirect(activityUrl(spreadsheetId, { notice: 'undo_not_found' }));
          return;
        }
        let answer: UndoChangeResponse;
        try {
          answer = await changeUndo.undoChange({
            sessionCookie: sessionCookieOf(ctx),
            changeId,
            force: form.force === 'yes',
          });
        } catch (error) {
          // No session (PERMISSION_DENIED) goes to sign in through pageErrors, like every page.
          if (kindOfCallError(error) !== 'unavailable') throw error;
          ctx.set('retry-after', '5');
          return renderActivity(ctx, { spreadsheetId, pageToken: '', message: UNAVAILABLE }, 503);
        }
        const outcome = outcomeOf(answer);
        if (outcome === 'undone' || outcome === 'not_found') {
          ctx.status = 303;
          ctx.redirect(
            activityUrl(
              spreadsheetId,
              outcome === 'undone' ? { notice: 'undone', change: changeId } : { notice: 'undo_not_found' },
            ),
          );
          return;
        }
        await renderActivity(
          ctx,
          {
            spreadsheetId,
            pageToken: '',
            message: outcome.kind === 'changed_since' ? { ...outcome, changeId } : outcome,
          },
          answer.failed ? 502 : 409,
        );
      },
    }),
  ];
}
