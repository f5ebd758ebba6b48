import type { AsymmetricSigningAlgorithm, ResourceServer } from 'oidc-provider';

/** The scopes of the MCP resource (docs/design.md §3). */
export const RESOURCE_SCOPES = ['sheets:read', 'sheets:write'] as const;
/** What an authorization request without `scope` asks for. */
export const DEFAULT_RESOURCE_SCOPE = RESOURCE_SCOPES.join(' ');
export const OIDC_SCOPES = ['openid', 'offline_access', 'profile', 'email'] as const;

export function mcpResource(baseUrl: string): string {
  return `${baseUrl}/api/mcp`;
}

/**
 * RFC 8707 resource values clients send for our one resource. Clients derive it differently
 * (with a trailing slash, from the origin alone, or from the protected-resource metadata), so
 * these all mean the MCP endpoint; anything else is not ours.
 */
export function canonicalResource(value: string, baseUrl: string): string | undefined {
  const resource = mcpResource(baseUrl);
  const trimmed = value.replace(/\/+$/, '');
  if (trimmed === resource || trimmed === baseUrl) return resource;
  return undefined;
}

/**
 * How access tokens for the MCP resource are made (oidc-provider's resource server information):
 * resource-bound JWTs (`typ: at+jwt`) signed with `signingAlgorithm`, whatever grant issues them.
 */
export function mcpResourceServerInfo(
  baseUrl: string,
  accessTokenTtlSeconds: number,
  signingAlgorithm: AsymmetricSigningAlgorithm,
): ResourceServer {
  return {
    scope: DEFAULT_RESOURCE_SCOPE,
    audience: mcpResource(baseUrl),
    accessTokenTTL: accessTokenTtlSeconds,
    accessTokenFormat: 'jwt',
    jwt: { sign: { alg: signingAlgorithm } },
  };
}
