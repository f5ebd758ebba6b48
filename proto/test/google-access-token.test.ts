import { describe, expect, it } from 'vitest';
import {
  fromGetGoogleAccessTokenResponse,
  type GoogleAccessTokenResult,
  toGetGoogleAccessTokenResponse,
} from '../src/index.ts';

describe('GoogleAccessTokenResult on the wire', () => {
  const results: GoogleAccessTokenResult[] = [
    {
      ok: true,
      accessToken: 'ya29.example',
      expiresAt: 1_900_000_000,
      scopes: ['https://www.googleapis.com/auth/spreadsheets', 'https://www.googleapis.com/auth/drive.file'],
      email: 'alice@example.com',
      hostedDomain: 'example.com',
    },
    // A personal (consumer) account: no Workspace domain.
    {
      ok: true,
      accessToken: 'ya29.no-scopes',
      expiresAt: 1,
      scopes: [],
      email: 'carol@gmail.com',
      hostedDomain: '',
    },
    { ok: false, reason: 'GOOGLE_AUTH_REQUIRED' },
    { ok: false, reason: 'NOT_CONNECTED' },
  ];

  it.each(results)('round-trips %j', (result) => {
    expect(fromGetGoogleAccessTokenResponse(toGetGoogleAccessTokenResponse(result))).toEqual(result);
  });

  it('carries the account the token acts as: its email and Workspace domain', () => {
    const { token } = toGetGoogleAccessTokenResponse(results[0]!);
    expect(token).toMatchObject({ email: 'alice@example.com', hostedDomain: 'example.com' });
    expect(toGetGoogleAccessTokenResponse(results[1]!).token).toMatchObject({
      email: 'carol@gmail.com',
      hostedDomain: '',
    });
  });

  it('sends each refusal as its own enum value', () => {
    expect(toGetGoogleAccessTokenResponse({ ok: false, reason: 'NOT_CONNECTED' })).toEqual({
      token: undefined,
      refused: 'GOOGLE_TOKEN_REFUSAL_NOT_CONNECTED',
    });
    expect(toGetGoogleAccessTokenResponse({ ok: false, reason: 'GOOGLE_AUTH_REQUIRED' })).toEqual({
      token: undefined,
      refused: 'GOOGLE_TOKEN_REFUSAL_GOOGLE_AUTH_REQUIRED',
    });
  });

  it('reads an unset or unspecified refusal as GOOGLE_AUTH_REQUIRED', () => {
    expect(fromGetGoogleAccessTokenResponse({ token: undefined, refused: undefined })).toEqual({
      ok: false,
      reason: 'GOOGLE_AUTH_REQUIRED',
    });
    expect(
      fromGetGoogleAccessTokenResponse({ token: undefined, refused: 'GOOGLE_TOKEN_REFUSAL_UNSPECIFIED' }),
    ).toEqual({ ok: false, reason: 'GOOGLE_AUTH_REQUIRED' });
  });
});
