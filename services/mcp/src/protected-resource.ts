/** The scopes of the MCP resource (docs/design.md §3): reads need the first, changes need both. */
export const RESOURCE_SCOPES = ['sheets:read', 'sheets:write'] as const;

/** The MCP resource identifier (the audience of access tokens) for a public origin. */
export function mcpResource(baseUrl: string): string {
  return `${baseUrl}/api/mcp`;
}

/** OAuth 2.0 Protected Resource Metadata (RFC 9728 §2) for the MCP endpoint. */
export function protectedResourceMetadata(baseUrl: string) {
  return {
    resource: mcpResource(baseUrl),
    authorization_servers: [baseUrl],
    scopes_supported: [...RESOURCE_SCOPES],
    bearer_methods_supported: ['header'],
    resource_name: 'Sheetgate',
    resource_documentation: `${baseUrl}/`,
  };
}
