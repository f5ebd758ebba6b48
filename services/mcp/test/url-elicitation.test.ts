import { createAccountServiceClient } from '@sheetgate/proto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRequestStateCodec } from '../src/protocol/request-state.ts';
import { callAs, googleStats, type Reply, textOf, writesBetween } from './support/consent-calls.ts';
import { type McpUnderTest, startMcpUnderTest } from './support/stack.ts';

// URL-mode elicitation (issue 37; docs/design.md §15): a 2026-07-28 client that declares URL
// elicitation only is answered input_required with a link to Sheetgate's approval page; the person
// approves or declines there (AccountService.AnswerCallApproval with their dashboard session, as
// web's page sends it), and the client's retry runs the call once, says it was declined, or asks
// again. Real auth, mcp and Google emulator processes; the emulator's write counts say what Google
// received.

let stack: McpUnderTest;
let alice: { userId: string; sessionCookie: string };
let bob: { userId: string; sessionCookie: string };
let key: { secret: string; keyId: string };
let bobKey: string;
let book: string;

beforeAll(async () => {
  stack = await startMcpUnderTest();
  alice = await stack.signIn('alice@example.com');
  bob = await stack.signIn('bob@example.com');
  const allowed = { choices: { mayActOutbound: true, mayDestroyUnasked: true } };
  key = await stack.createApiKey(alice.sessionCookie, allowed);
  bobKey = (await stack.createApiKey(bob.sessionCookie, allowed)).secret;
  const created = await callAs(stack.mcpUrl, 'legacy', key.secret, 'create_spreadsheet', {
    title: 'Salaries',
    values: [['Ann', '91000']],
  });
  book = created.result!.structuredContent.spreadsheetId;
}, 120_000);

afterAll(async () => {
  await stack?.stop();
});

const share = () => ({
  fileId: book,
  emailAddress: 'mallory@gmail.com',
  role: 'reader',
  sendNotificationEmail: false,
});
const sentence = () =>
  `Share a file (${book}) sends outside your account: mallory@gmail.com gets reader access.`;

/** A call from the URL-only client, and what Google was asked to write meanwhile. */
async function urlCall(
  args: Record<string, unknown>,
  extra: Record<string, unknown> = {},
  tool = 'share_file',
  credential = key.secret,
): Promise<{ reply: Reply; writes: Record<string, number> }> {
  const before = await googleStats(stack.emulatorUrl);
  const reply = await callAs(stack.mcpUrl, 'url', credential, tool, args, extra);
  return { reply, writes: writesBetween(before, await googleStats(stack.emulatorUrl)) };
}

/** The approval link's id and the state of an input_required answer. */
function asked(reply: Reply): { approvalId: string; url: string; requestState: string; message: string } {
  expect(reply.result?.resultType, JSON.stringify(reply)).toBe('input_required');
  const params = reply.result!.inputRequests.approve.params;
  expect(params.mode).toBe('url');
  return {
    approvalId: params.elicitationId,
    url: params.url,
    requestState: reply.result!.requestState,
    message: params.message,
  };
}

async function answer(approvalId: string, approve: boolean, sessionCookie = alice.sessionCookie) {
  const client = createAccountServiceClient({ address: stack.grpcAddress, serviceToken: stack.serviceToken });
  try {
    return await client.answerCallApproval({ sessionCookie, approvalId, approve });
  } finally {
    client.close();
  }
}

const retryWith = (state: string, action = 'accept') => ({
  inputResponses: { approve: { action } },
  requestState: state,
});

describe('an outbound call from a client with URL elicitation only', () => {
  it('approved on the page, the retry runs once; the same retry again is refused as already used', async () => {
    const first = await urlCall(share());
    expect(first.writes).toEqual({});
    const link = asked(first.reply);
    expect(link.url).toBe(`${stack.baseUrl}/approve/${link.approvalId}.${link.url.split('.').at(-1)}`);
    expect(link.message).toBe(
      `${sentence()} Approve or decline it on Sheetgate's page (signed in as yourself), then continue.`,
    );
    expect((await answer(link.approvalId, true)).answered).toBe(true);

    const ran = await urlCall(share(), retryWith(link.requestState));
    expect(ran.reply.result?.isError, textOf(ran.reply.result)).toBeFalsy();
    expect(ran.writes).toEqual({ 'drive.permissions.create': 1 });

    const replayed = await urlCall(share(), retryWith(link.requestState));
    expect(replayed.reply.error).toMatchObject({
      code: -32602,
      message: expect.stringMatching(/^requestState refused: already used/),
    });
    expect(replayed.writes).toEqual({});
  });

  it('declined on the page: nothing is sent, and the retry says so', async () => {
    const link = asked((await urlCall(share())).reply);
    await answer(link.approvalId, false);
    const declined = await urlCall(share(), retryWith(link.requestState));
    expect(declined.reply.result?.isError).toBe(true);
    expect(textOf(declined.reply.result)).toBe(
      `Nothing was sent to Google: the person declined on the approval page. ${sentence()}`,
    );
    expect(declined.writes).toEqual({});
  });

  it('not answered yet: asked again with the same link and a fresh state, which runs once approved', async () => {
    const link = asked((await urlCall(share())).reply);
    const pending = await urlCall(share(), retryWith(link.requestState));
    const again = asked(pending.reply);
    expect(pending.writes).toEqual({});
    expect(again.url).toBe(link.url);
    expect(again.requestState).not.toBe(link.requestState);
    await answer(link.approvalId, true);
    const ran = await urlCall(share(), retryWith(again.requestState));
    expect(ran.writes).toEqual({ 'drive.permissions.create': 1 });
  });

  it('the client declines or cancels the elicitation: nothing is sent, the approval stays pending', async () => {
    for (const action of ['decline', 'cancel']) {
      const link = asked((await urlCall(share())).reply);
      const refused = await urlCall(share(), retryWith(link.requestState, action));
      expect(textOf(refused.reply.result)).toBe(
        `Nothing was sent to Google: the person did not confirm. ${sentence()}`,
      );
      expect(refused.writes).toEqual({});
      const client = createAccountServiceClient({
        address: stack.grpcAddress,
        serviceToken: stack.serviceToken,
      });
      try {
        const shown = await client.showCallApproval({
          sessionCookie: alice.sessionCookie,
          approvalId: link.approvalId,
        });
        expect(shown.approval?.state).toBe('CALL_APPROVAL_STATE_PENDING');
      } finally {
        client.close();
      }
    }
  });

  it("a state for another call, or approved by another person's page, runs nothing", async () => {
    const link = asked((await urlCall(share())).reply);
    await answer(link.approvalId, true);
    const other = await urlCall({ ...share(), role: 'writer' }, retryWith(link.requestState));
    expect(other.reply.error).toMatchObject({
      code: -32602,
      message: 'requestState refused: issued for another call',
    });
    expect(other.writes).toEqual({});
    // Bob cannot answer alice's approval: his answer is NOT_FOUND, and alice's stays pending.
    const mine = asked((await urlCall(share())).reply);
    await expect(answer(mine.approvalId, true, bob.sessionCookie)).rejects.toThrow(
      /NOT_FOUND|no such call approval/,
    );
    expect(asked((await urlCall(share(), retryWith(mine.requestState))).reply).url).toBe(mine.url);
  });

  it('an approval auth does not know for this person (another person’s id in a well-signed state): a new approval', async () => {
    // Bob's own approval, approved by bob; a state for alice's call naming it, signed with the key
    // the replicas share (as a state of an approval forgotten after expiry would read).
    const bobs = asked((await urlCall(share(), {}, 'share_file', bobKey)).reply);
    await answer(bobs.approvalId, true, bob.sessionCookie);
    const states = createRequestStateCodec(stack.serviceToken);
    const state = await states.sign(
      {
        auth: { userId: alice.userId, scopes: new Set(), credential: 'api_key', apiKeyId: key.keyId },
        method: 'tools/call',
        target: 'share_file',
        args: share(),
      },
      sentence(),
      bobs.approvalId,
    );
    const anew = await urlCall(share(), retryWith(state));
    expect(anew.writes).toEqual({});
    const link = asked(anew.reply);
    expect(link.approvalId).not.toBe(bobs.approvalId);
  });

  it('a destructive call: approved on the page, it clears', async () => {
    const args = { spreadsheetId: book, range: 'Sheet1!A1:B1' };
    const link = asked((await urlCall(args, {}, 'clear_range')).reply);
    expect(link.message).toMatch(/^Clears A1:B1 of the tab "Sheet1" of "Salaries": 2 non-empty cells\. /);
    await answer(link.approvalId, true);
    const cleared = await urlCall(args, retryWith(link.requestState), 'clear_range');
    expect(cleared.writes).toEqual({ 'sheets.spreadsheets.values.clear': 1 });
  });
});
