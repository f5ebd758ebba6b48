import { readJson } from '@sheetgate/test-harness';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type McpUnderTest, postReadRange, startMcpUnderTest } from './support/stack.ts';

// The per-user cap on Google calls (issue 5), seen from outside: real mcp, auth and emulator
// processes; the emulator's stats say how many calls were at Google at once.

let stack: McpUnderTest;
const people: Record<string, { token: string; spreadsheetId: string }> = {};

async function seed(email: string): Promise<string> {
  const [id] = await stack.seed(email, [{ name: `${email} sheet`, values: [['hello']] }]);
  return id!;
}

function readRange(who: string) {
  const person = people[who]!;
  return postReadRange(stack.mcpUrl, person.token, { spreadsheetId: person.spreadsheetId, range: 'A1' }).then(
    (response) => readJson(response),
  );
}

interface MethodStats {
  attempts: number;
  inFlight: number;
  maxInFlight: number;
}
async function valuesGetStats(): Promise<MethodStats> {
  const stats = (await (await fetch(`${stack.emulatorUrl}/__emulator/stats`)).json()) as {
    methods: Record<string, MethodStats>;
  };
  return stats.methods['sheets.spreadsheets.values.get'] ?? { attempts: 0, inFlight: 0, maxInFlight: 0 };
}

beforeAll(async () => {
  stack = await startMcpUnderTest();
  for (const who of ['alice', 'bob']) {
    const email = `${who}@example.com`;
    const { userId } = await stack.signIn(email);
    people[who] = { token: await stack.sign({ sub: userId }), spreadsheetId: await seed(email) };
  }
});
afterAll(async () => {
  await stack?.stop();
});

describe('per-user concurrency cap on Google calls', () => {
  it("holds a person's 5th concurrent call until a slot frees, while another person's call goes at once", async () => {
    // Every read of alice's spreadsheet takes a while at "Google"; bob's are not slowed.
    await stack.fault({
      match: `/v4/spreadsheets/${people.alice!.spreadsheetId}/`,
      latencyMs: 4_000,
      count: 5,
    });
    await fetch(`${stack.emulatorUrl}/__emulator/stats`, { method: 'DELETE' });
    const finished: string[] = [];
    const alices = Array.from({ length: 5 }, (_, index) =>
      readRange('alice').then((reply) => {
        finished.push(`alice ${index}`);
        return reply;
      }),
    );
    // Four of alice's calls are at Google…
    const deadline = Date.now() + 10_000;
    while ((await valuesGetStats()).inFlight < 4 && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 20));
    // …bob's call goes straight through and is answered while they are still there…
    const bobs = await readRange('bob');
    finished.push('bob');
    expect(bobs.result.structuredContent.values).toEqual([['hello']]);
    const during = await valuesGetStats();
    expect(finished).toEqual(['bob']);
    // …and alice's fifth has not reached Google: it waits for one of her four slots.
    expect(during.inFlight).toBe(4);
    expect(during.attempts).toBe(5); // alice's four and bob's one

    for (const reply of await Promise.all(alices))
      expect(reply.result.structuredContent.values).toEqual([['hello']]);
    const after = await valuesGetStats();
    expect(after.attempts).toBe(6);
    expect(after.maxInFlight).toBe(5); // never more than alice's four plus bob's one
  });
});
