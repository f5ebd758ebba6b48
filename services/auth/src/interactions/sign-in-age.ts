import type { InteractionResults } from 'oidc-provider';

/** What the provider's login prompt says about how recent the person's authentication must be. */
export interface LoginInteraction {
  /** When the provider started the interaction (epoch seconds). */
  iat?: number | undefined;
  params: Record<string, unknown>;
  prompt: { reasons: string[] };
}

/**
 * How old, in seconds, the person's sign-in may be for this login: 0 for `prompt=login`, the
 * request's `max_age`, or undefined when any sign-in will do (OpenID Connect Core §3.1.2.1).
 */
export function requiredSignInAge(interaction: LoginInteraction): number | undefined {
  if (interaction.prompt.reasons.includes('login_prompt')) return 0;
  const maxAge = Number(interaction.params.max_age ?? Number.NaN);
  return Number.isInteger(maxAge) && maxAge >= 0 ? maxAge : undefined;
}

/**
 * Whether a sign-in at `signedInAt` satisfies the login: any sign-in made after the authorization
 * request began does (the person went to Google for it, however long they took there); an older
 * one only within the required age.
 */
export function signInSatisfies(interaction: LoginInteraction, signedInAt: Date, now = Date.now()): boolean {
  const required = requiredSignInAge(interaction);
  if (required === undefined) return true;
  const signedIn = Math.floor(signedInAt.getTime() / 1000);
  if (interaction.iat !== undefined && signedIn >= interaction.iat) return true;
  return signedIn + required >= Math.floor(now / 1000);
}

/** The login result for the provider: the account and when it authenticated (its `auth_time`). */
export function loginResult(userId: string, signedInAt: Date): Pick<InteractionResults, 'login'> {
  return { login: { accountId: userId, ts: Math.floor(signedInAt.getTime() / 1000) } };
}
