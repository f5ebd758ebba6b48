import type { GetInteractionResponse } from '@sheetgate/proto';
import { html, untrustedName } from '../html/html.ts';
import { renderPage, signOutForm } from '../html/layout.ts';
import { describeScopes } from '../html/scope-words.ts';

export interface ConsentPageInput {
  uid: string;
  interaction: GetInteractionResponse;
  /** The account the consent is for (GetSession), with auth's sign-out token. */
  account: { email: string; name: string; signOutCsrfToken: string };
}

/**
 * The consent screen (docs/design.md §4.1, §7.6): who asks, where the answer goes, as whom, for
 * what — and Allow / Deny posted to auth with auth's CSRF token for this interaction.
 */
export function consentPage(input: ConsentPageInput): string {
  const { uid, interaction, account } = input;
  const app = untrustedName(interaction.clientName || interaction.clientId);
  const scopes = describeScopes(interaction.requestedScopes);
  const action = `/api/auth/interaction/${encodeURIComponent(uid)}/consent`;
  const body = html`<h1>${app} wants to access your Google Sheets</h1>
${
  interaction.unverifiedClient
    ? html`<div class="warning"><p><strong>Sheetgate has not verified this app.</strong> Its name is what the app says
about itself. Allow it only if you just started connecting it yourself.</p></div>`
    : ''
}
<section aria-labelledby="where">
<h2 id="where">Where the answer goes</h2>
<p>After you decide, your browser goes to <code>${interaction.redirectHost || 'an unknown address'}</code>.</p>
${
  interaction.loopbackRedirect
    ? html`<div class="warning"><p>This address is <strong>on this computer</strong>: any program running here could
receive the access. That is normal for apps installed on your computer; allow it only if you started this app.</p></div>`
    : ''
}
</section>
<section aria-labelledby="as-whom">
<h2 id="as-whom">Your account</h2>
<p>The app will act as <strong>${account.email}</strong>${account.name ? html` (${account.name})` : ''}, using the Google
account connected to it.</p>
<div class="not-you"><span>Not you?</span> ${signOutForm(account.signOutCsrfToken, 'Sign out', 'link', uid)}</div>
</section>
<section aria-labelledby="asks">
<h2 id="asks">It asks to</h2>
<ul class="scopes">
${scopes.map(({ scope, words }) => html`<li>${words} <span class="muted">(<code>${scope}</code>)</span></li>`)}
</ul>
<p class="hint">You can disconnect the app at any time from your dashboard.</p>
</section>
<form method="post" action="${action}">
<input type="hidden" name="csrf" value="${interaction.consentCsrfToken}">
<div class="actions">
<button type="submit" name="decision" value="allow" class="primary">Allow</button>
<button type="submit" name="decision" value="deny">Deny</button>
</div>
</form>`;
  return renderPage({ title: 'Allow access?', body, narrow: true });
}
