import type { GetGoogleAccessTokenResponse } from '../gen/sheetgate/v1/token_broker.ts';

/**
 * What asking for a user's Google access token answers, as both sides of `GetGoogleAccessToken`
 * see it: auth's token broker returns it, auth's gRPC handler sends it, the MCP service receives
 * it. The one place this union is defined; `toGetGoogleAccessTokenResponse` and
 * `fromGetGoogleAccessTokenResponse` are its wire form. A refusal is an answer; a transient
 * failure is a gRPC status (UNAVAILABLE), never one of these.
 */
export type GoogleAccessTokenResult =
  | {
      ok: true;
      accessToken: string;
      expiresAt: number;
      scopes: string[];
      /** The Google account the token acts as. */
      email: string;
      /** Its Workspace domain (`hd`, lower-cased); empty for a personal (consumer) account. */
      hostedDomain: string;
    }
  | { ok: false; reason: GoogleTokenRefusalReason };

/** Both mean the person must act in the dashboard ("Reconnect Google"). */
export type GoogleTokenRefusalReason = 'GOOGLE_AUTH_REQUIRED' | 'NOT_CONNECTED';

/** The wire form of a result (auth's side). */
export function toGetGoogleAccessTokenResponse(
  result: GoogleAccessTokenResult,
): GetGoogleAccessTokenResponse {
  if (result.ok) {
    return {
      token: {
        accessToken: result.accessToken,
        expiresAt: result.expiresAt,
        scopes: [...result.scopes],
        email: result.email,
        hostedDomain: result.hostedDomain,
      },
      refused: undefined,
    };
  }
  return {
    token: undefined,
    refused:
      result.reason === 'NOT_CONNECTED'
        ? 'GOOGLE_TOKEN_REFUSAL_NOT_CONNECTED'
        : 'GOOGLE_TOKEN_REFUSAL_GOOGLE_AUTH_REQUIRED',
  };
}

/**
 * A result from its wire form (the MCP service's side). An unset or unknown refusal is
 * `GOOGLE_AUTH_REQUIRED`, as the contract says.
 */
export function fromGetGoogleAccessTokenResponse(
  response: GetGoogleAccessTokenResponse,
): GoogleAccessTokenResult {
  if (response.token) {
    return {
      ok: true,
      accessToken: response.token.accessToken,
      expiresAt: response.token.expiresAt,
      scopes: response.token.scopes,
      email: response.token.email,
      hostedDomain: response.token.hostedDomain,
    };
  }
  return {
    ok: false,
    reason:
      response.refused === 'GOOGLE_TOKEN_REFUSAL_NOT_CONNECTED' ? 'NOT_CONNECTED' : 'GOOGLE_AUTH_REQUIRED',
  };
}
