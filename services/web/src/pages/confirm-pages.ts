import type { ApiKey, ConnectedApp } from '@sheetgate/proto';
import { html, type SafeHtml, untrustedName } from '../html/html.ts';
import { type HeaderAccount, renderPage } from '../html/layout.ts';
import { describeScopes, keyAccess } from '../html/scope-words.ts';
import { displayTime } from '../html/time.ts';

/**
 * The confirmation step of a destructive action, working without JavaScript: the list's button
 * opens this page (GET), and only its form (POST with web's CSRF token) acts.
 */
function confirmPage(options: {
  title: string;
  heading: SafeHtml;
  details: SafeHtml;
  action: string;
  hidden: Record<string, string>;
  csrfToken: string;
  button: string;
  account: HeaderAccount;
}): string {
  const body = html`<h1>${options.heading}</h1>
${options.details}
<form method="post" action="${options.action}">
<input type="hidden" name="csrf" value="${options.csrfToken}">
${Object.entries(options.hidden).map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`)}
<div class="actions">
<button type="submit" class="danger">${options.button}</button>
<a class="button" href="/dashboard">Cancel</a>
</div>
</form>`;
  return renderPage({ title: options.title, body, narrow: true, account: options.account });
}

export function revokeKeyPage(key: ApiKey, csrfToken: string, account: HeaderAccount): string {
  return confirmPage({
    title: 'Revoke API key',
    heading: html`Revoke the API key ${untrustedName(key.name)}?`,
    details: html`<section><p>Key <code>${key.displayPrefix}…</code> (${keyAccess(key.scopes).toLowerCase()}), created
${displayTime(key.createdAt)}, last used ${displayTime(key.lastUsedAt)}.</p>
<div class="warning"><p>Every script or client using it stops working with its very next request. This cannot be undone.</p></div></section>`,
    action: '/dashboard/api-keys/revoke',
    hidden: { key: key.id },
    csrfToken,
    // Named like the list's button: "Revoke" twice revokes, with or without JavaScript.
    button: 'Revoke',
    account,
  });
}

export function disconnectAppPage(app: ConnectedApp, csrfToken: string, account: HeaderAccount): string {
  return confirmPage({
    title: 'Disconnect app',
    heading: html`Disconnect ${untrustedName(app.clientName || app.clientId)}?`,
    details: html`<section><p>It sends answers to <code>${app.redirectHost}</code> and may:</p>
<ul class="scopes">${describeScopes(app.scopes).map(({ words }) => html`<li>${words}</li>`)}</ul>
<div class="warning"><p>Its access and refresh tokens stop working. To use it again, connect it again from the app.</p></div></section>`,
    action: '/dashboard/apps/disconnect',
    hidden: { client: app.clientId },
    csrfToken,
    button: 'Disconnect',
    account,
  });
}
