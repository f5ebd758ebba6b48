import { OAuth2Client } from 'google-auth-library';
import type { GoogleEndpoints } from './google-endpoints.ts';
import { type GoogleSettings, googleRedirectUri } from './google-settings.ts';

/** Per-request timeout for Google's OAuth endpoints; google-auth-library retries 5xx on top of it. */
const GOOGLE_TIMEOUT_MS = 5_000;

/**
 * google-auth-library's client for Sheetgate's Google OAuth client, pointed at `endpoints`.
 * `refreshGrant` exposes the library's uncached refresh: its public `refreshAccessToken` keeps
 * credentials on the instance and drops a rotated refresh token, neither of which a broker serving
 * many users wants.
 */
export class GoogleOAuthClient extends OAuth2Client {
  constructor(settings: GoogleSettings, endpoints: GoogleEndpoints) {
    super({
      clientId: settings.GOOGLE_CLIENT_ID,
      clientSecret: settings.GOOGLE_CLIENT_SECRET,
      redirectUri: googleRedirectUri(settings),
      endpoints: {
        oauth2AuthBaseUrl: endpoints.authorization,
        oauth2TokenUrl: endpoints.token,
        oauth2RevokeUrl: endpoints.revocation,
        oauth2FederatedSignonJwkCertsUrl: endpoints.jwks,
      },
      issuers: endpoints.issuers,
      // Node's own fetch, as in mcp: gaxios's default node-fetch 3 destroys an aborted request's body
      // with nobody listening for the error (node-fetch/node-fetch#1801), and a timeout aborts.
      transporterOptions: { timeout: GOOGLE_TIMEOUT_MS, fetchImplementation: fetch },
    });
  }

  refreshGrant(refreshToken: string) {
    return this.refreshTokenNoCache(refreshToken);
  }
}
