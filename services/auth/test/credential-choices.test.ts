import {
  type AccountServiceClientApi,
  type CallConsentClient,
  type CallCredential,
  createAccountServiceClient,
  createCallConsentClient,
  DEFAULT_CREDENTIAL_CHOICES,
  GrpcStatus,
} from '@sheetgate/proto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAuditLog } from '../src/audit/index.ts';
import { createDatabasePool, type DatabasePool } from '../src/db/pool.ts';
import { createSessionStore } from '../src/sessions/index.ts';
import { createUserLibrary } from '../src/users/index.ts';
import { type AuthUnderTest, startAuthUnderTest } from './support/auth-process.ts';

// An API key's two choices (docs/design.md §11.10) through a real auth process: chosen on the key
// form (CreateApiKey), listed, changed on the dashboard (SetApiKeyChoices) and read by the MCP
// service on the key's next call (CallConsentService.GetCredentialChoices) — for the key's owner
// only, while the key lives — and the requests either service refuses.

let subject: AuthUnderTest;
let pool: DatabasePool;
let accounts: AccountServiceClientApi;
let consent: CallConsentClient;
const alice = { id: '', cookie: '' };
const bob = { id: '', cookie: '' };

beforeAll(async () => {
  subject = await startAuthUnderTest();
  pool = createDatabasePool(subject.database.url, 2);
  const address = `127.0.0.1:${subject.env.AUTH_GRPC_PORT}`;
  const serviceToken = subject.env.INTERNAL_SERVICE_TOKEN!;
  accounts = createAccountServiceClient({ address, serviceToken });
  consent = createCallConsentClient({ address, serviceToken });
  for (const [person, sub] of [
    [alice, '3101'],
    [bob, '3102'],
  ] as const) {
    person.id = (await createUserLibrary(pool).upsertFromGoogle({ sub, email: `${sub}@example.com` })).id;
    person.cookie = (await createSessionStore(pool).create(person.id)).cookieValue;
  }
});
afterAll(async () => {
  accounts?.close();
  consent?.close();
  await pool?.end();
  await subject?.stop();
});

async function newKey(
  person: { cookie: string },
  choices?: { mayActOutbound: boolean; mayDestroyUnasked: boolean },
) {
  const { key } = await accounts.createApiKey({
    sessionCookie: person.cookie,
    name: 'agent',
    scopes: ['sheets:read', 'sheets:write'],
    expiresAt: '',
    ...(choices ? { choices } : {}),
  });
  return key!;
}

const keyChoices = (userId: string, apiKeyId: string) =>
  consent.getCredentialChoices({ credential: { userId, apiKeyId } });

describe('an API key chooses on the key form', () => {
  it('without a choice, a key has the defaults: nothing outbound, destroying unasked allowed', async () => {
    const key = await newKey(alice);
    expect(key.choices).toEqual({ mayActOutbound: false, mayDestroyUnasked: true });
    expect(await keyChoices(alice.id, key.id)).toEqual({ choices: DEFAULT_CREDENTIAL_CHOICES });
  });

  it('keeps what the form chose, lists it, and answers it for the key', async () => {
    const key = await newKey(alice, { mayActOutbound: true, mayDestroyUnasked: false });
    expect(key.choices).toEqual({ mayActOutbound: true, mayDestroyUnasked: false });
    const { keys } = await accounts.listApiKeys({ sessionCookie: alice.cookie });
    expect(keys.find((listed) => listed.id === key.id)?.choices).toEqual({
      mayActOutbound: true,
      mayDestroyUnasked: false,
    });
    expect((await keyChoices(alice.id, key.id)).choices).toEqual({
      mayActOutbound: true,
      mayDestroyUnasked: false,
    });
    const [created] = await createAuditLog(pool).recent({
      userId: alice.id,
      kind: 'api_key.created',
      limit: 1,
    });
    expect(created?.details).toMatchObject({ keyId: key.id, mayActOutbound: true, mayDestroyUnasked: false });
  });
});

describe('SetApiKeyChoices', () => {
  it("changes the person's live key: the next GetCredentialChoices answers it, audited", async () => {
    const key = await newKey(alice);
    const { key: changed } = await accounts.setApiKeyChoices({
      sessionCookie: alice.cookie,
      keyId: key.id,
      choices: { mayActOutbound: true, mayDestroyUnasked: false },
    });
    expect(changed).toMatchObject({
      id: key.id,
      name: 'agent',
      choices: { mayActOutbound: true, mayDestroyUnasked: false },
    });
    expect((await keyChoices(alice.id, key.id)).choices).toEqual({
      mayActOutbound: true,
      mayDestroyUnasked: false,
    });
    const [event] = await createAuditLog(pool).recent({
      userId: alice.id,
      kind: 'api_key.choices_changed',
      limit: 1,
    });
    expect(event?.details).toEqual({ keyId: key.id, mayActOutbound: true, mayDestroyUnasked: false });

    await accounts.setApiKeyChoices({
      sessionCookie: alice.cookie,
      keyId: key.id,
      choices: { mayActOutbound: false, mayDestroyUnasked: true },
    });
    expect((await keyChoices(alice.id, key.id)).choices).toEqual(DEFAULT_CREDENTIAL_CHOICES);
  });

  it("is NOT_FOUND for another person's key, which keeps its choices", async () => {
    const key = await newKey(alice);
    await expect(
      accounts.setApiKeyChoices({
        sessionCookie: bob.cookie,
        keyId: key.id,
        choices: { mayActOutbound: true, mayDestroyUnasked: true },
      }),
    ).rejects.toMatchObject({ code: GrpcStatus.NOT_FOUND });
    expect((await keyChoices(alice.id, key.id)).choices).toEqual(DEFAULT_CREDENTIAL_CHOICES);
  });

  it('is NOT_FOUND for a revoked or expired key, an unknown id and a malformed one', async () => {
    const revoked = await newKey(alice);
    await accounts.revokeApiKey({ sessionCookie: alice.cookie, keyId: revoked.id });
    const expired = await newKey(alice);
    await pool.query("UPDATE api_keys SET expires_at = now() - interval '1 second' WHERE id = $1", [
      expired.id,
    ]);
    for (const keyId of [
      revoked.id,
      expired.id,
      '00000000-0000-4000-8000-000000000000',
      'not-a-key',
      '',
      "' OR 1=1 --",
    ]) {
      await expect(
        accounts.setApiKeyChoices({
          sessionCookie: alice.cookie,
          keyId,
          choices: { mayActOutbound: true, mayDestroyUnasked: true },
        }),
      ).rejects.toMatchObject({ code: GrpcStatus.NOT_FOUND });
    }
    const { rows } = await pool.query('SELECT may_act_outbound FROM api_keys WHERE id = ANY($1::uuid[])', [
      [revoked.id, expired.id],
    ]);
    expect(rows).toEqual([{ may_act_outbound: false }, { may_act_outbound: false }]);
  });

  it('refuses a request without choices (INVALID_ARGUMENT) and one without a session (PERMISSION_DENIED)', async () => {
    const key = await newKey(alice);
    await expect(
      accounts.setApiKeyChoices({ sessionCookie: alice.cookie, keyId: key.id }),
    ).rejects.toMatchObject({
      code: GrpcStatus.INVALID_ARGUMENT,
    });
    await expect(
      accounts.setApiKeyChoices({
        sessionCookie: 'x'.repeat(43),
        keyId: key.id,
        choices: { mayActOutbound: true, mayDestroyUnasked: true },
      }),
    ).rejects.toMatchObject({ code: GrpcStatus.PERMISSION_DENIED });
    expect((await keyChoices(alice.id, key.id)).choices).toEqual(DEFAULT_CREDENTIAL_CHOICES);
  });
});

describe('GetCredentialChoices', () => {
  it("is NOT_FOUND for another user's key, a revoked or expired key, and an unknown key", async () => {
    const key = await newKey(alice, { mayActOutbound: true, mayDestroyUnasked: true });
    await expect(keyChoices(bob.id, key.id)).rejects.toMatchObject({ code: GrpcStatus.NOT_FOUND });
    await expect(keyChoices(alice.id, '00000000-0000-4000-8000-000000000000')).rejects.toMatchObject({
      code: GrpcStatus.NOT_FOUND,
    });
    const expired = await newKey(alice, { mayActOutbound: true, mayDestroyUnasked: true });
    await pool.query("UPDATE api_keys SET expires_at = now() - interval '1 second' WHERE id = $1", [
      expired.id,
    ]);
    await expect(keyChoices(alice.id, expired.id)).rejects.toMatchObject({ code: GrpcStatus.NOT_FOUND });
    await accounts.revokeApiKey({ sessionCookie: alice.cookie, keyId: key.id });
    await expect(keyChoices(alice.id, key.id)).rejects.toMatchObject({ code: GrpcStatus.NOT_FOUND });
  });

  it('answers the defaults for an app the person never chose for', async () => {
    expect(
      await consent.getCredentialChoices({ credential: { userId: alice.id, clientId: 'never-chosen' } }),
    ).toEqual({ choices: DEFAULT_CREDENTIAL_CHOICES });
  });

  const malformed: Array<[string, CallCredential | undefined]> = [
    ['no credential', undefined],
    ['neither a key nor an app', { userId: '00000000-0000-4000-8000-000000000000' }],
    [
      'both a key and an app',
      {
        userId: '00000000-0000-4000-8000-000000000000',
        apiKeyId: '00000000-0000-4000-8000-000000000001',
        clientId: 'app',
      },
    ],
    ['no user', { userId: '', clientId: 'app' }],
    ['a user id that is no id', { userId: "x' OR '1'='1", clientId: 'app' }],
    [
      'a key id that is no id',
      { userId: '00000000-0000-4000-8000-000000000000', apiKeyId: 'sg_live_secret' },
    ],
    ['an empty key id', { userId: '00000000-0000-4000-8000-000000000000', apiKeyId: '' }],
    ['an empty client id', { userId: '00000000-0000-4000-8000-000000000000', clientId: '' }],
    [
      'an oversized client id',
      { userId: '00000000-0000-4000-8000-000000000000', clientId: 'c'.repeat(2049) },
    ],
    ['a client id with a NUL', { userId: '00000000-0000-4000-8000-000000000000', clientId: 'app\u0000' }],
  ];
  it.each(malformed)('refuses %s with INVALID_ARGUMENT', async (_case, credential) => {
    await expect(consent.getCredentialChoices({ credential })).rejects.toMatchObject({
      code: GrpcStatus.INVALID_ARGUMENT,
    });
  });

  it('needs the service credential', async () => {
    const stranger = createCallConsentClient({
      address: `127.0.0.1:${subject.env.AUTH_GRPC_PORT}`,
      serviceToken: 'wrong',
    });
    try {
      await expect(
        stranger.getCredentialChoices({ credential: { userId: alice.id, clientId: 'app' } }),
      ).rejects.toMatchObject({ code: GrpcStatus.UNAUTHENTICATED });
    } finally {
      stranger.close();
    }
  });
});
