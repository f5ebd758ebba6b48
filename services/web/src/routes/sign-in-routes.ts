import type { AccountServiceClientApi } from '@sheetgate/proto';
import {
  DEFAULT_RETURN_TO,
  isInteractionUid,
  type Route,
  route,
  safeReturnTo,
  singleQueryValue,
} from '@sheetgate/service-runtime';
import { z } from 'zod';
import { formActionSource, redirectTarget } from '../html/redirect-target.ts';
import { consentPage } from '../pages/consent-page.ts';
import { type LoginInteraction, loginPage } from '../pages/login-page.ts';
import { allowFormActionTo } from '../security-headers.ts';
import { PageError } from './page-errors.ts';
import { sendPage, sessionCookieOf } from './request-values.ts';

/** Auth's authorization endpoint (docs/design.md §2), where a sign-out from consent may send sign-in back. */
const AUTHORIZATION_PATH = '/api/auth/oauth2/authorize';

const EXPIRED = new PageError(
  400,
  'This request has expired',
  'This authorization request has expired, was already answered, or is for another account. Go back to the app you were connecting and start again.',
  { href: '/dashboard', label: 'Go to your dashboard' },
);

/** `/login` (sign in with Google, for the dashboard or an OAuth interaction) and `/authorize` (consent). */
export function signInRoutes(deps: { accounts: AccountServiceClientApi }): Route[] {
  const { accounts } = deps;

  const sessionOf = async (cookie: string) => {
    if (!cookie) return undefined;
    const session = await accounts.getSession({ sessionCookie: cookie });
    return session.user ? { ...session.user, signOutCsrfToken: session.signOutCsrfToken } : undefined;
  };

  const login = route({
    method: 'GET',
    path: '/login',
    query: z.object({
      interaction: singleQueryValue,
      return_to: singleQueryValue,
      error: singleQueryValue,
      signed_out: singleQueryValue,
    }),
    async handle(ctx, { query }) {
      const cookie = sessionCookieOf(ctx);
      const uid = query.interaction;
      const account = await sessionOf(cookie);
      let interaction: LoginInteraction | undefined;
      let interactionExpired = false;
      if (uid !== undefined) {
        const found = isInteractionUid(uid)
          ? await accounts.getInteraction({ interactionUid: uid, sessionCookie: cookie })
          : undefined;
        if (found?.found && found.prompt === 'INTERACTION_PROMPT_CONSENT') {
          ctx.status = 303;
          ctx.redirect(`/authorize?interaction=${encodeURIComponent(uid)}`);
          return;
        }
        if (found?.found) {
          interaction = {
            uid,
            clientName: found.clientName || found.clientId,
            redirect: redirectTarget(found),
            unverifiedClient: found.unverifiedClient,
          };
        } else interactionExpired = true;
      }
      const returnTo = interaction
        ? `/api/auth/interaction/${interaction.uid}`
        : (safeReturnTo(query.return_to) ?? DEFAULT_RETURN_TO);
      sendPage(
        ctx,
        loginPage({
          returnTo,
          continuesAuthorization: returnTo.startsWith(`${AUTHORIZATION_PATH}?`),
          interaction,
          interactionExpired,
          error: query.error,
          signedOut: query.signed_out === '1' && !account,
          account,
        }),
      );
    },
  });

  const authorize = route({
    method: 'GET',
    path: '/authorize',
    query: z.object({ interaction: singleQueryValue, problem: singleQueryValue.optional() }),
    async handle(ctx, { query }) {
      const uid = query.interaction;
      if (!isInteractionUid(uid)) throw EXPIRED;
      const cookie = sessionCookieOf(ctx);
      const interaction = await accounts.getInteraction({ interactionUid: uid, sessionCookie: cookie });
      if (!interaction.found) throw EXPIRED;
      const account = await sessionOf(cookie);
      if (interaction.prompt !== 'INTERACTION_PROMPT_CONSENT' || !account) {
        ctx.status = 303;
        ctx.redirect(`/login?interaction=${encodeURIComponent(uid)}`);
        return;
      }
      const source = formActionSource(redirectTarget(interaction));
      if (source) allowFormActionTo(ctx, source);
      sendPage(
        ctx,
        consentPage({ uid, interaction, account, noToolsetsChosen: query.problem === 'no-toolsets' }),
      );
    },
  });

  return [login, authorize];
}
