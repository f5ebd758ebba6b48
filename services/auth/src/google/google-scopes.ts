/** The Google API scopes Sheetgate's tools use; any one missing makes a grant partial. */
export const GOOGLE_API_SCOPES = [
  'https://www.googleapis.com/auth/spreadsheets',
  'https://www.googleapis.com/auth/drive.readonly',
  'https://www.googleapis.com/auth/drive.file',
] as const;

/**
 * Exactly what the Google connection asks for (docs/design.md §7.8): sign-in plus the API scopes,
 * never full Drive (`https://www.googleapis.com/auth/drive`).
 */
export const GOOGLE_REQUESTED_SCOPES = ['openid', 'email', 'profile', ...GOOGLE_API_SCOPES] as const;

/**
 * The scopes of a `scope` string, deduplicated, in a stable order: space-separated as Google's
 * token responses send them, or comma-separated as Better Auth stores them (the import).
 */
export function parseGrantedScopes(scope: string | null | undefined): string[] {
  return [...new Set((scope ?? '').split(/[\s,]+/).filter(Boolean))].sort();
}

/** Google lets people untick scopes at its consent screen (granular consent). */
export function isPartialGrant(grantedScopes: readonly string[]): boolean {
  return GOOGLE_API_SCOPES.some((scope) => !grantedScopes.includes(scope));
}
