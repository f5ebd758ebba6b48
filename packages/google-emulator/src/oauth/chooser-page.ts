import { SCOPE_DESCRIPTIONS } from './scopes.ts';

/** The form field of the "Select all" checkbox. */
export const SELECT_ALL = 'select_all';

/**
 * Google shows its granular consent checkboxes when more than one non-sign-in scope is asked for
 * (developers.google.com/identity/protocols/oauth2/resources/granular-permissions); one such
 * scope is granted or refused with the whole request.
 */
export function hasScopeChoice(apiScopes: readonly string[]): boolean {
  return apiScopes.length > 1;
}

const escapeHtml = (text: string) =>
  text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');

/**
 * The sign-in and consent page: one form; with more than one API scope, a checkbox per scope
 * (granular consent), ticked or not as configured, plus "Select all" when they start unticked;
 * one submit button per account whose accessible name is exactly the email; and "Cancel".
 */
export function renderChooserPage(options: {
  action: string;
  requestId: string;
  clientId: string;
  accounts: string[];
  loginHint: string | undefined;
  /** The API scopes asked for (not openid, email, profile). */
  optionalScopes: string[];
  /** Whether the scope checkboxes start ticked (the emulator's default) or unticked (Google's). */
  scopesTicked: boolean;
}): string {
  const hinted = options.accounts.filter((email) => email === options.loginHint?.toLowerCase());
  const ordered = [...hinted, ...options.accounts.filter((email) => !hinted.includes(email))];
  const scopes = scopeItems(options.optionalScopes, options.scopesTicked);
  const accounts = ordered
    .map(
      (email) =>
        `\n      <li><button type="submit" name="account" value="${escapeHtml(email)}"${
          hinted.includes(email) ? ' autofocus' : ''
        }>${escapeHtml(email)}</button></li>`,
    )
    .join('');
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Sign in - Google Accounts (emulator)</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body>
  <main>
    <h1>Choose an account</h1>
    <p>to continue to <strong>${escapeHtml(options.clientId)}</strong></p>
    <form method="post" action="${escapeHtml(options.action)}">
      <input type="hidden" name="request" value="${escapeHtml(options.requestId)}">
      ${
        scopes
          ? `<fieldset><legend>This app wants to</legend><ul>${scopes}
      </ul></fieldset>`
          : ''
      }
      <ul aria-label="Accounts">${accounts}
      </ul>
      <button type="submit" name="cancel" value="1">Cancel</button>
    </form>
  </main>
</body>
</html>
`;
}

const describe = (scope: string) => escapeHtml(SCOPE_DESCRIPTIONS[scope] ?? scope);

/** The list items of the "This app wants to" box: plain lines, or checkboxes when there is a choice. */
function scopeItems(apiScopes: string[], ticked: boolean): string {
  if (!hasScopeChoice(apiScopes))
    return apiScopes.map((scope) => `\n      <li>${describe(scope)}</li>`).join('');
  const selectAll = ticked
    ? ''
    : `\n      <li><input type="checkbox" id="scope-all" name="${SELECT_ALL}" value="1">
        <label for="scope-all">Select all</label></li>`;
  const checked = ticked ? ' checked' : '';
  const boxes = apiScopes.map((scope, index) => {
    const id = `scope-${index}`;
    return `\n      <li><input type="checkbox" id="${id}" name="scope" value="${escapeHtml(scope)}"${checked}>
        <label for="${id}">${describe(scope)}</label></li>`;
  });
  return selectAll + boxes.join('');
}

/** Google shows an error page, not a redirect, when the client or redirect URI is wrong. */
export function renderAuthorizationErrorPage(error: string, description: string): string {
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Error 400: ${escapeHtml(error)}</title></head>
<body>
  <main>
    <h1>Access blocked: authorization error</h1>
    <p>Error 400: ${escapeHtml(error)}</p>
    <p>${escapeHtml(description)}</p>
  </main>
</body>
</html>
`;
}
