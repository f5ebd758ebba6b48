import { assets } from '../assets/assets.ts';
import { html, type SafeHtml } from './html.ts';

/** The signed-in person shown in the header, with auth's CSRF token for the sign-out form. */
export interface HeaderAccount {
  email: string;
  signOutCsrfToken: string;
}

export interface PageOptions {
  title: string;
  body: SafeHtml;
  account?: HeaderAccount | undefined;
  /** A narrow column for the sign-in and consent screens. */
  narrow?: boolean;
  /** Loads the copy-button script. */
  copyScript?: boolean;
  /** Loads the dashboard's Google Picker script ("Choose spreadsheets"). */
  pickerScript?: boolean;
}

/**
 * The sign-out form: posts to auth, which ends the dashboard and provider sessions. From the
 * consent screen it names the pending `interaction`, so that signing in again continues the
 * app's authorization as the new account.
 */
export function signOutForm(
  csrfToken: string,
  label = 'Sign out',
  buttonClass = '',
  interaction?: string,
): SafeHtml {
  return html`<form method="post" action="/api/auth/sign-out" class="inline">
<input type="hidden" name="csrf" value="${csrfToken}">
${interaction ? html`<input type="hidden" name="interaction" value="${interaction}">` : ''}
<button type="submit" class="${buttonClass}">${label}</button>
</form>`;
}

/** Every page's shell: language, viewport for phones, the one stylesheet, a header and `main`. */
export function renderPage(options: PageOptions): string {
  const account = options.account
    ? html`<div class="account"><span>Signed in as <strong>${options.account.email}</strong></span>
${signOutForm(options.account.signOutCsrfToken)}</div>`
    : '';
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${options.title} · Sheetgate</title>
<link rel="stylesheet" href="${assets.stylesheet.url}">
${options.copyScript ? html`<script src="${assets.copyScript.url}" defer></script>` : ''}
${options.pickerScript ? html`<script src="${assets.pickerScript.url}" defer></script>` : ''}
</head>
<body>
<header class="site-header">
<a class="brand" href="/">Sheetgate</a>
${account}
</header>
<main class="${options.narrow ? 'narrow' : ''}">
${options.body}
</main>
</body>
</html>
`.toString();
}
