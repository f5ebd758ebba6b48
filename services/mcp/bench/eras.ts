/**
 * The requests the bench sends, in each era of MCP's HTTP transport: legacy (the client ran
 * `initialize` once and then names the version in MCP-Protocol-Version) and modern 2026-07-28
 * (no initialize: every request carries the version, the client's capabilities and its info in
 * `params._meta`, and says its method, and a tool call its tool, in headers too).
 */

export type Era = 'legacy' | 'modern';

export const ERA_VERSIONS: Record<Era, string> = { legacy: '2025-11-25', modern: '2026-07-28' };

const MODERN_META = {
  'io.modelcontextprotocol/protocolVersion': ERA_VERSIONS.modern,
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1' },
};

export interface EraRequest {
  headers: Record<string, string>;
  body: string;
}

function eraRequest(
  era: Era,
  method: string,
  params: Record<string, unknown> | undefined,
  name?: string,
): EraRequest {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': ERA_VERSIONS[era],
  };
  if (era === 'legacy') {
    return {
      headers,
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, ...(params ? { params } : {}) }),
    };
  }
  headers['mcp-method'] = method;
  if (name) headers['mcp-name'] = name;
  return {
    headers,
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: { ...params, _meta: MODERN_META } }),
  };
}

export const listTools = (era: Era) => eraRequest(era, 'tools/list', undefined);

export const readRange = (
  era: Era,
  spreadsheetId: string,
  range: string,
  paging: Record<string, number> = {},
) =>
  eraRequest(
    era,
    'tools/call',
    { name: 'read_range', arguments: { spreadsheetId, range, ...paging } },
    'read_range',
  );
