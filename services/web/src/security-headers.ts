import type { Context, Middleware } from 'koa';

/**
 * Extra `form-action` sources for this response. The consent form posts to auth, which redirects
 * to the app's redirect URI, and Chromium applies `form-action` to every redirect after a form
 * submission (CSP Level 3 §6.4.1 leaves this to browsers): without the app's origin, Allow and
 * Deny would be blocked on the way back to the app.
 */
export function allowFormActionTo(ctx: Context, source: string): void {
  const sources: string[] = ctx.state.formActionSources ?? [];
  sources.push(source);
  ctx.state.formActionSources = sources;
}

/** Headers every page carries (docs/design.md §7.5): no framing, a strict CSP, no referrer to other sites. */
export function securityHeaders(): Middleware {
  return async (ctx, next) => {
    try {
      await next();
    } finally {
      const formAction = ["'self'", ...((ctx.state.formActionSources as string[] | undefined) ?? [])];
      ctx.set({
        'content-security-policy': [
          "default-src 'none'",
          "script-src 'self'",
          "style-src 'self'",
          "img-src 'self' data:",
          `form-action ${formAction.join(' ')}`,
          "frame-ancestors 'none'",
          "base-uri 'none'",
        ].join('; '),
        'x-frame-options': 'DENY',
        'x-content-type-options': 'nosniff',
        // Nothing leaves for another origin; same-origin requests keep theirs because, under
        // `no-referrer`, browsers send `Origin: null` on form posts (Fetch §3.1 "append a request
        // Origin header") and the dashboard's same-origin check would refuse its own forms.
        'referrer-policy': 'same-origin',
        'cross-origin-opener-policy': 'same-origin',
        'cross-origin-resource-policy': 'same-origin',
        'permissions-policy': 'camera=(), microphone=(), geolocation=(), payment=()',
      });
    }
  };
}
