/**
 * `tools/list` at the MCP endpoint as one raw HTTP request with the given credential headers:
 * for asserting statuses and bodies that the SDK client turns into exceptions.
 */
export function postToolsList(baseUrl: string, headers: Record<string, string>): Promise<Response> {
  return fetch(`${baseUrl}/api/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-06-18',
      ...headers,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  });
}
