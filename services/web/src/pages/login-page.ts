import { html, type SafeHtml, untrustedName } from '../html/html.ts';
import { type HeaderAccount, renderPage } from '../html/layout.ts';
import type { RedirectTarget } from '../html/redirect-target.ts';

/** The app asking, when /login is part of an OAuth authorization. */
export interface LoginInteraction {
  uid: string;
  clientName: string;
  redirect: RedirectTarget;
  unverifiedClient: boolean;
}

export interface LoginPageInput {
  /** Where Google sign-in returns to: the OAuth interaction, or a path of the dashboard. */
  returnTo: string;
  interaction?: LoginInteraction | undefined;
  /** `/login?interaction=…` named an authorization that no longer exists. */
  interactionExpired?: boolean;
  error?: string | undefined;
  signedOut?: boolean;
  /** Signing in returns to an app's authorization request (after "Not you? Sign out" on consent). */
  continuesAuthorization?: boolean;
  account?: HeaderAccount | undefined;
}

/** The `error` values auth's Google callback sends back (services/auth/src/google/sign-in-routes.ts). */
const ERRORS: ReadonlyMap<string, { title: string; text: string }> = new Map(
  Object.entries({
    google_cancelled: {
      title: 'You cancelled signing in with Google.',
      text: 'Nothing was shared with Sheetgate. Sign in again when you are ready.',
    },
    google_failed: {
      title: 'Google did not complete the sign-in.',
      text: 'Google refused the request or could not be reached. Try again; if it keeps failing, try again later.',
    },
  }),
);

export function googleSignInHref(returnTo: string): string {
  return `/api/auth/google/start?return_to=${encodeURIComponent(returnTo)}`;
}

function errorBox(error: string): SafeHtml {
  const known = ERRORS.get(error) ?? {
    title: 'Signing in did not complete.',
    text: 'Try again.',
  };
  return html`<div class="error" role="alert"><p><strong>${known.title}</strong></p><p>${known.text}</p></div>`;
}

function answerGoesTo(target: RedirectTarget): SafeHtml | string {
  switch (target.kind) {
    case 'web':
    case 'loopback':
      return html` (it will receive the answer at <code>${target.host}</code>)`;
    case 'app':
      return html` (it will receive the answer through <code>${target.scheme}:</code> links, in an app on this computer)`;
    case 'unknown':
      return target.shown ? html` (it will receive the answer at <code>${target.shown}</code>)` : '';
  }
}

export function loginPage(input: LoginPageInput): string {
  const { interaction } = input;
  const asking = interaction
    ? html`<p><strong>${untrustedName(interaction.clientName)}</strong> wants to use your Google Sheets through
Sheetgate${answerGoesTo(interaction.redirect)}.
Sign in first; you will then see exactly what it asks for and can allow or deny it.</p>
${interaction.unverifiedClient ? html`<p class="hint">Sheetgate has not verified this app: its name is what the app says about itself.</p>` : ''}`
    : '';
  const body = html`<h1>Sign in to Sheetgate</h1>
${input.error ? errorBox(input.error) : ''}
${input.signedOut ? html`<div class="notice" role="status"><p>You are signed out.</p></div>` : ''}
${
  input.continuesAuthorization && !interaction
    ? html`<p>Sign in with the account the app should use: you will then be asked again whether to allow it.</p>`
    : ''
}
${
  input.interactionExpired
    ? html`<div class="warning" role="alert"><p><strong>This sign-in request has expired.</strong></p>
<p>Go back to the app you were connecting and start again. You can still sign in to your dashboard here.</p></div>`
    : ''
}
<section aria-labelledby="what">
<h2 id="what" class="muted">What is Sheetgate?</h2>
<p>Sheetgate lets AI assistants (MCP clients) and your scripts read and edit your Google Sheets, only with
your consent. You sign in with your Google account; nothing else.</p>
${asking}
<p class="actions"><a class="button primary" href="${googleSignInHref(input.returnTo)}">Sign in with Google</a></p>
${
  input.account && !interaction
    ? html`<p class="hint">You are already signed in as ${input.account.email}. <a href="/dashboard">Go to your dashboard</a>.</p>`
    : ''
}
</section>`;
  return renderPage({ title: 'Sign in', body, narrow: true, account: input.account });
}
