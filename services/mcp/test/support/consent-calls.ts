import { readJson } from '@sheetgate/test-harness';
import { credentialHeaders, postMcp } from './stack.ts';

/**
 * How a client can be asked (docs/design.md §15): a legacy-era request, a call inside a 2025-03-26
 * JSON-RPC batch, and 2026-07-28 requests declaring form elicitation, URL elicitation only, or
 * neither.
 */
export type Shape = 'legacy' | 'batch' | 'form' | 'url' | 'neither';
export const SHAPES: readonly Shape[] = ['legacy', 'batch', 'form', 'url', 'neither'];

const MODERN = '2026-07-28';
const CAPABILITIES: Record<'form' | 'url' | 'neither', Record<string, unknown>> = {
  form: { elicitation: { form: {} } },
  url: { elicitation: { url: {} } },
  neither: {},
};

/** A JSON-RPC reply to one tools/call. */
// biome-ignore lint/suspicious/noExplicitAny: replies are checked by expect, not by the compiler
export type Reply = { result?: Record<string, any>; error?: { code: number; message: string } };

/**
 * One tools/call of `name` as a client of `shape` holding `credential` (an API key or a token) sends it (raw HTTP, headers as
 * the era asks); `extra` adds MRTR members (`inputResponses`, `requestState`) to a modern call.
 */
export async function callAs(
  mcpUrl: string,
  shape: Shape,
  credential: string,
  name: string,
  args: Record<string, unknown>,
  extra: Record<string, unknown> = {},
): Promise<Reply> {
  const authorization = credentialHeaders(credential);
  if (shape === 'legacy' || shape === 'batch') {
    const message = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } };
    const response = await postMcp(mcpUrl, shape === 'batch' ? [message] : message, {
      headers: { ...authorization, 'mcp-protocol-version': shape === 'batch' ? '2025-03-26' : '2025-11-25' },
    });
    if (response.status !== 200) throw new Error(`${name} answered HTTP ${response.status}`);
    const body = await readJson(response);
    return shape === 'batch' ? (body as Reply[])[0]! : (body as Reply);
  }
  const response = await postMcp(
    mcpUrl,
    {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: {
        name,
        arguments: args,
        ...extra,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': MODERN,
          'io.modelcontextprotocol/clientCapabilities': CAPABILITIES[shape],
          'io.modelcontextprotocol/clientInfo': { name: 'consent-test', version: '1.0.0' },
        },
      },
    },
    {
      headers: {
        ...authorization,
        'mcp-protocol-version': MODERN,
        'mcp-method': 'tools/call',
        'mcp-name': name,
      },
    },
  );
  if (response.status !== 200) throw new Error(`${name} answered HTTP ${response.status}`);
  return (await readJson(response)) as Reply;
}

/** The text of a tool result. */
// biome-ignore lint/suspicious/noExplicitAny: a tool result as JSON
export function textOf(result: Record<string, any> | undefined): string {
  return result?.content?.[0]?.text ?? '';
}

/** The emulator's attempts per Google method so far. */
export async function googleStats(emulatorUrl: string): Promise<Record<string, number>> {
  const body = (await (await fetch(`${emulatorUrl}/__emulator/stats`)).json()) as {
    methods: Record<string, { attempts: number }>;
  };
  return Object.fromEntries(Object.entries(body.methods).map(([method, { attempts }]) => [method, attempts]));
}

/** Every Google method called between two `googleStats`, with how often. */
export function requestsBetween(before: Record<string, number>, after: Record<string, number>) {
  return Object.fromEntries(
    Object.entries(after)
      .map(([method, attempts]) => [method, attempts - (before[method] ?? 0)] as const)
      .filter(([, attempts]) => attempts > 0),
  );
}

/** Google's write methods called between two `googleStats`, with how often. */
export function writesBetween(before: Record<string, number>, after: Record<string, number>) {
  return Object.fromEntries(
    Object.entries(after)
      .filter(
        ([method]) => !/\.(get|getByDataFilter|list|batchGet|batchGetByDataFilter|export)$/.test(method),
      )
      .map(([method, attempts]) => [method, attempts - (before[method] ?? 0)] as const)
      .filter(([, attempts]) => attempts > 0),
  );
}
