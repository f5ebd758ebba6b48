/**
 * The headers every HTML page Sheetgate serves carries, whichever service renders it (web's pages,
 * the pages oidc-provider renders in auth): one policy, so the two cannot drift apart.
 */

/**
 * A strict CSP: nothing from another site, no framing, no inline script or style. `formAction`
 * names where a page's forms may lead besides this site (Chromium applies `form-action` to the
 * redirects after a submission too, so a consent form needs the app's redirect target).
 */
export function pageContentSecurityPolicy(formAction: readonly string[] = []): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    `form-action ${["'self'", ...new Set(formAction)].join(' ')}`,
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join('; ');
}

/** Set on every answer, before anything renders. */
export const PAGE_HEADERS: Readonly<Record<string, string>> = {
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  // Nothing leaves for another origin; same-origin requests keep theirs because, under
  // `no-referrer`, browsers send `Origin: null` on form posts (Fetch §3.1 "append a request
  // Origin header") and the same-origin checks of the forms would refuse their own pages.
  'referrer-policy': 'same-origin',
};

/** Added to HTML answers: their own browsing-context group, no embedding, no powerful features. */
export const HTML_PAGE_HEADERS: Readonly<Record<string, string>> = {
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
  'permissions-policy': 'camera=(), microphone=(), geolocation=(), payment=()',
};
