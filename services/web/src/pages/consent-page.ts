import type { GetInteractionResponse } from '@sheetgate/proto';
import { choiceCheckboxes, choicesOf } from '../html/credential-choices.ts';
import { html, type SafeHtml, untrustedName } from '../html/html.ts';
import { renderPage, signOutForm } from '../html/layout.ts';
import { type RedirectTarget, redirectTarget } from '../html/redirect-target.ts';
import { describeScopes } from '../html/scope-words.ts';
import { toolsetCheckboxes } from '../html/toolset-choices.ts';

export interface ConsentPageInput {
  uid: string;
  interaction: GetInteractionResponse;
  /** The account the consent is for (GetSession), with auth's sign-out token. */
  account: { email: string; name: string; signOutCsrfToken: string };
  /** Allow was pressed with no toolset checked: the screen says to choose one, none checked as sent. */
  noToolsetsChosen?: boolean;
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
  input.noToolsetsChosen
    ? html`<div class="error" role="alert"><p>Choose at least one toolset to allow the app, or deny it.</p></div>`
    : ''
}
${
  interaction.unverifiedClient
    ? html`<div class="warning"><p><strong>Sheetgate has not verified this app.</strong> Its name is what the app says
about itself. Allow it only if you just started connecting it yourself.</p></div>`
    : ''
}
<section aria-labelledby="where">
<h2 id="where">Where the answer goes</h2>
${destination(redirectTarget(interaction))}
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
<form method="post" action="${action}" aria-label="Allow or deny">
<input type="hidden" name="csrf" value="${interaction.consentCsrfToken}">
${toolsetCheckboxes(input.noToolsetsChosen ? [] : interaction.toolsets, 'The tools the app may offer its model; fewer tools cost each conversation less. You can change this by connecting the app again.')}
${choiceCheckboxes(choicesOf(interaction), 'You can change these on your dashboard at any time, without connecting the app again.')}
<div class="actions">
<button type="submit" name="decision" value="allow" class="primary">Allow</button>
<button type="submit" name="decision" value="deny">Deny</button>
</div>
</form>`;
  return renderPage({ title: 'Allow access?', body, narrow: true });
}

/** Where the browser goes after Allow or Deny, with a warning when that is this computer. */
function destination(target: RedirectTarget): SafeHtml {
  switch (target.kind) {
    case 'web':
      return html`<p>After you decide, your browser goes to <code>${target.host}</code>.</p>`;
    case 'loopback':
      return html`<p>After you decide, your browser goes to <code>${target.host}</code>.</p>
<div class="warning"><p>This address is <strong>on this computer</strong>: any program running here could
receive the access. That is normal for apps installed on your computer; allow it only if you started this app.</p></div>`;
    case 'app':
      return html`<p>After you decide, your browser opens the app that handles <code>${target.scheme}:</code> links
<strong>on this computer</strong>.</p>
<div class="warning"><p>This is not a website: any app installed on this computer may have claimed
<code>${target.scheme}:</code> links. That is normal for apps installed on your computer; allow it only if you started
this app.</p></div>`;
    case 'unknown':
      return html`<p>After you decide, your browser goes to <code>${target.shown || 'an unknown address'}</code>.</p>`;
  }
}
