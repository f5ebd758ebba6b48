import { kindOfCallError } from '@sheetgate/proto';
import { type Route, route } from '@sheetgate/service-runtime';
import { z } from 'zod';
import { formGuard } from '../forms/form-guard.ts';
import { isPlausibleId, text, tokenForm } from './dashboard-forms.ts';
import type { DashboardDeps } from './dashboard-view.ts';
import { sessionCookieOf } from './request-values.ts';

/**
 * The Google Picker's posts from the dashboard's picked-files section (picked-files-section.ts):
 * its token, the person's selection, and forgetting one file. Each is checked like every dashboard
 * form before its fields are read.
 */
export function pickedFileRoutes(deps: DashboardDeps): Route[] {
  const { accounts } = deps;
  const refuseForged = formGuard(deps);

  /**
   * The person's Google access token for the Picker, fetched by the dashboard's script on "Choose
   * spreadsheets" (never rendered into a page or a URL). Auth gives one only in picked-files mode.
   */
  const pickerToken = route({
    method: 'POST',
    path: '/dashboard/picker-token',
    form: z.object({ ...tokenForm }),
    checkForgery: refuseForged('picker-token'),
    async handle(ctx) {
      const { accessToken, expiresAt } = await accounts.getPickerToken({
        sessionCookie: sessionCookieOf(ctx),
      });
      ctx.set('cache-control', 'no-store');
      if (!accessToken) {
        ctx.status = 409;
        ctx.body = { error: 'Sheetgate has no Google access to give the Picker: reconnect Google.' };
        return;
      }
      ctx.body = { accessToken, expiresAt };
    },
  });

  /** The Picker's selection, as its callback gave it: ids, names and types, in order. */
  const choosePickedFiles = route({
    method: 'POST',
    path: '/dashboard/picked-files',
    form: z.object({
      ...tokenForm,
      file_id: z.array(z.string()).optional(),
      file_name: z.array(z.string()).optional(),
      file_mime_type: z.array(z.string()).optional(),
    }),
    checkForgery: refuseForged('choose-files'),
    async handle(ctx, { form }) {
      const ids = form.file_id ?? [];
      const files = ids.map((fileId, index) => ({
        fileId,
        name: form.file_name?.[index] ?? '',
        mimeType: form.file_mime_type?.[index] ?? '',
        pickedAt: '',
      }));
      let notice = 'files_chosen';
      try {
        await accounts.recordPickedFiles({ sessionCookie: sessionCookieOf(ctx), files });
      } catch (error) {
        if (kindOfCallError(error) !== 'invalid_argument') throw error;
        notice = 'files_refused';
      }
      ctx.status = 303;
      ctx.redirect(`/dashboard?notice=${notice}`);
    },
  });

  /** "Remove": Sheetgate forgets one chosen file (Google's grant is the person's to revoke there). */
  const forgetPickedFile = route({
    method: 'POST',
    path: '/dashboard/picked-files/remove',
    form: z.object({ ...tokenForm, file: text }),
    checkForgery: refuseForged('forget-file'),
    async handle(ctx, { form }) {
      const { forgotten } = isPlausibleId(form.file)
        ? await accounts.forgetPickedFile({ sessionCookie: sessionCookieOf(ctx), fileId: form.file })
        : { forgotten: false };
      ctx.status = 303;
      ctx.redirect(`/dashboard?notice=${forgotten ? 'file_forgotten' : 'nothing_to_forget'}`);
    },
  });

  return [pickerToken, choosePickedFiles, forgetPickedFile];
}
