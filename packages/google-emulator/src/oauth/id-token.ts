import { type Account, GOOGLE_SCOPES } from '../contracts.ts';
import { USERINFO_EMAIL, USERINFO_PROFILE } from './scopes.ts';
import type { SigningKey } from './signing-key.ts';

/** Google's ID tokens live one hour, whatever the access token's lifetime. */
const ID_TOKEN_TTL_SECONDS = 3600;

/**
 * The claims Google puts in ID tokens and userinfo for what was granted. `hd` is "the domain
 * associated with the Google Workspace or Cloud organization of the user", "provided only if the
 * user belongs to a Google Cloud organization"
 * (https://developers.google.com/identity/openid-connect/openid-connect#an-id-tokens-payload), and
 * userinfo answers it too (the OAuth2 API's `Userinfo.hd`, "the hosted domain e.g. example.com").
 */
export function identityClaims(account: Account, scopes: readonly string[]) {
  const [given, ...family] = account.name.split(' ');
  return {
    sub: account.sub,
    ...(account.hostedDomain ? { hd: account.hostedDomain } : {}),
    ...(scopes.includes(USERINFO_EMAIL) ? { email: account.email, email_verified: true } : {}),
    ...(scopes.includes(USERINFO_PROFILE)
      ? {
          name: account.name,
          given_name: given ?? account.name,
          ...(family.length > 0 ? { family_name: family.join(' ') } : {}),
          picture: `https://lh3.googleusercontent.com/a/default-user=s96-c`,
        }
      : {}),
  };
}

export function grantsOpenId(scopes: readonly string[]): boolean {
  return scopes.includes(GOOGLE_SCOPES.openid);
}

/** An RS256 ID token as Google issues it, with the emulator's URL as issuer. */
export function signIdToken(
  key: SigningKey,
  options: {
    issuer: string;
    clientId: string;
    account: Account;
    scopes: readonly string[];
    nonce?: string;
    /** Present when the request had `max_age` (OpenID Connect Core §2: then REQUIRED). */
    authTime?: number;
  },
): Promise<string> {
  const iat = Math.floor(Date.now() / 1000);
  return key.sign({
    iss: options.issuer,
    azp: options.clientId,
    aud: options.clientId,
    ...identityClaims(options.account, options.scopes),
    ...(options.nonce ? { nonce: options.nonce } : {}),
    ...(options.authTime !== undefined ? { auth_time: options.authTime } : {}),
    iat,
    exp: iat + ID_TOKEN_TTL_SECONDS,
  });
}
