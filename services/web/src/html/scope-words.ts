/** What each Sheetgate scope lets an app do, in the words the consent screen shows. */
// Maps, not object literals: a scope named `constructor` must not find Object.prototype's members.
const SHEETGATE_SCOPES: ReadonlyMap<string, string> = new Map(
  Object.entries({
    'sheets:read': 'See your spreadsheets and list the spreadsheets in your Google Drive',
    'sheets:write': 'Create, change and delete spreadsheets, tabs, cell values and formatting',
    openid: 'Know which Sheetgate account you are',
    profile: 'See your name',
    email: 'See your email address',
    offline_access: 'Keep this access when you are not using the app, until you disconnect it',
  }),
);

/** Sheetgate scopes in the order people read them: data access first, identity after. */
const ORDER = ['sheets:read', 'sheets:write', 'openid', 'profile', 'email', 'offline_access'];

export function describeScopes(scopes: readonly string[]): Array<{ scope: string; words: string }> {
  const rank = (scope: string) => {
    const position = ORDER.indexOf(scope);
    return position === -1 ? ORDER.length : position;
  };
  return [...new Set(scopes)]
    .sort((a, b) => rank(a) - rank(b))
    .map((scope) => ({ scope, words: SHEETGATE_SCOPES.get(scope) ?? `Use the "${scope}" permission` }));
}

/** Access of an API key from its scopes. */
export function keyAccess(scopes: readonly string[]): string {
  return scopes.includes('sheets:write') ? 'Read and write' : 'Read only';
}

const GOOGLE_PREFIX = 'https://www.googleapis.com/auth/';

/** The Google scopes Sheetgate asks for, each in plain words (docs/design.md §7.8). */
export const GOOGLE_SCOPES: ReadonlyArray<{ scope: string; words: string; needed: boolean }> = [
  { scope: `${GOOGLE_PREFIX}spreadsheets`, words: 'Read and edit your Google Sheets', needed: true },
  { scope: `${GOOGLE_PREFIX}drive.readonly`, words: 'List and read files in your Drive', needed: true },
  {
    scope: `${GOOGLE_PREFIX}drive.file`,
    words: 'Create and convert files (only those Sheetgate created or opened)',
    needed: true,
  },
  { scope: 'openid', words: 'Sign you in', needed: false },
  { scope: 'email', words: 'Your email address', needed: false },
  { scope: 'profile', words: 'Your name', needed: false },
];

const GOOGLE_ALIASES: ReadonlyMap<string, string> = new Map([
  [`${GOOGLE_PREFIX}userinfo.email`, 'email'],
  [`${GOOGLE_PREFIX}userinfo.profile`, 'profile'],
]);

/**
 * The Google scopes of GOOGLE_SCOPE_MODE=picked-files: drive.file alone reaches the files Sheetgate
 * created and those the person chooses with the Google Picker.
 */
export const PICKED_FILES_GOOGLE_SCOPES: ReadonlyArray<{ scope: string; words: string; needed: boolean }> = [
  {
    scope: `${GOOGLE_PREFIX}drive.file`,
    words: 'Read and edit only the spreadsheets you choose for Sheetgate and the files it creates',
    needed: true,
  },
  ...GOOGLE_SCOPES.filter((entry) => !entry.needed),
];

/** Which of the scopes Sheetgate needs (in the deployment's mode) Google granted, and which are missing. */
export function googleGrant(granted: readonly string[], scopeMode = 'standard') {
  const normalised = new Set(granted.map((scope) => GOOGLE_ALIASES.get(scope) ?? scope));
  const scopes = scopeMode === 'picked-files' ? PICKED_FILES_GOOGLE_SCOPES : GOOGLE_SCOPES;
  return scopes.map((entry) => ({ ...entry, granted: normalised.has(entry.scope) }));
}
