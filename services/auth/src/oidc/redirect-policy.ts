/**
 * Registration metadata as real MCP clients send it (Claude Code, VS Code, Cursor, MCP Inspector,
 * mcp-remote), made to fit oidc-provider's model:
 * - a client that omits `application_type` but registers loopback http or private-use-scheme
 *   redirects is a native app (RFC 8252): oidc-provider then lets loopback redirects use any port
 *   (§7.3) and allows the custom schemes, while https redirects still match exactly;
 * - `scope` at registration is reduced to the scopes this server knows, instead of failing.
 * Plain http to a non-loopback host, fragments and userinfo stay refused by the provider's own
 * checks (and by `assertRedirectUriSafe`).
 */
const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

export function isLoopbackHttp(uri: URL): boolean {
  return uri.protocol === 'http:' && LOOPBACK_HOSTS.has(uri.hostname);
}

function isPrivateUseScheme(uri: URL): boolean {
  return uri.protocol !== 'http:' && uri.protocol !== 'https:';
}

export function normalizeRegistration(
  body: Record<string, unknown>,
  knownScopes: ReadonlySet<string>,
): Record<string, unknown> {
  const normalized = { ...body };
  const redirects = Array.isArray(body.redirect_uris) ? body.redirect_uris : [];
  const parsed = redirects.map((value) => (typeof value === 'string' ? URL.parse(value) : null));
  if (
    normalized.application_type === undefined &&
    parsed.some((uri) => uri && (isLoopbackHttp(uri) || isPrivateUseScheme(uri)))
  ) {
    normalized.application_type = 'native';
  }
  if (typeof body.scope === 'string') {
    const kept = body.scope.split(' ').filter((scope) => knownScopes.has(scope));
    if (kept.length > 0) normalized.scope = kept.join(' ');
    else delete normalized.scope;
  }
  return normalized;
}

/** Redirect URIs we refuse whatever the client type: credentials in the URL, or a fragment. */
export function unsafeRedirectReason(value: unknown): string | undefined {
  if (typeof value !== 'string') return 'redirect_uris must be strings';
  const uri = URL.parse(value);
  if (!uri) return 'redirect_uris must be absolute URIs';
  if (uri.username || uri.password) return 'redirect_uris must not contain user information';
  if (value.includes('#')) return 'redirect_uris must not contain fragments';
  if (uri.protocol === 'http:' && !isLoopbackHttp(uri)) return 'redirect_uris using http must be loopback';
  if (['javascript:', 'data:', 'file:', 'vbscript:'].includes(uri.protocol))
    return `redirect_uris must not use ${uri.protocol}`;
  return undefined;
}
