import type { GoogleAccessTokenResult } from '@sheetgate/proto';

/** The broker's `GetGoogleAccessToken`, seen from the MCP service. */
export interface GoogleAccessTokens {
  /** `forceRefresh` skips the broker's cache: Google just refused the cached token (401). */
  get(userId: string, options?: { forceRefresh?: boolean }): Promise<GoogleAccessTokenResult>;
}
