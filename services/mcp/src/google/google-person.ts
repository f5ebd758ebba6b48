import type { GoogleAccessTokens } from './google-access.ts';

/**
 * The Google account a person's tool calls act in: its address and, for a Google Workspace
 * account, its domain (the `hd` of the person's verified ID token); no `hostedDomain` for a
 * personal (consumer) account. The shape tools/guards/outside-account.ts judges recipients by.
 */
export interface GooglePerson {
  email: string;
  hostedDomain?: string;
}

/**
 * Who each person is at Google, read from the answer that carries their access token
 * (`GetGoogleAccessToken`): no call of its own when this replica keeps the token
 * (edge-google-tokens.ts), and the one a Google call would make anyway otherwise. Undefined when
 * there is no token (the person must reconnect Google, which the Google call then says) or auth
 * did not name the account.
 */
export function googlePersons(tokens: GoogleAccessTokens) {
  return async function personOf(userId: string): Promise<GooglePerson | undefined> {
    const token = await tokens.get(userId);
    if (!token.ok || !token.email) return undefined;
    return { email: token.email, ...(token.hostedDomain ? { hostedDomain: token.hostedDomain } : {}) };
  };
}

export type GooglePersons = ReturnType<typeof googlePersons>;
