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

/** `tools/call` at the MCP endpoint; the reply's text (JSON or one SSE event). */
export async function callTool(baseUrl: string, headers: Record<string, string>, name: string) {
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
  return { status: response.status, text: await response.text() };
}
