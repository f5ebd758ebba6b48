import {
  type AccountServiceClientApi,
  type CallConsentClient,
  type CallCredential,
  createAccountServiceClient,
  createCallConsentClient,
  GrpcStatus,
} from '@sheetgate/proto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAuditLog } from '../src/audit/index.ts';
import { createCallApprovals, KEPT_AFTER_EXPIRY_MS } from '../src/call-consent/call-approvals.ts';
import { createSessionStore } from '../src/sessions/index.ts';
import { createUserLibrary } from '../src/users/index.ts';
import { type OAuthTestbed, startOAuthTestbed } from './support/oauth-flow.ts';

// Calls approved on the approval page (URL-mode elicitation, docs/design.md §11.10) through a real
// auth process: the MCP service creates one (CreateCallApproval) and reads where it stands
// (GetCallApproval); the signed-in person it was created for sees it (ShowCallApproval) and answers
// it once (AnswerCallApproval). Nobody else finds it; an expired one cannot be answered.

let testbed: OAuthTestbed;
let accounts: AccountServiceClientApi;
let consent: CallConsentClient;
const alice = { id: '', cookie: '' };
const bob = { id: '', cookie: '' };
let keyId: string;
let clientId: string;

beforeAll(async () => {
  testbed = await startOAuthTestbed({ sub: '7201', email: 'approvals@example.com' });
  const address = `127.0.0.1:${testbed.subject.env.AUTH_GRPC_PORT}`;
  const serviceToken = testbed.subject.env.INTERNAL_SERVICE_TOKEN!;
  accounts = createAccountServiceClient({ address, serviceToken });
  consent = createCallConsentClient({ address, serviceToken });
  alice.id = testbed.userId;
  bob.id = (
    await createUserLibrary(testbed.pool).upsertFromGoogle({ sub: '7202', email: 'bob@example.com' })
  ).id;
  for (const person of [alice, bob])
    person.cookie = (await createSessionStore(testbed.pool).create(person.id)).cookieValue;
  const { key } = await accounts.createApiKey({
    sessionCookie: alice.cookie,
    name: 'Nightly report',
    scopes: ['sheets:read', 'sheets:write'],
    expiresAt: '',
  });
  keyId = key!.id;
  const registered = await testbed.oauth.register({
    client_name: 'Approval app',
    redirect_uris: ['http://127.0.0.1:40114/callback'],
    token_endpoint_auth_method: 'none',
  });
  clientId = registered.body.client_id as string;
});
afterAll(async () => {
  accounts?.close();
  consent?.close();
  await testbed?.stop();
});

const SENTENCE = 'mallory@gmail.com gets writer access to "Budget 2027"';

async function create(
  credential: CallCredential = { userId: alice.id, apiKeyId: keyId },
  fields: { tool?: string; sentence?: string; validForMs?: number } = {},
): Promise<string> {
  const { approvalId } = await consent.createCallApproval({
    credential,
    tool: 'share_file',
    sentence: SENTENCE,
    validForMs: 300_000,
    ...fields,
  });
  return approvalId;
}

const stateOf = async (approvalId: string, userId = alice.id) =>
  (await consent.getCallApproval({ approvalId, userId })).state;

const expire = (approvalId: string) =>
  testbed.pool.query("UPDATE call_approvals SET expires_at = now() - interval '1 second' WHERE id = $1", [
    approvalId,
  ]);

describe('an approval for an API key', () => {
  it('is pending, shown to its person with the key, the tool and the sentence, and answered once', async () => {
    const approvalId = await create();
    expect(approvalId).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(await stateOf(approvalId)).toBe('CALL_APPROVAL_STATE_PENDING');

    const { approval } = await accounts.showCallApproval({ sessionCookie: alice.cookie, approvalId });
    expect(approval).toMatchObject({
      approvalId,
      state: 'CALL_APPROVAL_STATE_PENDING',
      tool: 'share_file',
      sentence: SENTENCE,
      credentialLabel: 'Nightly report',
      credentialKind: 'api_key',
      answeredAt: '',
    });
    expect(Date.parse(approval!.expiresAt) - Date.parse(approval!.createdAt)).toBe(300_000);

    const first = await accounts.answerCallApproval({
      sessionCookie: alice.cookie,
      approvalId,
      approve: true,
    });
    expect(first.answered).toBe(true);
    expect(first.approval).toMatchObject({ state: 'CALL_APPROVAL_STATE_APPROVED' });
    expect(Date.parse(first.approval!.answeredAt)).toBeGreaterThan(0);
    expect(await stateOf(approvalId)).toBe('CALL_APPROVAL_STATE_APPROVED');

    // A second answer (the link reused, another tab) changes nothing.
    const second = await accounts.answerCallApproval({
      sessionCookie: alice.cookie,
      approvalId,
      approve: false,
    });
    expect(second).toEqual({ answered: false, approval: first.approval });
    expect(await stateOf(approvalId)).toBe('CALL_APPROVAL_STATE_APPROVED');

    const [event] = await createAuditLog(testbed.pool).recent({ kind: 'call_approval.answered', limit: 1 });
    expect(event).toMatchObject({
      userId: alice.id,
      details: { approvalId, tool: 'share_file', answer: 'approved', keyId },
    });
  });

  it('declined is declined', async () => {
    const approvalId = await create();
    const answer = await accounts.answerCallApproval({
      sessionCookie: alice.cookie,
      approvalId,
      approve: false,
    });
    expect(answer).toMatchObject({ answered: true, approval: { state: 'CALL_APPROVAL_STATE_DECLINED' } });
    expect(await stateOf(approvalId)).toBe('CALL_APPROVAL_STATE_DECLINED');
  });
});

describe('an approval for a connected app', () => {
  it('names the app by its registered name, or its client id when auth holds no such client', async () => {
    const approvalId = await create({ userId: alice.id, clientId });
    expect(
      (await accounts.showCallApproval({ sessionCookie: alice.cookie, approvalId })).approval,
    ).toMatchObject({
      credentialLabel: 'Approval app',
      credentialKind: 'app',
    });
    const unknown = await create({ userId: alice.id, clientId: 'https://app.example/client.json' });
    expect(
      (await accounts.showCallApproval({ sessionCookie: alice.cookie, approvalId: unknown })).approval,
    ).toMatchObject({ credentialLabel: 'https://app.example/client.json', credentialKind: 'app' });
  });
});

describe('only the person it was created for', () => {
  it("another person's GetCallApproval is UNKNOWN, their Show and Answer NOT_FOUND, and it stays pending", async () => {
    const approvalId = await create();
    expect(await stateOf(approvalId, bob.id)).toBe('CALL_APPROVAL_STATE_UNKNOWN');
    await expect(accounts.showCallApproval({ sessionCookie: bob.cookie, approvalId })).rejects.toMatchObject({
      code: GrpcStatus.NOT_FOUND,
    });
    for (const approve of [true, false]) {
      await expect(
        accounts.answerCallApproval({ sessionCookie: bob.cookie, approvalId, approve }),
      ).rejects.toMatchObject({ code: GrpcStatus.NOT_FOUND });
    }
    expect(await stateOf(approvalId)).toBe('CALL_APPROVAL_STATE_PENDING');
  });

  it('a page without a session is PERMISSION_DENIED', async () => {
    const approvalId = await create();
    await expect(accounts.showCallApproval({ sessionCookie: '', approvalId })).rejects.toMatchObject({
      code: GrpcStatus.PERMISSION_DENIED,
    });
    await expect(
      accounts.answerCallApproval({ sessionCookie: 'x'.repeat(43), approvalId, approve: true }),
    ).rejects.toMatchObject({ code: GrpcStatus.PERMISSION_DENIED });
    expect(await stateOf(approvalId)).toBe('CALL_APPROVAL_STATE_PENDING');
  });

  it.each([
    ['empty', ''],
    ['too short', 'abc'],
    ['too long', 'A'.repeat(23)],
    ['with a dot (a whole link segment)', 'AAAAAAAAAAAAAAAAAAAAA.'],
    ['SQL', "' OR ''='"],
    ['a NUL', `${'A'.repeat(21)}\u0000`],
  ])(
    'an id that is %s is UNKNOWN to GetCallApproval and NOT_FOUND on the page',
    async (_case, approvalId) => {
      expect(await stateOf(approvalId)).toBe('CALL_APPROVAL_STATE_UNKNOWN');
      await expect(
        accounts.showCallApproval({ sessionCookie: alice.cookie, approvalId }),
      ).rejects.toMatchObject({
        code: GrpcStatus.NOT_FOUND,
      });
      await expect(
        accounts.answerCallApproval({ sessionCookie: alice.cookie, approvalId, approve: true }),
      ).rejects.toMatchObject({ code: GrpcStatus.NOT_FOUND });
    },
  );

  it('an unknown well-formed id and a malformed user id are UNKNOWN', async () => {
    expect(await stateOf('A'.repeat(22))).toBe('CALL_APPROVAL_STATE_UNKNOWN');
    expect(await stateOf(await create(), 'not-a-user')).toBe('CALL_APPROVAL_STATE_UNKNOWN');
  });
});

describe('the first answer wins', () => {
  it('of an approve and a decline sent at once, exactly one is recorded, and it is what the approval says', async () => {
    for (let round = 0; round < 5; round++) {
      const approvalId = await create();
      const answers = await Promise.all(
        [true, false].map((approve) =>
          accounts.answerCallApproval({ sessionCookie: alice.cookie, approvalId, approve }),
        ),
      );
      const recorded = answers.filter((answer) => answer.answered);
      expect(recorded).toHaveLength(1);
      const winner = recorded[0]!.approval!.state;
      expect(answers.map((answer) => answer.approval!.state)).toEqual([winner, winner]);
      expect(await stateOf(approvalId)).toBe(winner);
    }
  });
});

describe('expiry', () => {
  it('a pending approval past its expiry is EXPIRED and can no longer be answered', async () => {
    const approvalId = await create();
    await expire(approvalId);
    expect(await stateOf(approvalId)).toBe('CALL_APPROVAL_STATE_EXPIRED');
    const answer = await accounts.answerCallApproval({
      sessionCookie: alice.cookie,
      approvalId,
      approve: true,
    });
    expect(answer).toMatchObject({
      answered: false,
      approval: { state: 'CALL_APPROVAL_STATE_EXPIRED', answeredAt: '' },
    });
    const { rows } = await testbed.pool.query('SELECT state, answered_at FROM call_approvals WHERE id = $1', [
      approvalId,
    ]);
    expect(rows).toEqual([{ state: 'pending', answered_at: null }]);
  });

  it('an answer given in time stands after the expiry', async () => {
    const approvalId = await create();
    await accounts.answerCallApproval({ sessionCookie: alice.cookie, approvalId, approve: false });
    await expire(approvalId);
    expect(await stateOf(approvalId)).toBe('CALL_APPROVAL_STATE_DECLINED');
  });

  it('the sweep forgets approvals an hour after they expired (then UNKNOWN), and keeps the rest', async () => {
    const [old, recent, live] = [await create(), await create(), await create()];
    await testbed.pool.query(
      `UPDATE call_approvals SET expires_at = now() - $2::integer * interval '1 millisecond' - interval '1 second'
       WHERE id = $1`,
      [old, KEPT_AFTER_EXPIRY_MS],
    );
    await expire(recent);
    const approvals = createCallApprovals({
      pool: testbed.pool,
      audit: createAuditLog(testbed.pool),
      clientName: async () => undefined,
    });
    expect(await approvals.sweep()).toBe(1);
    expect(await stateOf(old)).toBe('CALL_APPROVAL_STATE_UNKNOWN');
    expect(await stateOf(recent)).toBe('CALL_APPROVAL_STATE_EXPIRED');
    expect(await stateOf(live)).toBe('CALL_APPROVAL_STATE_PENDING');
  });
});

describe('CreateCallApproval refuses', () => {
  const base = () => ({
    credential: { userId: alice.id, apiKeyId: keyId } as CallCredential | undefined,
    tool: 'share_file',
    sentence: SENTENCE,
    validForMs: 300_000,
  });
  const count = async () =>
    Number((await testbed.pool.query('SELECT count(*) FROM call_approvals')).rows[0].count);

  it.each([
    ['no credential', { credential: undefined }],
    [
      'a credential naming both a key and an app',
      { credential: { userId: '', apiKeyId: '', clientId: 'x' } },
    ],
    ['an empty tool', { tool: '' }],
    ['a tool of 101 characters', { tool: 't'.repeat(101) }],
    ['a tool that is no tool name', { tool: 'share file<script>' }],
    ['an empty sentence', { sentence: '' }],
    ['a blank sentence', { sentence: ' \n ' }],
    ['a sentence of 4,001 characters', { sentence: 'é'.repeat(4_001) }],
    ['a sentence with a NUL', { sentence: 'fine\u0000' }],
    ['a sentence with a bidi override', { sentence: 'shares with \u202Emoc.liamg@yrollam' }],
    ['a sentence with an escape sequence', { sentence: 'shares \u001b[2J' }],
    ['no lifetime', { validForMs: 0 }],
    ['a negative lifetime', { validForMs: -1 }],
    ['a lifetime over ten minutes', { validForMs: 600_001 }],
  ])('%s as INVALID_ARGUMENT, recording nothing', async (_case, change) => {
    const before = await count();
    await expect(consent.createCallApproval({ ...base(), ...change })).rejects.toMatchObject({
      code: GrpcStatus.INVALID_ARGUMENT,
    });
    expect(await count()).toBe(before);
  });

  it("another person's key, a revoked key and an unknown person as NOT_FOUND, recording nothing", async () => {
    const { key: revoked } = await accounts.createApiKey({
      sessionCookie: alice.cookie,
      name: 'old',
      scopes: ['sheets:read'],
      expiresAt: '',
    });
    await accounts.revokeApiKey({ sessionCookie: alice.cookie, keyId: revoked!.id });
    const before = await count();
    for (const credential of [
      { userId: bob.id, apiKeyId: keyId },
      { userId: alice.id, apiKeyId: revoked!.id },
      { userId: '00000000-0000-4000-8000-000000000000', clientId },
    ]) {
      await expect(consent.createCallApproval({ ...base(), credential })).rejects.toMatchObject({
        code: GrpcStatus.NOT_FOUND,
      });
    }
    expect(await count()).toBe(before);
  });

  it('takes the bounds themselves: 4,000 characters (line breaks and tabs too), 100-character tool, ten minutes', async () => {
    const sentence = `${'é'.repeat(3_998)}\n\t`;
    const approvalId = await create(undefined, { sentence, tool: 't'.repeat(100), validForMs: 600_000 });
    const { approval } = await accounts.showCallApproval({ sessionCookie: alice.cookie, approvalId });
    expect(approval!.sentence).toBe(sentence);
    expect(Date.parse(approval!.expiresAt) - Date.parse(approval!.createdAt)).toBe(600_000);
  });

  it('without the service credential (UNAUTHENTICATED)', async () => {
    const stranger = createCallConsentClient({
      address: `127.0.0.1:${testbed.subject.env.AUTH_GRPC_PORT}`,
      serviceToken: 'wrong',
    });
    try {
      await expect(stranger.createCallApproval(base())).rejects.toMatchObject({
        code: GrpcStatus.UNAUTHENTICATED,
      });
      await expect(
        stranger.getCallApproval({ approvalId: 'A'.repeat(22), userId: alice.id }),
      ).rejects.toMatchObject({
        code: GrpcStatus.UNAUTHENTICATED,
      });
    } finally {
      stranger.close();
    }
  });
});
