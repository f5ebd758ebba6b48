/** Where each provider endpoint lives (docs/design.md §2: all under /api/auth). */
export const OIDC_ROUTES = {
  authorization: '/api/auth/oauth2/authorize',
  token: '/api/auth/oauth2/token',
  registration: '/api/auth/oauth2/register',
  revocation: '/api/auth/oauth2/revoke',
  userinfo: '/api/auth/oauth2/userinfo',
  end_session: '/api/auth/oauth2/end-session',
  jwks: '/api/auth/jwks',
} as const;

/** The provider's cookies (sign-out and end-session clear or read the session one by name). */
export const PROVIDER_COOKIES = {
  session: 'sg_oidc_session',
  interaction: 'sg_oidc_interaction',
  resume: 'sg_oidc_resume',
} as const;

/**
 * The provider's own body limit (oidc-provider's lib/shared/selective_body.js): Sheetgate's
 * readers in front of it (resource guard, JSON depth guard) read no more than it would.
 */
export const PROVIDER_BODY_LIMIT = 56 * 1024;

/** The provider's OpenID discovery document; RFC 8414 metadata answers with the same document. */
export const OPENID_DISCOVERY_PATH = '/.well-known/openid-configuration';
/** RFC 8414 authorization server metadata. */
export const AS_METADATA_PATH = '/.well-known/oauth-authorization-server';

/** Discovery at both well-known names, and their path-suffixed variants (RFC 8414 §3.1). */
export function isDiscoveryPath(path: string): boolean {
  return [OPENID_DISCOVERY_PATH, AS_METADATA_PATH].some(
    (base) => path === base || path.startsWith(`${base}/`),
  );
}
