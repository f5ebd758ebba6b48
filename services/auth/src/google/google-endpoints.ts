import type { GoogleSettings } from './google-settings.ts';

export interface GoogleEndpoints {
  authorization: string;
  token: string;
  revocation: string;
  jwks: string;
  /** Accepted `iss` values of Google ID tokens. */
  issuers: string[];
}

// https://accounts.google.com/.well-known/openid-configuration — Google documents both issuer
// spellings as valid for its ID tokens.
const GOOGLE: GoogleEndpoints = {
  authorization: 'https://accounts.google.com/o/oauth2/v2/auth',
  token: 'https://oauth2.googleapis.com/token',
  revocation: 'https://oauth2.googleapis.com/revoke',
  jwks: 'https://www.googleapis.com/oauth2/v3/certs',
  issuers: ['https://accounts.google.com', 'accounts.google.com'],
};

/**
 * Google's OAuth endpoints, or the emulator's when GOOGLE_EMULATOR_URL is set: the emulator folds
 * Google's hosts onto one origin with the same paths, and is its own ID-token issuer.
 */
export function googleEndpoints(settings: Pick<GoogleSettings, 'GOOGLE_EMULATOR_URL'>): GoogleEndpoints {
  if (!settings.GOOGLE_EMULATOR_URL) return GOOGLE;
  const origin = settings.GOOGLE_EMULATOR_URL.replace(/\/+$/, '');
  return {
    authorization: `${origin}/o/oauth2/v2/auth`,
    token: `${origin}/token`,
    revocation: `${origin}/revoke`,
    jwks: `${origin}/oauth2/v3/certs`,
    issuers: [origin, `${origin}/`],
  };
}
