import { readJson } from '@sheetgate/test-harness';

// One MCP 2026-07-28 tools/call as raw HTTP, shaped as a client of that era sends it: `_meta`
// with the protocol version, the client's capabilities and info on the request itself, and the
// MCP-Protocol-Version, Mcp-Method and Mcp-Name headers mirroring it. For the client shapes no
// SDK here speaks (URL-mode elicitation only, or no elicitation), and for retries that carry a
// `requestState` as the test chooses (multi round-trip requests).

export const MODERN_VERSION = '2026-07-28';

/** How the client can ask its person: form elicitation, URL-mode elicitation only, or not at all. */
export type Elicitation = 'form' | 'url' | 'neither';

const CAPABILITIES: Record<Elicitation, Record<string, unknown>> = {
  form: { elicitation: { form: {} } },
  url: { elicitation: { url: {} } },
  neither: {},
};

/** A JSON-RPC reply to one tools/call; a tool result, or an error. */
export interface ModernReply {
  // biome-ignore lint/suspicious/noExplicitAny: a tool result as JSON, checked by expect
  result?: Record<string, any>;
  error?: { code: number; message: string };
}

/**
 * `name` called with `args` by a 2026-07-28 client declaring `elicitation`, holding the credential
 * in `headers`; `retry` adds the members of a retry (`requestState`, `inputResponses`).
 */
export async function callModern(
  baseUrl: string,
  headers: Record<string, string>,
  elicitation: Elicitation,
  name: string,
  args: Record<string, unknown>,
  retry: { requestState?: unknown; inputResponses?: Record<string, unknown> } = {},
): Promise<ModernReply> {
  const response = await fetch(`${baseUrl}/api/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': MODERN_VERSION,
      'mcp-method': 'tools/call',
      'mcp-name': name,
      ...headers,
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: {
        name,
        arguments: args,
        ...retry,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': MODERN_VERSION,
          'io.modelcontextprotocol/clientCapabilities': CAPABILITIES[elicitation],
          'io.modelcontextprotocol/clientInfo': { name: `sheetgate-e2e-${elicitation}`, version: '1.0.0' },
        },
      },
    }),
  });
  if (response.status !== 200)
    throw new Error(`${name} answered HTTP ${response.status}: ${await response.text()}`);
  return (await readJson(response)) as ModernReply;
}

/** The text of a tool result. */
// biome-ignore lint/suspicious/noExplicitAny: a tool result as JSON
export function resultText(result: Record<string, any> | undefined): string {
  return ((result?.content ?? []) as Array<{ text?: string }>).map((part) => part.text ?? '').join('\n');
}
