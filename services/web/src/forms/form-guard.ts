import { isSameOriginPost } from '@sheetgate/service-runtime';
import type { Context } from 'koa';
import { PageError } from '../routes/page-errors.ts';
import { sessionCookieOf } from '../routes/request-values.ts';
import type { FormPurpose, FormTokens } from './form-tokens.ts';

export const FORM_REFUSED = new PageError(
  403,
  'This form has expired',
  'The form was not sent from your Sheetgate dashboard, or it has expired. Nothing was changed. Open your dashboard and try again.',
  { href: '/dashboard', label: 'Go to your dashboard' },
);

/**
 * The check every dashboard form web handles gets before its fields are read (a route's
 * `checkForgery`): Fetch Metadata / Origin say it came from our own page, and web's CSRF token
 * (bound to the session cookie) says it came from a form web rendered for this session and purpose.
 * No session cookie at all sends the browser to sign in.
 */
export function formGuard(deps: { formTokens: FormTokens; baseUrl: string }) {
  return (purpose: FormPurpose) =>
    (ctx: Context, field: (name: string) => string | undefined): boolean => {
      if (!isSameOriginPost(ctx, deps.baseUrl)) throw FORM_REFUSED;
      const cookie = sessionCookieOf(ctx);
      if (!cookie) {
        ctx.status = 303;
        ctx.redirect('/login');
        return false;
      }
      if (!deps.formTokens.verify(purpose, cookie, field('csrf'))) throw FORM_REFUSED;
      return true;
    };
}
