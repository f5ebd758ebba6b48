/** What the broker answers when asked for a user's Google access token. */
export type GoogleAccessTokenResult =
  | { ok: true; accessToken: string; expiresAt: number; scopes: string[] }
  | { ok: false; reason: 'GOOGLE_AUTH_REQUIRED' | 'NOT_CONNECTED' };

/** The broker's `GetGoogleAccessToken`, seen from the MCP service. */
export interface GoogleAccessTokens {
  /** `forceRefresh` skips the broker's cache: Google just refused the cached token (401). */
  get(userId: string, options?: { forceRefresh?: boolean }): Promise<GoogleAccessTokenResult>;
}
