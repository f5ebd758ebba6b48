import { readJson } from '@sheetgate/test-harness';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type McpUnderTest, postMcp, postReadRange, startMcpUnderTest } from './support/stack.ts';

// Google's per-minute quotas, scheduled by auth for every MCP replica (docs/design.md §11.6,
// "Google's quota"), seen from outside: real mcp, auth and emulator processes.

interface Person {
  token: string;
  spreadsheetId: string;
}

async function person(stack: McpUnderTest, email: string): Promise<Person> {
  const { userId } = await stack.signIn(email);
  const [spreadsheetId] = await stack.seed(email, [{ name: `${email} sheet`, values: [['hello']] }]);
  return { token: await stack.sign({ sub: userId }), spreadsheetId: spreadsheetId! };
}

interface ToolReply {
  result?: { isError?: boolean; content: Array<{ text: string }>; structuredContent?: { values?: unknown } };
  error?: unknown;
}

async function readRange(stack: McpUnderTest, who: Person): Promise<ToolReply> {
  const response = await postReadRange(stack.mcpUrl, who.token, {
    spreadsheetId: who.spreadsheetId,
    range: 'Sheet1!A1',
  });
  expect(response.status).toBe(200);
  return (await readJson(response)) as ToolReply;
}

const textOf = (reply: ToolReply) => reply.result?.content[0]?.text ?? JSON.stringify(reply);

async function sheetsReadsAtGoogle(stack: McpUnderTest): Promise<{ attempts: number; refused: number }> {
  const stats = (await (await fetch(`${stack.emulatorUrl}/__emulator/stats`)).json()) as {
    methods: Record<string, { attempts: number; responses: Record<string, number> }>;
  };
  const valuesGet = stats.methods['sheets.spreadsheets.values.get'];
  return { attempts: valuesGet?.attempts ?? 0, refused: valuesGet?.responses['429'] ?? 0 };
}

describe("Sheetgate's own count: a person's quota spent", () => {
  let stack: McpUnderTest;
  let alice: Person;
  let bob: Person;
  beforeAll(async () => {
    stack = await startMcpUnderTest(
      // A request that cannot have its turn within a second is answered at once.
      { GOOGLE_QUOTA_MAX_WAIT_SECONDS: '1' },
      { GOOGLE_QUOTAS: JSON.stringify({ sheetsReadsPerMinutePerUser: 3 }) },
    );
    alice = await person(stack, 'alice@example.com');
    bob = await person(stack, 'bob@example.com');
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('answers the call past it with when to try again, and sends Google nothing for it', async () => {
    await fetch(`${stack.emulatorUrl}/__emulator/stats`, { method: 'DELETE' });
    for (let call = 0; call < 3; call++) {
      const reply = await readRange(stack, alice);
      expect(reply.result?.structuredContent?.values).toEqual([['hello']]);
    }
    const past = await readRange(stack, alice);
    expect(past.result?.isError).toBe(true);
    expect(textOf(past)).toMatch(
      /^Google's per-minute quota of Sheets reads for your account is used up\. Try again in (\d+) s\.$/,
    );
    const seconds = Number(/Try again in (\d+) s/.exec(textOf(past))![1]);
    expect(seconds).toBeGreaterThan(30);
    expect(seconds).toBeLessThanOrEqual(61);
    expect(await sheetsReadsAtGoogle(stack)).toEqual({ attempts: 3, refused: 0 });
    // Another person's reads are theirs to spend.
    expect((await readRange(stack, bob)).result?.structuredContent?.values).toEqual([['hello']]);
  });
});

describe("Google's own 429", () => {
  let stack: McpUnderTest;
  let alice: Person;
  let bob: Person;
  beforeAll(async () => {
    // Sheetgate believes it may send more than the emulator will take: Google is the authority.
    stack = await startMcpUnderTest({ GOOGLE_QUOTA_MAX_WAIT_SECONDS: '1' });
    alice = await person(stack, 'alice@example.com');
    bob = await person(stack, 'bob@example.com');
    const set = await fetch(`${stack.emulatorUrl}/__emulator/quotas`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ readsPerMinutePerUser: 2 }),
    });
    expect(set.status).toBe(200);
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('holds the bucket Google named, so the next call is answered without being sent', async () => {
    await fetch(`${stack.emulatorUrl}/__emulator/stats`, { method: 'DELETE' });
    for (let call = 0; call < 2; call++)
      expect((await readRange(stack, alice)).result?.structuredContent?.values).toEqual([['hello']]);
    // The third reaches Google, which refuses it for a minute: reported as Google said it.
    const refused = await readRange(stack, alice);
    expect(refused.result?.isError).toBe(true);
    expect(textOf(refused)).toMatch(
      /^Google's rate limit was reached \(userRateLimitExceeded\)\. Try again in \d+ s\.$/,
    );
    expect(await sheetsReadsAtGoogle(stack)).toEqual({ attempts: 3, refused: 1 });
    // Auth now holds alice's reads for Google's Retry-After: the fourth never leaves Sheetgate.
    const held = await readRange(stack, alice);
    expect(held.result?.isError).toBe(true);
    expect(textOf(held)).toMatch(
      /^Google asked Sheetgate to slow down its Sheets reads\. Try again in \d+ s\.$/,
    );
    expect(await sheetsReadsAtGoogle(stack)).toEqual({ attempts: 3, refused: 1 });
    // Google named alice's quota ("per user"), not the project's: bob still reads.
    expect((await readRange(stack, bob)).result?.structuredContent?.values).toEqual([['hello']]);
  });
});

describe('a request waiting for its turn', () => {
  let stack: McpUnderTest;
  let alice: Person;
  beforeAll(async () => {
    stack = await startMcpUnderTest(
      { GOOGLE_QUOTA_MAX_WAIT_SECONDS: '120' },
      { GOOGLE_QUOTAS: JSON.stringify({ sheetsReadsPerMinutePerUser: 1 }) },
    );
    alice = await person(stack, 'alice@example.com');
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('tells a client that asked for progress why it waits, and sends Google nothing until its turn', async () => {
    await fetch(`${stack.emulatorUrl}/__emulator/stats`, { method: 'DELETE' });
    expect((await readRange(stack, alice)).result?.structuredContent?.values).toEqual([['hello']]);
    // The second read waits for alice's minute (about a minute, within the 120 s allowed).
    const leaving = new AbortController();
    const response = await postMcp(
      stack.mcpUrl,
      {
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: {
          name: 'read_range',
          arguments: { spreadsheetId: alice.spreadsheetId, range: 'Sheet1!A1' },
          _meta: { progressToken: 'wait-1' },
        },
      },
      { headers: { authorization: `Bearer ${alice.token}` }, signal: leaving.signal },
    );
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let received = '';
    while (!received.includes('notifications/progress')) {
      const { value, done } = await reader.read();
      if (done) break;
      received += decoder.decode(value, { stream: true });
    }
    const event = /data: (.*notifications\/progress.*)/.exec(received);
    expect(event, received).not.toBeNull();
    expect(JSON.parse(event![1]!).params).toEqual({
      progressToken: 'wait-1',
      progress: 0,
      message: expect.stringMatching(
        /^Waiting for a turn at Google's per-minute quota of Sheets reads \(up to \d+ s\)$/,
      ),
    });
    // The client gives up waiting: nothing was sent to Google for it.
    leaving.abort();
    await reader.cancel().catch(() => {});
    expect(await sheetsReadsAtGoogle(stack)).toEqual({ attempts: 1, refused: 0 });
  });
});
