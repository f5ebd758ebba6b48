/** The Google API scopes Sheetgate's tools use in `standard` mode; any one missing makes a grant partial. */
export const GOOGLE_API_SCOPES = [
  'https://www.googleapis.com/auth/spreadsheets',
  'https://www.googleapis.com/auth/drive.readonly',
  'https://www.googleapis.com/auth/drive.file',
] as const;

export const DRIVE_FILE_SCOPE = 'https://www.googleapis.com/auth/drive.file';

/**
 * GOOGLE_SCOPE_MODE: `standard` asks for GOOGLE_API_SCOPES (drive.readonly is restricted);
 * `picked-files` asks for `drive.file` alone (non-sensitive), and the person chooses existing
 * files with the Google Picker on the dashboard.
 */
export type GoogleScopeMode = 'standard' | 'picked-files';

/** The API scopes a mode asks Google for. */
export function googleApiScopes(mode: GoogleScopeMode = 'standard'): readonly string[] {
  return mode === 'picked-files' ? [DRIVE_FILE_SCOPE] : GOOGLE_API_SCOPES;
}

/**
 * Exactly what the Google connection asks for (docs/design.md §7.8): sign-in plus the API scopes,
 * never full Drive (`https://www.googleapis.com/auth/drive`).
 */
export const GOOGLE_REQUESTED_SCOPES = ['openid', 'email', 'profile', ...GOOGLE_API_SCOPES] as const;

/** What the Google connection asks for in a mode. */
export function googleRequestedScopes(mode: GoogleScopeMode = 'standard'): string[] {
  return ['openid', 'email', 'profile', ...googleApiScopes(mode)];
}

/**
 * The scopes of a `scope` string, deduplicated, in a stable order: space-separated as Google's
 * token responses send them, or comma-separated as Better Auth stores them (the import).
 */
export function parseGrantedScopes(scope: string | null | undefined): string[] {
  return [...new Set((scope ?? '').split(/[\s,]+/).filter(Boolean))].sort();
}

/**
 * Google lets people untick scopes at its consent screen (granular consent): a grant is partial
 * when it lacks an API scope the mode asks for.
 */
export function isPartialGrant(
  grantedScopes: readonly string[],
  mode: GoogleScopeMode = 'standard',
): boolean {
  return googleApiScopes(mode).some((scope) => !grantedScopes.includes(scope));
}
