import { DPOP_SIGNING_ALGORITHMS } from '@sheetgate/proto';

/** The scopes of the MCP resource (docs/design.md §3): reads need the first, changes need both. */
export const RESOURCE_SCOPES = ['sheets:read', 'sheets:write'] as const;

/** The MCP resource identifier (the audience of access tokens) for a public origin. */
export function mcpResource(baseUrl: string): string {
  return `${baseUrl}/api/mcp`;
}

/**
 * Where the endpoint's metadata is (RFC 9728 §3.1: the well-known path with the resource's path
 * after it), named in every `WWW-Authenticate` challenge.
 */
export function protectedResourceMetadataUrl(baseUrl: string): string {
  return `${baseUrl}/.well-known/oauth-protected-resource/api/mcp`;
}

/**
 * OAuth 2.0 Protected Resource Metadata (RFC 9728 §2) for the MCP endpoint. DPoP-bound tokens are
 * taken (with their proofs) beside bearer tokens, which most MCP clients use: not required.
 */
export function protectedResourceMetadata(baseUrl: string) {
  return {
    resource: mcpResource(baseUrl),
    authorization_servers: [baseUrl],
    scopes_supported: [...RESOURCE_SCOPES],
    bearer_methods_supported: ['header'],
    dpop_signing_alg_values_supported: [...DPOP_SIGNING_ALGORITHMS],
    dpop_bound_access_tokens_required: false,
    resource_name: 'Sheetgate',
    resource_documentation: `${baseUrl}/`,
  };
}
