import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AuthUnderTest, startAuthUnderTest } from './support/auth-process.ts';

// Property-based: dynamic client registration (RFC 7591) with any metadata — every field the
// spec names with hostile or wrong-typed values, huge values, redirect URIs of every shape an
// attacker would try, unknown fields. Each answer is 201 with a client or 400 with a JSON error,
// never a 5xx; a registered client never carries a redirect docs/design.md §7.3 forbids; and the
// secrets registration hands out never reach auth's log.

let subject: AuthUnderTest;
beforeAll(async () => {
  subject = await startAuthUnderTest({
    LOG_LEVEL: 'trace',
    RATE_LIMIT_OVERRIDES: JSON.stringify({
      register: { points: 10_000, durationSeconds: 3600 },
      authIp: { points: 10_000, durationSeconds: 60 },
    }),
  });
});
afterAll(async () => {
  await subject?.stop();
});

const hostileUri = fc.oneof(
  fc.constantFrom(
    'javascript:alert(document.domain)',
    'data:text/html,<script>alert(1)</script>',
    'vbscript:msgbox(1)',
    'file:///etc/passwd',
    'http://evil.example/callback',
    'http://169.254.169.254/latest/meta-data',
    'https://user:password@app.example/callback',
    'https://app.example/callback#fragment',
    '//evil.example/callback',
    ' https://app.example/callback',
    'https://app.example/callback?next=<script>',
    'HTTP://LOCALHOST:1/CB',
    'http://localhost.evil.example/cb',
    'http://127.0.0.1.evil.example/cb',
    'http://[::1]:8080/cb',
    'http://localhost/callback',
    'com.example.app:/oauth',
    'https://app.example/callback',
    `https://app.example/${'a'.repeat(10_000)}`,
  ),
  fc.webUrl({ withFragments: true, withQueryParameters: true, validSchemes: ['http', 'https', 'ftp'] }),
  fc.string({ maxLength: 60 }),
);

const hostileText = fc.oneof(
  fc.constantFrom(
    '<script>alert(1)</script>',
    '"><img src=x onerror=alert(1)>',
    "'; DROP TABLE oidc_models; --",
    '{{constructor.constructor("alert(1)")()}}',
    '\u202eevil\u202c',
    '\u0000',
    'x'.repeat(100_000),
  ),
  fc.string({ unit: 'grapheme', maxLength: 80 }),
);

const anyJson = fc.jsonValue({ maxDepth: 2 });
const oneOrMany = <T>(value: fc.Arbitrary<T>) => fc.oneof(fc.array(value, { maxLength: 3 }), value, anyJson);

/** Every field RFC 7591 names, each with hostile, wrong-typed or huge values. */
const hostile = {
  redirect_uris: oneOrMany(hostileUri),
  post_logout_redirect_uris: oneOrMany(hostileUri),
  client_name: anyJson,
  grant_types: oneOrMany(
    fc.constantFrom(
      'authorization_code',
      'refresh_token',
      'implicit',
      'client_credentials',
      'password',
      'urn:x',
    ),
  ),
  response_types: oneOrMany(fc.constantFrom('code', 'token', 'id_token', 'code id_token', 'none')),
  token_endpoint_auth_method: fc.oneof(
    fc.constantFrom('private_key_jwt', 'client_secret_jwt', 'tls'),
    anyJson,
  ),
  application_type: fc.oneof(fc.constantFrom('web', 'native', 'other'), anyJson),
  scope: fc.oneof(fc.constantFrom('openid offline_access', 'admin root', ''), hostileText),
  logo_uri: hostileUri,
  client_uri: hostileUri,
  policy_uri: hostileUri,
  tos_uri: hostileUri,
  jwks_uri: hostileUri,
  jwks: anyJson,
  contacts: oneOrMany(fc.oneof(fc.emailAddress(), hostileText)),
  software_id: hostileText,
  software_statement: fc.string({ maxLength: 200 }),
  client_id: hostileText,
  client_secret: hostileText,
};

/**
 * Metadata a real client might send (with a free-text, often hostile, name), with any subset of
 * its fields — none, some, all — replaced by hostile ones.
 */
const metadata = fc
  .tuple(
    fc.record({
      redirect_uris: fc.array(
        fc.constantFrom(
          'http://127.0.0.1:43999/callback',
          'http://localhost/callback',
          'https://app.example/oauth/callback',
          'com.example.app:/oauth',
        ),
        { minLength: 1, maxLength: 2 },
      ),
      client_name: hostileText,
      token_endpoint_auth_method: fc.constantFrom('none', 'client_secret_basic', 'client_secret_post'),
      grant_types: fc.constant(['authorization_code', 'refresh_token']),
      response_types: fc.constant(['code']),
    }),
    fc.record(hostile),
    fc.subarray(Object.keys(hostile) as Array<keyof typeof hostile>, { maxLength: 4 }),
  )
  .map(
    ([base, replacements, replaced]): Record<string, unknown> => ({
      ...base,
      ...Object.fromEntries(replaced.map((field) => [field, replacements[field]])),
    }),
  );

const extraFields = fc.dictionary(fc.string({ minLength: 1, maxLength: 20 }), anyJson, { maxKeys: 3 });

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * docs/design.md §7.3: https, or http on a loopback host, or a private-use scheme; never userinfo
 * or a fragment.
 */
function allowedRedirect(value: string): boolean {
  const uri = URL.parse(value);
  if (!uri || uri.username || uri.password || value.includes('#')) return false;
  if (['javascript:', 'data:', 'file:', 'vbscript:', 'blob:'].includes(uri.protocol)) return false;
  return uri.protocol !== 'http:' || LOOPBACK.has(uri.hostname);
}

describe('dynamic client registration with any metadata (property-based)', () => {
  const secrets: string[] = [];

  it('answers 201 with a client or 400 with a JSON error, never a 5xx, and never stores a forbidden redirect', async () => {
    const seen = new Set<number>();
    await fc.assert(
      fc.asyncProperty(metadata, extraFields, async (fields, extra) => {
        const response = await fetch(`${subject.baseUrl}/api/auth/oauth2/register`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ ...extra, ...fields }),
        });
        const text = await response.text();
        seen.add(response.status);
        expect([201, 400, 413], `${response.status} ${text.slice(0, 300)}`).toContain(response.status);
        const body = JSON.parse(text);
        if (response.status !== 201) {
          expect(body.error, text.slice(0, 300)).toEqual(expect.any(String));
          return;
        }
        expect(body.client_id).toEqual(expect.any(String));
        for (const uri of body.redirect_uris as string[]) expect(allowedRedirect(uri), uri).toBe(true);
        for (const uri of (body.post_logout_redirect_uris ?? []) as string[])
          expect(allowedRedirect(uri), uri).toBe(true);
        // The server chose the client id and secret, not the registrant.
        if (typeof fields.client_id === 'string') expect(body.client_id).not.toBe(fields.client_id);
        if (typeof fields.client_secret === 'string' && body.client_secret)
          expect(body.client_secret).not.toBe(fields.client_secret);
        for (const secret of [body.client_secret, body.registration_access_token])
          if (typeof secret === 'string') secrets.push(secret);
      }),
      { numRuns: 150 },
    );
    // The run met both outcomes, or it proved little.
    expect(seen.has(201)).toBe(true);
    expect(seen.has(400)).toBe(true);
  });

  it('wrote none of the secrets it handed out to its log', () => {
    const logs = subject.auth.output.join('\n');
    expect(logs).toContain('/api/auth/oauth2/register');
    expect(secrets.filter((secret) => logs.includes(secret))).toEqual([]);
  });
});
