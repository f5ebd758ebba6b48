import { type AccountServiceClientApi, approvalIdOfLink, kindOfCallError } from '@sheetgate/proto';
import { isSameOriginPost, type Route, route } from '@sheetgate/service-runtime';
import type { Context } from 'koa';
import { z } from 'zod';
import type { FormTokens } from '../forms/form-tokens.ts';
import type { HeaderAccount } from '../html/layout.ts';
import { callApprovalPage } from '../pages/call-approval-page.ts';
import { PageError } from './page-errors.ts';
import { sendPage, sessionCookieOf } from './request-values.ts';

/** Where the approval links live; answered with no referrer at all (app.ts's securityHeaders). */
export const APPROVAL_PATH_PREFIX = '/approve/';

/** `<22-character id>.<32-character signature>`; anything longer is no link of ours. */
const MAX_LINK_LENGTH = 64;

/**
 * An altered link and another person's call get the same page: nothing tells whether the
 * approval exists, or whose it is.
 */
export const APPROVAL_NOT_FOUND = new PageError(
  404,
  'Page not found',
  'There is no page at this address. If an app sent you here to approve a call, sign in with the Google account the app uses, or ask the app again.',
  { href: '/', label: 'Go to the home page' },
);

const FORM_REFUSED = new PageError(
  403,
  'This form has expired',
  'The answer was not sent from this approval page, or the page has expired. Nothing was answered. Open the link the app gave you again.',
  { href: '/dashboard', label: 'Go to your dashboard' },
);

/** The approval id of the path's link, or the not-found page: an altered link is looked up nowhere. */
function approvalIdOf(ctx: Context, secret: string): { link: string; approvalId: string } {
  const link = (ctx as Context & { params: { link?: string } }).params.link ?? '';
  const approvalId = link.length <= MAX_LINK_LENGTH ? approvalIdOfLink(secret, link) : undefined;
  if (!approvalId) throw APPROVAL_NOT_FOUND;
  return { link, approvalId };
}

/** Sign in first, then back to this link (a path of our own: the link's characters are checked). */
function toSignIn(ctx: Context, link: string): void {
  ctx.status = 303;
  ctx.redirect(`/login?return_to=${encodeURIComponent(`${APPROVAL_PATH_PREFIX}${link}`)}`);
}

/**
 * The page's own post. It is served with `Referrer-Policy: no-referrer`, under which browsers send
 * `Origin: null` on its form post (Fetch §3.1); then only Fetch Metadata can say it came from this
 * site, and must. Any other Origin is checked as on every dashboard form.
 */
function fromThisSite(ctx: Context, baseUrl: string): boolean {
  if (ctx.get('origin') === 'null') return ctx.get('sec-fetch-site') === 'same-origin';
  return isSameOriginPost(ctx, baseUrl);
}

/**
 * `GET /approve/<id>.<signature>`: a call an API key or app made that waits for its person's
 * answer (URL-mode elicitation, docs/design.md §11.10). The link is checked first (an altered one
 * is the not-found page, nothing asked of auth); then the dashboard session: none signs in and
 * comes back; another person's call is not found (AccountService.ShowCallApproval). `POST` the
 * same path: Approve or Decline (AccountService.AnswerCallApproval, the first answer only), checked
 * like every dashboard form, with a CSRF token bound to the session and to this approval.
 */
export function callApprovalRoutes(deps: {
  accounts: AccountServiceClientApi;
  formTokens: FormTokens;
  baseUrl: string;
  serviceToken: string;
}): Route[] {
  const { accounts, formTokens, serviceToken } = deps;
  const csrfBinding = (cookie: string, approvalId: string) => `${approvalId}\n${cookie}`;

  /** The signed-in person for the page's header, or undefined (sent to sign in). */
  async function signedInAccount(ctx: Context, link: string): Promise<HeaderAccount | undefined> {
    const cookie = sessionCookieOf(ctx);
    const session = cookie ? await accounts.getSession({ sessionCookie: cookie }) : undefined;
    if (!session?.user) {
      toSignIn(ctx, link);
      return undefined;
    }
    return { email: session.user.email, signOutCsrfToken: session.signOutCsrfToken };
  }

  /** Auth's answer about someone else's (or no) approval is the not-found page. */
  async function orNotFound<T>(call: Promise<T>): Promise<T> {
    try {
      return await call;
    } catch (error) {
      if (kindOfCallError(error) === 'not_found') throw APPROVAL_NOT_FOUND;
      throw error;
    }
  }

  const linkParams = z.object({ link: z.string() });

  const show = route({
    method: 'GET',
    path: `${APPROVAL_PATH_PREFIX}:link`,
    params: linkParams,
    async handle(ctx) {
      const { link, approvalId } = approvalIdOf(ctx, serviceToken);
      const account = await signedInAccount(ctx, link);
      if (!account) return;
      const sessionCookie = sessionCookieOf(ctx);
      const { approval } = await orNotFound(accounts.showCallApproval({ sessionCookie, approvalId }));
      if (!approval) throw APPROVAL_NOT_FOUND;
      sendPage(
        ctx,
        callApprovalPage({
          approval,
          account,
          path: `${APPROVAL_PATH_PREFIX}${link}`,
          csrfToken: formTokens.issue('answer-call-approval', csrfBinding(sessionCookie, approvalId)),
        }),
      );
    },
  });

  const answer = route({
    method: 'POST',
    path: `${APPROVAL_PATH_PREFIX}:link`,
    params: linkParams,
    form: z.object({ csrf: z.string().optional(), answer: z.enum(['approve', 'decline']) }),
    checkForgery(ctx, field) {
      const { link, approvalId } = approvalIdOf(ctx, serviceToken);
      if (!fromThisSite(ctx, deps.baseUrl)) throw FORM_REFUSED;
      const cookie = sessionCookieOf(ctx);
      if (!cookie) {
        toSignIn(ctx, link);
        return false;
      }
      if (!formTokens.verify('answer-call-approval', csrfBinding(cookie, approvalId), field('csrf')))
        throw FORM_REFUSED;
      return true;
    },
    async handle(ctx, { form }) {
      const { link, approvalId } = approvalIdOf(ctx, serviceToken);
      const account = await signedInAccount(ctx, link);
      if (!account) return;
      const answered = await orNotFound(
        accounts.answerCallApproval({
          sessionCookie: sessionCookieOf(ctx),
          approvalId,
          approve: form.answer === 'approve',
        }),
      );
      if (!answered.approval) throw APPROVAL_NOT_FOUND;
      sendPage(
        ctx,
        callApprovalPage({
          approval: answered.approval,
          account,
          path: `${APPROVAL_PATH_PREFIX}${link}`,
          csrfToken: formTokens.issue('answer-call-approval', csrfBinding(sessionCookieOf(ctx), approvalId)),
          justAnswered: answered.answered,
        }),
        // Answered before, or expired: this answer changed nothing.
        answered.answered ? 200 : 409,
      );
    },
  });

  return [show, answer];
}
