import { HTML_PAGE_HEADERS, PAGE_HEADERS, pageContentSecurityPolicy } from '@sheetgate/service-runtime';
import type { Middleware } from 'koa';
import type { KoaContextWithOIDC } from 'oidc-provider';

/**
 * The HTML pages oidc-provider renders itself: RP-initiated logout's confirmation and signed-out
 * pages (Sheetgate's own, replacing the provider's defaults, which import a font from Google), and
 * `form_post` responses. Plain HTML: no inline style or script, nothing from another site.
 */

const escapeHtml = (text: string) =>
  text.replace(
    /[&<>"']/g,
    (character) =>
      ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[character] ?? character,
  );

function page(title: string, content: string): string {
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} · Sheetgate</title>
</head>
<body>
<main>
<h1>${escapeHtml(title)}</h1>
${content}
</main>
</body>
</html>`;
}

/** `features.rpInitiatedLogout.logoutSource`: `form` is the provider's hidden form (its xsrf token). */
export async function logoutSource(ctx: KoaContextWithOIDC, form: string): Promise<void> {
  const app = ctx.oidc.client?.clientName ?? ctx.oidc.client?.clientId;
  ctx.type = 'html';
  const buttons = `<p><button autofocus type="submit" name="logout" value="yes">Yes, sign me out</button>
<button type="submit">No, stay signed in</button></p>`;
  ctx.body = page(
    'Sign out of Sheetgate?',
    `<p>${app ? `${escapeHtml(app)} asks to sign you out` : 'An app asks to sign you out'} of Sheetgate in this browser.</p>
${form.replace('</form>', `${buttons}</form>`)}`,
  );
}

/** `features.rpInitiatedLogout.postLogoutSuccessSource`. */
export async function postLogoutSuccessSource(ctx: KoaContextWithOIDC): Promise<void> {
  const app = ctx.oidc.client?.clientName ?? ctx.oidc.client?.clientId;
  ctx.type = 'html';
  ctx.body = page(
    'You are signed out',
    `<p>You are signed out of Sheetgate in this browser${app ? `, as ${escapeHtml(app)} asked` : ''}. You can close this page.</p>`,
  );
}

/** A redirect URI as a CSP source: its origin, or its scheme for a native app's private-use one. */
function sourceOf(uri: unknown): string | undefined {
  const url = typeof uri === 'string' ? URL.parse(uri) : null;
  if (!url) return undefined;
  return url.origin !== 'null' ? url.origin : url.protocol;
}

/**
 * Where a page's form leads outside this site, to be allowed by `form-action`: a `form_post`
 * response posts to the app's redirect URI, and the logout confirmation posts here but redirects
 * to the app's post-logout URI, which Chromium also checks against `form-action`.
 */
function formTargets(ctx: KoaContextWithOIDC): string[] {
  const params = ctx.oidc?.params;
  if (!params) return [];
  const targets = [];
  if (typeof params.response_mode === 'string' && params.response_mode.startsWith('form_post'))
    targets.push(sourceOf(params.redirect_uri));
  if (ctx.oidc.route === 'end_session') targets.push(sourceOf(params.post_logout_redirect_uri));
  return targets.filter((target): target is string => target !== undefined);
}

/**
 * The headers every page of Sheetgate's carries (service-runtime's page-headers.ts), on every
 * provider answer. The CSP is set before the provider renders: its `form_post` page adds its inline
 * script's hash to `script-src`, so the form targets are put into that header afterwards.
 */
export function providerPageHeaders(): Middleware {
  return async (ctx, next) => {
    ctx.set({ 'content-security-policy': pageContentSecurityPolicy(), ...PAGE_HEADERS });
    await next();
    if (!ctx.response.is('html')) return;
    ctx.set(HTML_PAGE_HEADERS);
    const targets = formTargets(ctx as KoaContextWithOIDC);
    if (targets.length === 0) return;
    const directives = ctx.response
      .get('content-security-policy')
      .split(';')
      .map((directive) => directive.trim())
      .map((directive) =>
        directive.startsWith('form-action ') ? [directive, ...new Set(targets)].join(' ') : directive,
      );
    ctx.set('content-security-policy', directives.join('; '));
  };
}
