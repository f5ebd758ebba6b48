import { SCOPE_DESCRIPTIONS } from './scopes.ts';

const escapeHtml = (text: string) =>
  text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');

/**
 * The sign-in and consent page: one form, the API scopes as ticked checkboxes (granular consent),
 * one submit button per account whose accessible name is exactly the email, and "Cancel".
 */
export function renderChooserPage(options: {
  action: string;
  requestId: string;
  clientId: string;
  accounts: string[];
  loginHint: string | undefined;
  optionalScopes: string[];
}): string {
  const hinted = options.accounts.filter((email) => email === options.loginHint?.toLowerCase());
  const ordered = [...hinted, ...options.accounts.filter((email) => !hinted.includes(email))];
  const scopes = options.optionalScopes
    .map(
      (scope, index) => `
      <li><input type="checkbox" id="scope-${index}" name="scope" value="${escapeHtml(scope)}" checked>
        <label for="scope-${index}">${escapeHtml(SCOPE_DESCRIPTIONS[scope] ?? scope)}</label></li>`,
    )
    .join('');
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
