import { GOOGLE_SCOPES } from '../contracts.ts';

export const USERINFO_EMAIL = 'https://www.googleapis.com/auth/userinfo.email';
export const USERINFO_PROFILE = 'https://www.googleapis.com/auth/userinfo.profile';

/** The scope strings Google reports in a token response for what was asked: `email` → userinfo.email. */
const CANONICAL: Record<string, string> = {
  [GOOGLE_SCOPES.email]: USERINFO_EMAIL,
  [GOOGLE_SCOPES.profile]: USERINFO_PROFILE,
};

const IDENTITY_SCOPES = new Set<string>([GOOGLE_SCOPES.openid, USERINFO_EMAIL, USERINFO_PROFILE]);

/** Splits a space-separated `scope` parameter into Google's canonical scope strings, deduplicated. */
export function parseScopeParameter(scope: string | null | undefined): string[] {
  const scopes = (scope ?? '')
    .split(/\s+/)
    .filter(Boolean)
    .map((each) => CANONICAL[each] ?? each);
  return [...new Set(scopes)];
}

/** Sign-in scopes are always granted; only API scopes get a checkbox on the consent page. */
export function isIdentityScope(scope: string): boolean {
  return IDENTITY_SCOPES.has(scope);
}

/** Scopes the emulator knows how to enforce; others are refused at the authorization endpoint. */
export const KNOWN_SCOPES = new Set<string>([
  ...IDENTITY_SCOPES,
  GOOGLE_SCOPES.spreadsheets,
  GOOGLE_SCOPES.spreadsheetsReadonly,
  GOOGLE_SCOPES.drive,
  GOOGLE_SCOPES.driveReadonly,
  GOOGLE_SCOPES.driveFile,
  'https://www.googleapis.com/auth/drive.metadata.readonly',
]);

/** Human descriptions for the consent page, close to Google's wording. */
export const SCOPE_DESCRIPTIONS: Record<string, string> = {
  [GOOGLE_SCOPES.spreadsheets]: 'See, edit, create, and delete all your Google Sheets spreadsheets',
  [GOOGLE_SCOPES.spreadsheetsReadonly]: 'See all your Google Sheets spreadsheets',
  [GOOGLE_SCOPES.drive]: 'See, edit, create, and delete all of your Google Drive files',
  [GOOGLE_SCOPES.driveReadonly]: 'See and download all your Google Drive files',
  [GOOGLE_SCOPES.driveFile]:
    'See, edit, create, and delete only the specific Google Drive files you use with this app',
  'https://www.googleapis.com/auth/drive.metadata.readonly': 'See information about your Google Drive files',
};
