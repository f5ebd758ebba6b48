import {
  isInteractionUid,
  isSameOriginPost,
  type Logger,
  type Route,
  route,
  safeReturnTo,
  sessionCookie,
} from '@sheetgate/service-runtime';
import type Provider from 'oidc-provider';
import { z } from 'zod';
import type { AuditLog } from '../audit/index.ts';
import { OIDC_ROUTES, PROVIDER_COOKIES } from '../oidc/routes.ts';
import type { SessionStore } from '../sessions/index.ts';
import { type CsrfTokens, formExpired } from './csrf.ts';

export const SIGN_OUT_PATH = '/api/auth/sign-out';

/**
 * `POST /api/auth/sign-out` (the dashboard's "Sign out" form): with the sign-out token of this
 * browser's dashboard session, ends that session and the provider session of this browser, so the next OAuth connection asks who is
 * signing in ("account switch", docs/design.md §4.4). Grants and tokens already issued are not
 * touched.
 *
 * From the consent screen ("Not you? Sign out") the form also names its `interaction`: the login
 * page then returns, after sign-in, to the app's own authorization request — the same client,
 * redirect, scopes, state and PKCE challenge, now as whoever signs in — so the person switches
 * account without starting over in the app. Only an interaction of the person signing out counts.
 */
export function signOutRoute(deps: {
  provider: Provider;
  sessions: SessionStore;
  csrf: CsrfTokens;
  baseUrl: string;
  logger: Logger;
  audit: AuditLog;
}): Route {
  const secureCookies = new URL(deps.baseUrl).protocol === 'https:';
  return route({
    method: 'POST',
    path: SIGN_OUT_PATH,
    form: z.object({ csrf: z.string().optional(), interaction: z.string().optional() }),
    async handle(ctx, { form }) {
      if (!isSameOriginPost(ctx, deps.baseUrl)) throw formExpired();
      const cookieValue = sessionCookie.read(ctx);
      const session = cookieValue ? await deps.sessions.findByCookieValue(cookieValue) : undefined;
      // Only the session's own token ends anything: a post without it (a third-party page's form,
      // whose cookies SameSite=Lax keeps back) must not even clear this browser's cookies.
      if (!session || !deps.csrf.verify('sign-out', session.id, form.csrf)) throw formExpired();
      // Signing out must not fail for want of the way back (its store may be down).
      const continueTo = await authorizationToContinue(deps.provider, form.interaction, session.userId).catch(
        () => undefined,
      );
      await deps.sessions.revoke(session.id);
      await deps.audit.record('sign_out', {
        userId: session.userId,
        details: { sessionId: session.id, ip: ctx.ip },
      });
      deps.logger.info({ userId: session.userId }, 'signed out');
      const providerSessionId = ctx.cookies.get(PROVIDER_COOKIES.session, { signed: true });
      if (providerSessionId) {
        await deps.provider.Session.adapter.destroy(providerSessionId);
      }
      ctx.cookies.set(PROVIDER_COOKIES.session, '', {
        path: '/',
        expires: new Date(0),
        httpOnly: true,
        signed: true,
      });
      sessionCookie.clear(ctx, secureCookies);
      ctx.set('cache-control', 'no-store');
      ctx.status = 303;
      ctx.redirect(
        continueTo
          ? `/login?${new URLSearchParams({ signed_out: '1', return_to: continueTo })}`
          : '/login?signed_out=1',
      );
    },
  });
}

/**
 * The authorization request behind `uid`, as a path on this site, when it is a pending interaction
 * of `userId`'s; else undefined (the sign-out goes on without it).
 */
async function authorizationToContinue(
  provider: Provider,
  uid: string | undefined,
  userId: string,
): Promise<string | undefined> {
  if (!isInteractionUid(uid)) return undefined;
  const interaction = await provider.Interaction.find(uid);
  if (!interaction || interaction.session?.accountId !== userId) return undefined;
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(interaction.params)) {
    if (typeof value === 'string') query.set(name, value);
  }
  // A request too long to carry through the login page is simply not continued.
  return safeReturnTo(`${OIDC_ROUTES.authorization}?${query}`);
}
