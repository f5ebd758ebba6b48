import { readJson } from '@sheetgate/test-harness';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AuthUnderTest, startAuthUnderTest } from './support/auth-process.ts';

let subject: AuthUnderTest;
beforeAll(async () => {
  subject = await startAuthUnderTest();
});
afterAll(async () => {
  await subject?.stop();
});

describe('authorization server metadata (RFC 8414, OpenID Discovery)', () => {
  it.each([
    '/.well-known/openid-configuration',
    '/.well-known/oauth-authorization-server',
    '/.well-known/oauth-authorization-server/api/mcp',
    '/.well-known/openid-configuration/api/mcp',
  ])('%s advertises the issuer and endpoints under /api/auth', async (path) => {
    const response = await fetch(`${subject.baseUrl}${path}`);
    expect(response.status).toBe(200);
    const metadata = await readJson(response);
    const base = subject.baseUrl;
    expect(metadata).toMatchObject({
      issuer: base,
      authorization_endpoint: `${base}/api/auth/oauth2/authorize`,
      token_endpoint: `${base}/api/auth/oauth2/token`,
      registration_endpoint: `${base}/api/auth/oauth2/register`,
      revocation_endpoint: `${base}/api/auth/oauth2/revoke`,
      userinfo_endpoint: `${base}/api/auth/oauth2/userinfo`,
      end_session_endpoint: `${base}/api/auth/oauth2/end-session`,
      jwks_uri: `${base}/api/auth/jwks`,
      response_types_supported: ['code'],
      code_challenge_methods_supported: ['S256'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
      authorization_response_iss_parameter_supported: true,
      client_id_metadata_document_supported: true,
    });
    // No enterprise IdP trusted (ENTERPRISE_IDPS unset): the ID-JAG profile is not claimed.
    expect(metadata.authorization_grant_profiles_supported).toBeUndefined();
    expect(metadata.scopes_supported).toEqual(
      expect.arrayContaining(['sheets:read', 'sheets:write', 'openid']),
    );
    expect(metadata.token_endpoint_auth_methods_supported).toEqual(
      expect.arrayContaining(['none', 'client_secret_basic', 'client_secret_post']),
    );
  });

  it('ignores spoofed forwarded headers: URLs always use the configured origin', async () => {
    const response = await fetch(`${subject.baseUrl}/.well-known/openid-configuration`, {
      headers: { 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'https' },
    });
    const metadata = await readJson(response);
    expect(JSON.stringify(metadata)).not.toContain('evil.example');
    expect(metadata.token_endpoint).toBe(`${subject.baseUrl}/api/auth/oauth2/token`);
  });

  it('lets browser-based clients read discovery (CORS)', async () => {
    const response = await fetch(`${subject.baseUrl}/.well-known/oauth-authorization-server`, {
      headers: { origin: 'https://inspector.example' },
    });
    expect(response.headers.get('access-control-allow-origin')).toBe('https://inspector.example');
  });
});

describe('JWKS', () => {
  it('publishes only public asymmetric keys', async () => {
    const response = await fetch(`${subject.baseUrl}/api/auth/jwks`);
    expect(response.status).toBe(200);
    // Cacheable, so resource servers do not fetch it per request; rotation publishes a key
    // longer ago than this before it signs (see README, signing-key rotation).
    expect(response.headers.get('cache-control')).toBe('public, max-age=300');
    const { keys } = await readJson(response);
    expect(keys.length).toBeGreaterThan(0);
    for (const key of keys) {
      expect(key).toMatchObject({ kty: 'EC', crv: 'P-256', alg: 'ES256', use: 'sig' });
      expect(key.kid).toEqual(expect.any(String));
      expect(key.d).toBeUndefined();
    }
  });

  it('keeps the same key across a restart (stored encrypted, generated once)', async () => {
    const before = await readJson(await fetch(`${subject.baseUrl}/api/auth/jwks`));
    await subject.restart();
    const after = await readJson(await fetch(`${subject.baseUrl}/api/auth/jwks`));
    expect(after.keys.map((key: { kid: string }) => key.kid)).toEqual(
      before.keys.map((key: { kid: string }) => key.kid),
    );
  });
});
