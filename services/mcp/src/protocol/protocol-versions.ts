/**
 * The MCP revisions this endpoint speaks (docs/design.md §15), newest first. Modern revisions carry
 * version and capabilities in each request's `_meta`; legacy ones open with `initialize`.
 */
export const MODERN_PROTOCOL_VERSIONS = ['2026-07-28'] as const;
export const LEGACY_PROTOCOL_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26'] as const;
export const SUPPORTED_PROTOCOL_VERSIONS: readonly string[] = [
  ...MODERN_PROTOCOL_VERSIONS,
  ...LEGACY_PROTOCOL_VERSIONS,
];
/** What a client that sends no MCP-Protocol-Version header speaks (MCP 2025-06-18, transports). */
export const DEFAULT_LEGACY_VERSION = '2025-03-26';

export type Era = 'modern' | 'legacy';

export function eraOf(version: string): Era | undefined {
  if ((MODERN_PROTOCOL_VERSIONS as readonly string[]).includes(version)) return 'modern';
  if ((LEGACY_PROTOCOL_VERSIONS as readonly string[]).includes(version)) return 'legacy';
  return undefined;
}

/** `_meta` keys of MCP 2026-07-28 (the SDK's constants, spelled here to avoid loading it). */
export const META = {
  protocolVersion: 'io.modelcontextprotocol/protocolVersion',
  clientCapabilities: 'io.modelcontextprotocol/clientCapabilities',
  clientInfo: 'io.modelcontextprotocol/clientInfo',
  logLevel: 'io.modelcontextprotocol/logLevel',
  serverInfo: 'io.modelcontextprotocol/serverInfo',
} as const;
