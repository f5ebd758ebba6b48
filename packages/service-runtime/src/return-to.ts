/** Where a browser goes after signing in when nothing else was asked for. */
export const DEFAULT_RETURN_TO = '/dashboard';

const MAX_RETURN_TO_LENGTH = 2048;
// Any origin works: the check is only that resolving against it stays on it.
const SAME_SITE = 'https://sheetgate.invalid';

/**
 * Where a finished sign-in may send the browser: a path on our own origin, nothing else, as
 * `path?query` (a `#fragment` is dropped: the server never sees one and a return needs none).
 * Nothing asked for (absent or empty) is `DEFAULT_RETURN_TO`; anything refused is undefined, for
 * the caller to answer with an error or its own fallback. A second `/` or a `\` right after the
 * first makes browsers read a host (`//evil.example`, `/\evil.example`); control characters and
 * a scheme are refused outright.
 */
export function safeReturnTo(value: unknown): string | undefined {
  if (value === undefined || value === '') return DEFAULT_RETURN_TO;
  if (typeof value !== 'string' || value.length > MAX_RETURN_TO_LENGTH) return undefined;
  if (!value.startsWith('/') || value[1] === '/' || value[1] === '\\') return undefined;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point
  if (/[\u0000-\u001f\u007f\\]/.test(value)) return undefined;
  // The URL parser is what a browser applies; the result must stay on the origin we gave it.
  const resolved = new URL(value, SAME_SITE);
  if (resolved.origin !== SAME_SITE) return undefined;
  return `${resolved.pathname}${resolved.search}`;
}
