import { kindOfCallError } from '@sheetgate/proto';
import { type Route, route } from '@sheetgate/service-runtime';
import type { Context } from 'koa';
import { z } from 'zod';
import { formGuard } from '../forms/form-guard.ts';
import { choicesFromForm } from '../html/credential-choices.ts';
import { choiceFields, isPlausibleId, text, tokenForm } from './dashboard-forms.ts';
import type { DashboardDeps } from './dashboard-view.ts';
import { sessionCookieOf } from './request-values.ts';

/** Auth's answer for a key or app that is not the person's (or not live): nothing changed. */
const isNotTheirs = (error: unknown) => {
  const kind = kindOfCallError(error);
  return kind === 'not_found' || kind === 'invalid_argument';
};

function backToDashboard(ctx: Context, notice: string): void {
  ctx.status = 303;
  ctx.redirect(`/dashboard?notice=${notice}`);
}

/**
 * Changing a live key's or a connected app's two choices from its dashboard row (docs/design.md
 * §11.10): they hold from its next call, without reconnecting. A key or app that is not the
 * person's changes nothing and says so.
 */
export function credentialChoiceRoutes(deps: DashboardDeps): Route[] {
  const { accounts } = deps;
  const refuseForged = formGuard(deps);

  const setKeyChoices = route({
    method: 'POST',
    path: '/dashboard/api-keys/choices',
    form: z.object({ ...tokenForm, key: text, ...choiceFields }),
    checkForgery: refuseForged('key-choices'),
    async handle(ctx, { form }) {
      if (!isPlausibleId(form.key)) return backToDashboard(ctx, 'key_choices_not_saved');
      try {
        await accounts.setApiKeyChoices({
          sessionCookie: sessionCookieOf(ctx),
          keyId: form.key,
          choices: choicesFromForm(form),
        });
      } catch (error) {
        if (isNotTheirs(error)) return backToDashboard(ctx, 'key_choices_not_saved');
        throw error;
      }
      backToDashboard(ctx, 'key_choices_saved');
    },
  });

  const setAppChoices = route({
    method: 'POST',
    path: '/dashboard/apps/choices',
    form: z.object({ ...tokenForm, client: text, ...choiceFields }),
    checkForgery: refuseForged('app-choices'),
    async handle(ctx, { form }) {
      if (!isPlausibleId(form.client)) return backToDashboard(ctx, 'app_choices_not_saved');
      try {
        await accounts.setAppChoices({
          sessionCookie: sessionCookieOf(ctx),
          clientId: form.client,
          choices: choicesFromForm(form),
        });
      } catch (error) {
        if (isNotTheirs(error)) return backToDashboard(ctx, 'app_choices_not_saved');
        throw error;
      }
      backToDashboard(ctx, 'app_choices_saved');
    },
  });

  return [setKeyChoices, setAppChoices];
}
