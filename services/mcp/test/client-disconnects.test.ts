import { readJson } from '@sheetgate/test-harness';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type McpUnderTest, postMcp, startMcpUnderTest } from './support/stack.ts';

// Clients hang up: a script is killed, a laptop lid closes, a load generator ends its run. The
// request's abort reaches the Google call under way, and whatever the HTTP client does with it
// must stay inside the call. (gaxios's default node-fetch 3 destroyed the request body with no
// error listener, and the unhandled 'error' event took the whole process down.)

let stack: McpUnderTest;
let token: string;
let spreadsheetId: string;

beforeAll(async () => {
  stack = await startMcpUnderTest();
  const { userId } = await stack.signIn('alice@example.com');
  token = await stack.sign({ sub: userId });
  const seeded = await fetch(`${stack.emulatorUrl}/__emulator/seed`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'alice@example.com', files: [{ name: 'Hang-ups', values: [['a']] }] }),
  });
  spreadsheetId = ((await seeded.json()) as { files: Array<{ id: string }> }).files[0]!.id;
});
afterAll(async () => {
  await stack?.stop();
});

const post = (body: unknown, signal?: AbortSignal) =>
  postMcp(stack.mcpUrl, body, {
    headers: { authorization: `Bearer ${token}` },
    ...(signal ? { signal } : {}),
  });

// A write with a body big enough to be still on its way to Google when the client hangs up.
const rows = Array.from({ length: 50 }, (_, row) =>
  Array.from({ length: 10 }, (_, column) => `r${row}c${column}-${'x'.repeat(20)}`),
);
const write = (id: number) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name: 'write_range', arguments: { spreadsheetId, range: 'Sheet1!A1', values: rows } },
});

describe('a client that disconnects during a call', () => {
  it('leaves the service running and answering, whenever the hang-up comes', async () => {
    let hungUp = 0;
    for (let round = 0; round < 5; round++) {
      await Promise.all(
        Array.from({ length: 12 }, async (_, index) => {
          const hangUp = new AbortController();
          // From before the call reaches Google to after its answer: each moment of a write.
          setTimeout(() => hangUp.abort(), 2 + ((round * 12 + index) % 30) * 2);
          try {
            await (await post(write(round * 100 + index), hangUp.signal)).text();
          } catch {
            hungUp++;
          }
        }),
      );
      expect(stack.mcp.process.exitCode, stack.mcp.output.slice(-20).join('\n')).toBeNull();
    }
    expect(hungUp).toBeGreaterThan(0);
    // Still the same process, answering a whole call.
    const answered = await post(write(9_999));
    expect(answered.status).toBe(200);
    expect((await readJson(answered)).result.isError).toBeFalsy();
    expect(stack.mcp.process.exitCode).toBeNull();
  });
});
