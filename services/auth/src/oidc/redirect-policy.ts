/**
 * Sheetgate's redirect policy (docs/design.md §7.3) and the client shapes real MCP clients use, for
 * every client oidc-provider builds: registered ones (Claude Code, VS Code, Cursor, MCP Inspector,
 * mcp-remote) and Client ID Metadata Documents (Claude Code's lists `http://localhost/callback` and
 * `http://127.0.0.1/callback` without `application_type`):
 * - https redirects; http only on a loopback host; never user information or a fragment;
 * - a client that omits `application_type` but has loopback-http or private-use-scheme redirects
 *   is native (RFC 8252): oidc-provider then matches its loopback redirects on any port (§7.3)
 *   and allows its private-use schemes (§7.1), while https redirects still match exactly. An
 *   explicit `application_type: "web"` keeps exact matching and refuses private-use schemes;
 * - a `scope` is reduced to the scopes this server knows, instead of failing.
 */
const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);
const FORBIDDEN_SCHEMES = new Set(['javascript:', 'data:', 'file:', 'vbscript:', 'blob:']);

export function isLoopbackHttp(uri: URL): boolean {
  return uri.protocol === 'http:' && LOOPBACK_HOSTS.has(uri.hostname);
}

function isPrivateUseScheme(uri: URL): boolean {
  return uri.protocol !== 'http:' && uri.protocol !== 'https:';
}

/** Why a redirect URI is refused whatever the client, or undefined when it may be registered. */
export function redirectUriViolation(value: unknown): string | undefined {
  if (typeof value !== 'string') return 'redirect URIs must be strings';
  const uri = URL.parse(value);
  if (!uri) return 'redirect URIs must be absolute URIs';
  if (uri.username || uri.password) return 'redirect URIs must not contain user information';
  if (value.includes('#')) return 'redirect URIs must not contain fragments';
  if (uri.protocol === 'http:' && !isLoopbackHttp(uri)) return 'redirect URIs using http must be loopback';
  if (FORBIDDEN_SCHEMES.has(uri.protocol)) return `redirect URIs must not use ${uri.protocol}`;
  return undefined;
}

export class ClientPolicyError extends Error {
  readonly error: 'invalid_redirect_uri' | 'invalid_client_metadata';
  constructor(error: ClientPolicyError['error'], message: string) {
    super(message);
    this.name = 'ClientPolicyError';
    this.error = error;
  }
}

/**
 * Applies the policy to client metadata in place (before oidc-provider validates it): throws a
 * ClientPolicyError for a redirect URI that is never allowed, infers `application_type`, and keeps
 * only known scopes. Shapes oidc-provider checks itself (arrays, strings) are left to it.
 */
export function applyClientPolicy(metadata: Record<string, unknown>, knownScopes: ReadonlySet<string>): void {
  if (containsNul(metadata))
    throw new ClientPolicyError('invalid_client_metadata', 'client metadata must not contain NUL characters');
  const redirects = Array.isArray(metadata.redirect_uris) ? (metadata.redirect_uris as unknown[]) : [];
  const logoutRedirects = Array.isArray(metadata.post_logout_redirect_uris)
    ? (metadata.post_logout_redirect_uris as unknown[])
    : [];
  for (const value of [...redirects, ...logoutRedirects]) {
    const violation = redirectUriViolation(value);
    if (violation) throw new ClientPolicyError('invalid_redirect_uri', violation);
  }
  if (metadata.application_type === undefined || metadata.application_type === null) {
    const nativeShaped = redirects.some((value) => {
      const uri = URL.parse(String(value));
      return uri !== null && (isLoopbackHttp(uri) || isPrivateUseScheme(uri));
    });
    metadata.application_type = nativeShaped ? 'native' : 'web';
  }
  if (typeof metadata.scope === 'string') {
    const kept = metadata.scope.split(' ').filter((scope) => knownScopes.has(scope));
    if (kept.length > 0) metadata.scope = kept.join(' ');
    else delete metadata.scope;
  }
}

/**
 * PostgreSQL's jsonb, where clients are stored, cannot hold U+0000, and no client needs one.
 * Iterative: a metadata document is not bounded in depth the way a registration body is.
 */
function containsNul(metadata: unknown): boolean {
  const pending: unknown[] = [metadata];
  while (pending.length > 0) {
    const value = pending.pop();
    if (typeof value === 'string') {
      if (value.includes('\u0000')) return true;
    } else if (Array.isArray(value)) {
      for (const inner of value) pending.push(inner);
    } else if (value !== null && typeof value === 'object') {
      for (const [key, inner] of Object.entries(value)) {
        if (key.includes('\u0000')) return true;
        pending.push(inner);
      }
    }
  }
  return false;
}
