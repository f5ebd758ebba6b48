import { DEFAULT_RETURN_TO, isInteractionUid } from '@sheetgate/service-runtime';

const INTERACTION_PREFIX = '/api/auth/interaction/';

/**
 * The login page to show after Google sign-in did not complete, carrying the pending OAuth
 * interaction (if the sign-in was for one) so the person can try again.
 */
export function loginPageWithError(returnTo: string, error: string): string {
  const query = new URLSearchParams({ error });
  const { pathname } = new URL(returnTo, 'https://sheetgate.invalid');
  const interaction = pathname.startsWith(INTERACTION_PREFIX)
    ? pathname.slice(INTERACTION_PREFIX.length)
    : undefined;
  if (isInteractionUid(interaction)) query.set('interaction', interaction);
  else if (returnTo !== DEFAULT_RETURN_TO) query.set('return_to', returnTo);
  return `/login?${query.toString()}`;
}
