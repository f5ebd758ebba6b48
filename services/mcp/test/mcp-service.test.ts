import { randomBytes } from 'node:crypto';
import { type RunningService, readJson, startServiceProcess, withFreePorts } from '@sheetgate/test-harness';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const BASE_URL = 'https://sheets.example.test';
let mcp: RunningService;

beforeAll(async () => {
  mcp = await withFreePorts(1, ([port]) =>
    startServiceProcess(
      'mcp',
      { MCP_PORT: String(port), BASE_URL, INTERNAL_SERVICE_TOKEN: randomBytes(32).toString('base64url') },
      port!,
    ),
  );
});
afterAll(async () => {
  await mcp?.stop();
});

describe('protected-resource metadata (RFC 9728)', () => {
  it.each(['/.well-known/oauth-protected-resource/api/mcp', '/.well-known/oauth-protected-resource'])(
    'is served at %s',
    async (path) => {
      const response = await fetch(`${mcp.url}${path}`);
      expect(response.status).toBe(200);
      expect(await readJson(response)).toEqual({
        resource: `${BASE_URL}/api/mcp`,
        authorization_servers: [BASE_URL],
        scopes_supported: ['sheets:read', 'sheets:write'],
        bearer_methods_supported: ['header'],
        dpop_signing_alg_values_supported: ['ES256', 'Ed25519', 'EdDSA'],
        dpop_bound_access_tokens_required: false,
        resource_name: 'Sheetgate',
        resource_documentation: `${BASE_URL}/`,
      });
    },
  );

  it('refuses other methods', async () => {
    const response = await fetch(`${mcp.url}/.well-known/oauth-protected-resource`, { method: 'POST' });
    expect(response.status).toBe(405);
  });
});

describe('logs of a running service (docs/design.md §7.4)', () => {
  it('never contain the credentials a request carried', async () => {
    const jwt = `eyJhbGciOiJFUzI1NiJ9.${randomBytes(24).toString('base64url')}.${randomBytes(32).toString('base64url')}`;
    const apiKey = `sg_live_${randomBytes(32).toString('base64url')}`;
    const code = randomBytes(16).toString('hex');
    const cookie = randomBytes(16).toString('hex');
    await fetch(`${mcp.url}/api/mcp?code=${code}&access_token=${jwt}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${jwt}`, 'x-api-key': apiKey, cookie: `session=${cookie}` },
      body: `{"token":"${jwt}"}`,
    });
    await fetch(`${mcp.url}/${apiKey}`, { headers: { authorization: `Bearer ${jwt}` } });
    await new Promise((resolve) => setTimeout(resolve, 300));
    const logs = mcp.output.join('\n');
    expect(logs).toContain('"path":"/api/mcp"');
    for (const secret of [jwt, apiKey, code, cookie]) expect(logs).not.toContain(secret);
  });
});
