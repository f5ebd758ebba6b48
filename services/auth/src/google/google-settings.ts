import type { AuthSettings } from '../settings.ts';

/** The settings the Google parts read; a subset, so tests can build them without the whole service. */
export type GoogleSettings = Pick<
  AuthSettings,
  'BASE_URL' | 'GOOGLE_CLIENT_ID' | 'GOOGLE_CLIENT_SECRET' | 'GOOGLE_EMULATOR_URL'
> &
  /** Absent: `standard`. */
  Partial<Pick<AuthSettings, 'GOOGLE_SCOPE_MODE'>>;

/** Google redirects back here after sign-in; registered with Google as the client's redirect URI. */
export const googleRedirectUri = (settings: Pick<GoogleSettings, 'BASE_URL'>) =>
  `${settings.BASE_URL.replace(/\/+$/, '')}/api/auth/google/callback`;
