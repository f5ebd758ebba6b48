export const DEFAULT_RETURN_TO = '/dashboard';

/**
 * Where a finished sign-in may send the browser: a path on our own origin, nothing else. A
 * second `/` or a `\` right after the first makes browsers read a host (`//evil.example`,
 * `/\evil.example`); control characters and a scheme are refused outright.
 */
export function safeReturnTo(value: unknown): string | undefined {
  if (value === undefined || value === '') return DEFAULT_RETURN_TO;
  if (typeof value !== 'string' || value.length > 2048) return undefined;
  if (!value.startsWith('/') || value[1] === '/' || value[1] === '\\') return undefined;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point
  if (/[\u0000-\u001f\u007f\\]/.test(value)) return undefined;
  // The URL parser is what a browser applies; the result must stay on the origin we gave it.
  const base = 'https://sheetgate.invalid';
  const resolved = new URL(value, base);
  if (resolved.origin !== base) return undefined;
  return `${resolved.pathname}${resolved.search}${resolved.hash}`;
}

const INTERACTION = /^\/api\/auth\/interaction\/([A-Za-z0-9_-]{1,64})$/;

/**
 * The login page to show after Google sign-in did not complete, carrying the pending OAuth
 * interaction (if the sign-in was for one) so the person can try again.
 */
export function loginPageWithError(returnTo: string, error: string): string {
  const query = new URLSearchParams({ error });
  const interaction = INTERACTION.exec(new URL(returnTo, 'https://sheetgate.invalid').pathname)?.[1];
  if (interaction) query.set('interaction', interaction);
  else if (returnTo !== DEFAULT_RETURN_TO) query.set('return_to', returnTo);
  return `/login?${query.toString()}`;
}
