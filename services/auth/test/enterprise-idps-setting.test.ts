import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { parseSettings } from '@sheetgate/service-runtime';
import { generateLocalSecrets, repoRoot } from '@sheetgate/test-harness';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { enterpriseIdpsSetting } from '../src/enterprise-idps/enterprise-idps-setting.ts';

const schema = z.object({ ENTERPRISE_IDPS: enterpriseIdpsSetting });
const idp = (extra: Record<string, unknown> = {}) => ({
  issuer: 'https://acme.okta.example',
  jwksUri: 'https://acme.okta.example/oauth2/v1/keys',
  clients: [{ clientId: 'claude', scopes: ['sheets:read', 'sheets:write'] }],
  emailDomains: ['Example.com'],
  ...extra,
});
const refusal = (value: unknown) => {
  try {
    parseSettings('auth', schema, {
      ENTERPRISE_IDPS: typeof value === 'string' ? value : JSON.stringify(value),
    });
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('accepted');
};

describe('ENTERPRISE_IDPS (docs/design.md §4.7)', () => {
  it('unset or an empty list trusts no IdP; a good one is read with its defaults', () => {
    expect(parseSettings('auth', schema, {}).ENTERPRISE_IDPS).toEqual([]);
    expect(parseSettings('auth', schema, { ENTERPRISE_IDPS: '[]' }).ENTERPRISE_IDPS).toEqual([]);
    const [read] = parseSettings('auth', schema, {
      ENTERPRISE_IDPS: JSON.stringify([idp({ subjects: { '00u1': 'Alice@Example.com' } })]),
    }).ENTERPRISE_IDPS;
    expect(read).toMatchObject({
      clients: [
        {
          clientId: 'claude',
          scopes: ['sheets:read', 'sheets:write'],
          toolsets: ['core-read', 'core-write'],
        },
      ],
      subjects: { '00u1': 'alice@example.com' },
      emailDomains: ['example.com'],
    });
  });

  it.each([
    ['not JSON', '[{issuer', 'ENTERPRISE_IDPS: expected a JSON array like'],
    [
      'a misspelt key',
      [idp({ jwks_uri: 'https://x.example/keys' })],
      'ENTERPRISE_IDPS.0: Unrecognized key: "jwks_uri"',
    ],
    [
      'an http issuer off loopback',
      [idp({ issuer: 'http://idp.example' })],
      'ENTERPRISE_IDPS.0.issuer: expected an https URL',
    ],
    [
      'a client without sheets:read',
      [idp({ clients: [{ clientId: 'c', scopes: ['sheets:write'] }] })],
      'ENTERPRISE_IDPS.0.clients.0.scopes: must include sheets:read',
    ],
    [
      'an unknown toolset',
      [idp({ clients: [{ clientId: 'c', scopes: ['sheets:read'], toolsets: ['everything'] }] })],
      'ENTERPRISE_IDPS.0.clients.0.toolsets: unknown toolset',
    ],
    [
      'no way to map people',
      [idp({ emailDomains: undefined })],
      'ENTERPRISE_IDPS.0: says how its people map',
    ],
    [
      'a subject mapped to no e-mail',
      [idp({ subjects: { '00u1': 'alice' } })],
      'ENTERPRISE_IDPS.0.subjects.00u1:',
    ],
    [
      'a client listed twice',
      [
        idp({
          clients: [
            { clientId: 'c', scopes: ['sheets:read'] },
            { clientId: 'c', scopes: ['sheets:read'] },
          ],
        }),
      ],
      'ENTERPRISE_IDPS.0.clients.1.clientId: listed twice',
    ],
    [
      'an issuer listed twice',
      [idp(), idp()],
      'ENTERPRISE_IDPS.1.issuer: this issuer (and tenant) is listed twice',
    ],
  ])('refuses %s, naming where', (_, value, expected) => {
    expect(refusal(value)).toContain(`auth: invalid setting ${expected}`);
  });

  it('stops auth at start with one line naming it (exit 78)', () => {
    const result = spawnSync(process.execPath, [path.join(repoRoot, 'services/auth/src/main.ts')], {
      env: {
        PATH: process.env.PATH,
        ...generateLocalSecrets(),
        GOOGLE_CLIENT_ID: 'id',
        GOOGLE_CLIENT_SECRET: 'secret',
        DATABASE_URL: 'postgres://127.0.0.1:1/x',
        INTERNAL_SERVICE_TOKEN: 'x'.repeat(40),
        ENTERPRISE_IDPS: JSON.stringify([idp({ clients: [{ clientId: 'c', scopes: ['sheets:write'] }] })]),
      },
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(result.status).toBe(78);
    const lines = result.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^auth: invalid setting ENTERPRISE_IDPS\.0\.clients\.0\.scopes: must include sheets:read/,
    );
  });
});
