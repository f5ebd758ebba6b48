import { HTML_PAGE_HEADERS, PAGE_HEADERS, pageContentSecurityPolicy } from '@sheetgate/service-runtime';
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

/**
 * The Google Picker's origins for this response (the dashboard in picked-files mode): the origin
 * its loader script comes from joins `script-src`, the origin of the frame it opens `frame-src`,
 * and `connect-src 'self'` lets the page fetch the Picker's token. Nothing else is widened, and no
 * other page gets them.
 */
export function allowPickerSources(
  ctx: Context,
  sources: { scriptOrigin: string; frameOrigin: string },
): void {
  ctx.state.pickerSources = sources;
}

/** The page CSP, widened for the Picker when the response asked for it. */
export function contentSecurityPolicy(
  formAction: readonly string[],
  picker: { scriptOrigin: string; frameOrigin: string } | undefined,
): string {
  const policy = pageContentSecurityPolicy(formAction);
  if (!picker) return policy;
  // connect-src 'self': the dashboard's script fetches the Picker's token from this site.
  return `${policy.replace("script-src 'self'", `script-src 'self' ${picker.scriptOrigin}`)}; connect-src 'self'; frame-src ${picker.frameOrigin}`;
}

/**
 * Headers every page carries (docs/design.md §7.5): no framing, a strict CSP, no referrer to other
 * sites. Under `noReferrerUnder` (paths whose address is worth keeping to oneself, such as the
 * approval page's link) no referrer at all, not even to this site.
 */
export function securityHeaders(options: { noReferrerUnder?: readonly string[] } = {}): Middleware {
  const noReferrerUnder = options.noReferrerUnder ?? [];
  return async (ctx, next) => {
    try {
      await next();
    } finally {
      ctx.set({
        'content-security-policy': contentSecurityPolicy(
          ctx.state.formActionSources ?? [],
          ctx.state.pickerSources,
        ),
        ...PAGE_HEADERS,
        ...HTML_PAGE_HEADERS,
        ...(noReferrerUnder.some((prefix) => ctx.path.startsWith(prefix))
          ? { 'referrer-policy': 'no-referrer' }
          : {}),
      });
    }
  };
}
