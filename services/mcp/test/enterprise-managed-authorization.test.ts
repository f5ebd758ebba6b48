import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { type EnterpriseIdpEmulator, startEnterpriseIdpEmulator } from '@sheetgate/enterprise-idp-emulator';
import {
  type ClientCredentials,
  idpEndpoints,
  redeemSignIn,
  requestAccessToken,
  requestIdJag,
  resourceAuthorizationServer,
  signInRequest,
} from '@sheetgate/enterprise-idp-emulator/client';
import { createAccountServiceClient } from '@sheetgate/proto';
import { createBrowser, readJson } from '@sheetgate/test-harness';
import { decodeJwt } from 'jose';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DpopKey, newDpopKey } from './support/dpop-key.ts';
import { credentialHeaders, type McpUnderTest, postMcp, startMcpUnderTest } from './support/stack.ts';

// Enterprise-Managed Authorization end to end (the MCP extension
// io.modelcontextprotocol/enterprise-managed-authorization; docs/design.md §4.7): the person signs
// in at the enterprise IdP (the emulator), the client — written from the extension's text —
// exchanges the ID token for an ID-JAG there and presents it at Sheetgate's token endpoint, then
// lists and calls tools at the MCP endpoint as that person. Real auth, mcp and Google emulator
// processes; the IdP emulator in this process.

const REDIRECT = 'http://127.0.0.1:45997/callback';
const agentAtIdp = { clientId: 'sheets-agent', clientSecret: 'sheets-agent-secret' };

let stack: McpUnderTest;
let idp: EnterpriseIdpEmulator;
let client: ClientCredentials;
let alice: { userId: string; sessionCookie: string };
let spreadsheetId: string;

beforeAll(async () => {
  stack = await startMcpUnderTest();
  alice = await stack.signIn('alice@example.com');
  [spreadsheetId] = (await stack.seed('alice@example.com', [
    {
      name: 'Quarterly plan',
      values: [
        ['Region', 'Target'],
        ['North', 120],
      ],
    },
  ])) as [string];
  // Carol has a Sheetgate account but has never connected Google (nobody signed her in there).
  const database = new pg.Client({ connectionString: stack.database.url });
  await database.connect();
  await database.query(
    "INSERT INTO users (google_subject, email, google_hosted_domain) VALUES ('g-carol', 'carol@example.com', 'example.com')",
  );
  await database.end();

  // The operator registers the client at Sheetgate and names it in ENTERPRISE_IDPS.
  const registered = await fetch(`${stack.baseUrl}/api/auth/oauth2/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      client_name: 'Sheets agent',
      redirect_uris: ['https://agent.example/callback'],
      token_endpoint_auth_method: 'client_secret_basic',
    }),
  });
  const body = (await registered.json()) as { client_id: string; client_secret: string };
  client = { clientId: body.client_id, clientSecret: body.client_secret };
  idp = await startEnterpriseIdpEmulator({
    port: 0,
    people: [
      { sub: '00u-alice', email: 'alice@example.com' },
      { sub: '00u-carol', email: 'carol@example.com' },
    ],
    clients: [
      {
        ...agentAtIdp,
        redirectUris: [REDIRECT],
        exchanges: [
          {
            audience: stack.baseUrl,
            resource: stack.resource,
            scopes: ['sheets:read', 'sheets:write'],
            clientIdAtAudience: client.clientId,
          },
        ],
      },
    ],
  });
  await stack.restartAuth({
    ENTERPRISE_IDPS: JSON.stringify([
      {
        issuer: idp.issuer,
        jwksUri: idp.jwksUri,
        clients: [
          { clientId: client.clientId, scopes: ['sheets:read', 'sheets:write'], toolsets: ['core-read'] },
        ],
        emailDomains: ['example.com'],
      },
    ]),
  });
}, 120_000);
afterAll(async () => {
  await idp?.close();
  await stack?.stop();
});

/**
 * The extension's three steps for `email`; the token response of the last. With `dpop`, the last
 * request carries a proof by that key (RFC 9449 §5), for a token bound to it.
 */
async function connectAs(email: string, dpop?: DpopKey) {
  // §6: the MCP server's authorization server takes ID-JAGs.
  const server = await resourceAuthorizationServer(stack.mcpUrl);
  expect(server).toMatchObject({ audience: stack.baseUrl, resource: stack.resource, takesIdJags: true });
  // §3: single sign-on at the IdP, in the person's browser.
  const endpoints = await idpEndpoints(idp.issuer);
  const request = signInRequest(endpoints.authorizationEndpoint, agentAtIdp.clientId, REDIRECT);
  const browser = createBrowser();
  const page = await browser.navigate(request.url);
  const chosen = await browser.pressButton({ url: page.url, body: page.body }, email);
  const code = new URL(chosen.location!).searchParams.get('code')!;
  const idToken = await redeemSignIn(endpoints.tokenEndpoint, agentAtIdp, {
    code,
    redirectUri: REDIRECT,
    verifier: request.verifier,
  });
  // §4: token exchange at the IdP.
  const exchanged = await requestIdJag(endpoints.tokenEndpoint, agentAtIdp, {
    idToken,
    audience: server.audience,
    resource: server.resource,
    scope: 'sheets:read sheets:write',
  });
  expect(exchanged.status, JSON.stringify(exchanged.body)).toBe(200);
  // §5: the ID-JAG at Sheetgate's token endpoint.
  const answer = await requestAccessToken(server.tokenEndpoint, client, {
    assertion: String(exchanged.body.access_token),
    ...(dpop ? { dpop: await dpop.proof('POST', server.tokenEndpoint) } : {}),
  });
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return answer.body as { access_token: string; token_type: string; scope: string };
}

async function callTool(mcp: Client, name: string, args: Record<string, unknown>) {
  const result = (await mcp.callTool({ name, arguments: args })) as CallToolResult;
  return {
    isError: result.isError === true,
    text: result.content.map((part) => ('text' in part ? part.text : '')).join('\n'),
  };
}

const EXTENSION = 'io.modelcontextprotocol/enterprise-managed-authorization';

describe('Enterprise-Managed Authorization, from the IdP’s sign-in to a tool call', () => {
  it('is declared where the extension says: the authorization server’s metadata (§6), not the MCP capabilities', async () => {
    const metadata = await readJson(await fetch(`${stack.baseUrl}/.well-known/oauth-authorization-server`));
    expect(metadata.authorization_grant_profiles_supported).toEqual([
      'urn:ietf:params:oauth:grant-profile:id-jag',
    ]);
    expect(metadata.grant_types_supported).toContain('urn:ietf:params:oauth:grant-type:jwt-bearer');

    // A client declaring the extension, per request (2026-07-28) and in initialize (earlier
    // revisions): the server's capabilities answer nothing for it — the extension defines no
    // server capability for a server that offers it beside the code flow.
    const token = await stack.sign({ sub: alice.userId });
    const clientCapabilities = { extensions: { [EXTENSION]: {} } };
    const discovered = await postMcp(
      stack.mcpUrl,
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'server/discover',
        params: {
          _meta: {
            'io.modelcontextprotocol/protocolVersion': '2026-07-28',
            'io.modelcontextprotocol/clientCapabilities': clientCapabilities,
            'io.modelcontextprotocol/clientInfo': { name: 'enterprise agent', version: '1.0.0' },
          },
        },
      },
      {
        headers: {
          ...credentialHeaders(token),
          'mcp-protocol-version': '2026-07-28',
          'mcp-method': 'server/discover',
        },
      },
    );
    const initialized = await postMcp(
      stack.mcpUrl,
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-11-25',
          capabilities: clientCapabilities,
          clientInfo: { name: 'enterprise agent', version: '1.0.0' },
        },
      },
      { headers: credentialHeaders(token) },
    );
    for (const answer of [discovered, initialized]) {
      const body = await readJson(answer);
      expect(answer.status, JSON.stringify(body).slice(0, 300)).toBe(200);
      expect(body.result.capabilities.tools).toBeDefined();
      expect(body.result.capabilities.extensions?.[EXTENSION]).toBeUndefined();
    }
  });

  it('lists and calls tools as the person the IdP signed in, with the toolsets the operator gave the client', async () => {
    const tokens = await connectAs('alice@example.com');
    expect(tokens).toMatchObject({ token_type: 'Bearer', scope: 'sheets:read sheets:write' });
    const mcp = await stack.connectClient(alice.userId, 'enterprise agent', tokens.access_token);
    try {
      const names = (await mcp.listTools()).tools.map((tool) => tool.name);
      expect(names).toContain('read_range');
      expect(names).not.toContain('write_range');
      const read = await callTool(mcp, 'read_range', { spreadsheetId, range: 'A1:B2' });
      expect(read.isError, read.text).toBe(false);
      expect(read.text).toContain('North');
    } finally {
      await mcp.close();
    }
  });

  it('a person who never connected Google is told to connect it on the dashboard', async () => {
    const tokens = await connectAs('carol@example.com');
    const mcp = await stack.connectClient('', 'enterprise agent', tokens.access_token);
    try {
      const listed = await callTool(mcp, 'list_spreadsheets', {});
      expect(listed.isError).toBe(true);
      expect(listed.text).toContain(
        `Sheetgate is not connected to your Google account. Connect Google at ${stack.baseUrl}/dashboard`,
      );
    } finally {
      await mcp.close();
    }
  });

  it('with a DPoP proof at the token endpoint, the token is bound to the key: it works at /api/mcp only with proofs by that key, never as Bearer', async () => {
    const key = await newDpopKey();
    const tokens = await connectAs('alice@example.com', key);
    expect(tokens.token_type).toBe('DPoP');
    expect(decodeJwt(tokens.access_token).cnf).toEqual({ jkt: key.jkt });
    const call = (headers: Record<string, string>) =>
      postMcp(
        stack.mcpUrl,
        {
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: 'read_range', arguments: { spreadsheetId, range: 'A1:B2' } },
        },
        { headers: { 'mcp-protocol-version': '2025-06-18', ...headers } },
      );
    const proofBy = async (holder: DpopKey) => ({
      authorization: `DPoP ${tokens.access_token}`,
      dpop: await holder.proof('POST', stack.resource, { accessToken: tokens.access_token }),
    });

    const answered = await call(await proofBy(key));
    const body = await readJson(answered);
    expect(answered.status, JSON.stringify(body).slice(0, 300)).toBe(200);
    expect(body.result.isError).toBeFalsy();
    expect(JSON.stringify(body.result.content)).toContain('North');

    const asBearer = await call({ authorization: `Bearer ${tokens.access_token}` });
    expect(asBearer.status).toBe(401);
    expect((await readJson(asBearer)).error).toBe('invalid_token');
    const byAnotherKey = await call(await proofBy(await newDpopKey()));
    expect(byAnotherKey.status).toBe(401);
    expect((await readJson(byAnotherKey)).error).toBe('invalid_token');
  });

  it('is listed under the person’s Connected apps, and Disconnect refuses its token at the next request', async () => {
    const tokens = await connectAs('alice@example.com');
    const toolsList = { jsonrpc: '2.0', id: 1, method: 'tools/list' };
    expect(
      (await postMcp(stack.mcpUrl, toolsList, { headers: credentialHeaders(tokens.access_token) })).status,
    ).toBe(200);
    const accounts = createAccountServiceClient({
      address: stack.grpcAddress,
      serviceToken: stack.serviceToken,
    });
    try {
      const { apps } = await accounts.listConnectedApps({ sessionCookie: alice.sessionCookie });
      expect(apps.map((app) => [app.clientId, app.clientName, app.toolsets])).toEqual([
        [client.clientId, 'Sheets agent', ['core-read']],
      ]);
      const answer = await accounts.disconnectApp(
        { sessionCookie: alice.sessionCookie, clientId: client.clientId },
        { deadlineMs: 10_000 },
      );
      expect(answer.disconnected).toBe(true);
    } finally {
      accounts.close();
    }
    const refused = await postMcp(stack.mcpUrl, toolsList, {
      headers: credentialHeaders(tokens.access_token),
    });
    expect(refused.status).toBe(401);
  });
});
