import { createHash, randomBytes } from 'node:crypto';
import { readJson } from '@sheetgate/test-harness';

/** An MCP client's side of OAuth, over plain HTTP: registration, PKCE, code and refresh grants. */
export async function registerClient(baseUrl: string, clientName: string, redirectUri: string) {
  const response = await fetch(`${baseUrl}/api/auth/oauth2/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      client_name: clientName,
      redirect_uris: [redirectUri],
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
    }),
  });
  const body = await readJson(response);
  if (response.status !== 201)
    throw new Error(`registration failed: ${response.status} ${JSON.stringify(body)}`);
  return body.client_id as string;
}

export function authorizationRequest(baseUrl: string, clientId: string, redirectUri: string) {
  const verifier = randomBytes(32).toString('base64url');
  const url = new URL(`${baseUrl}/api/auth/oauth2/authorize`);
  url.search = new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: redirectUri,
    scope: 'openid email offline_access sheets:read sheets:write',
    prompt: 'consent',
    state: randomBytes(8).toString('hex'),
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
    resource: `${baseUrl}/api/mcp`,
  }).toString();
  return { url: url.href, verifier };
}

export async function tokenRequest(baseUrl: string, fields: Record<string, string>) {
  const response = await fetch(`${baseUrl}/api/auth/oauth2/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
  });
  return { status: response.status, body: await readJson(response) };
}

/** `tools/list` at the MCP endpoint with the given credential headers. */
export function listTools(baseUrl: string, headers: Record<string, string>) {
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

export interface ToolAnswer {
  status: number;
  text: string;
  /** The JSON-RPC `result` of the call, when the endpoint answered one. */
  result?: {
    isError?: boolean;
    content?: Array<{ type: string; text?: string }>;
    structuredContent?: unknown;
  };
}

/** The JSON-RPC message of a Streamable HTTP answer: a JSON body, or the `data:` of one SSE event. */
function jsonRpcMessage(contentType: string, text: string): { result?: ToolAnswer['result'] } | undefined {
  if (contentType.startsWith('application/json')) return JSON.parse(text);
  if (!contentType.startsWith('text/event-stream')) return undefined;
  const data = text
    .split(/\r?\n/)
    .filter((line) => line.startsWith('data:'))
    .map((line) => line.slice(5).trim())
    .join('');
  return data ? JSON.parse(data) : undefined;
}

/** `tools/call` at the MCP endpoint: the status, the raw reply and the tool's result. */
export async function callTool(
  baseUrl: string,
  headers: Record<string, string>,
  name: string,
): Promise<ToolAnswer> {
  const response = await fetch(`${baseUrl}/api/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-06-18',
      ...headers,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name, arguments: {} } }),
  });
  const text = await response.text();
  const message = response.ok ? jsonRpcMessage(response.headers.get('content-type') ?? '', text) : undefined;
  return { status: response.status, text, ...(message?.result ? { result: message.result } : {}) };
}
