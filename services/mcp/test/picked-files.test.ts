import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type McpUnderTest, startMcpUnderTest } from './support/stack.ts';

// GOOGLE_SCOPE_MODE=picked-files (issue 23), through real auth, mcp and emulator processes: the
// person's Google grant is drive.file alone, so a tool reaches the files Sheetgate created or that
// the person chose in the Google Picker; any other file gets the answer naming the dashboard's
// "Choose spreadsheets", and works once picked (the emulator's picker records the grant as
// Google's does, with the same access token the dashboard hands the Picker).

const DRIVE_FILE = 'https://www.googleapis.com/auth/drive.file';
let stack: McpUnderTest;
let userId: string;
let client: Awaited<ReturnType<McpUnderTest['connectClient']>>;
let budget: string;
let plans: string;

const text = (result: unknown) =>
  (((result as { content?: unknown }).content ?? []) as Array<{ type: string; text?: string }>)
    .map((part) => part.text ?? '')
    .join('\n');

async function pick(fileId: string) {
  const token = await stack.googleAccessToken(userId);
  const answer = await fetch(`${stack.emulatorUrl}/picker/v1/select`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ ids: [fileId] }),
  });
  expect(answer.status).toBe(200);
}

beforeAll(async () => {
  stack = await startMcpUnderTest({}, { GOOGLE_SCOPE_MODE: 'picked-files' });
  ({ userId } = await stack.signIn('alice@example.com'));
  [budget, plans] = (await stack.seed('alice@example.com', [
    { name: 'Budget', values: [['Rent', 1200]] },
    { name: 'Plans', values: [['Trip']] },
  ])) as [string, string];
  client = await stack.connectClient(userId, 'picked-files test');
});
afterAll(async () => {
  await client?.close();
  await stack?.stop();
});

describe('picked-files mode', () => {
  it('asks Google for drive.file alone', async () => {
    const broker = await import('@sheetgate/proto').then(({ createTokenBrokerClient }) =>
      createTokenBrokerClient({ address: stack.grpcAddress, serviceToken: stack.serviceToken }),
    );
    try {
      const answer = await broker.getGoogleAccessToken({ userId, forceRefresh: false });
      expect(answer.token?.scopes).toContain(DRIVE_FILE);
      expect(answer.token?.scopes.filter((scope) => scope.includes('/auth/spreadsheets'))).toEqual([]);
      expect(answer.token?.scopes.filter((scope) => scope.includes('drive.readonly'))).toEqual([]);
    } finally {
      broker.close();
    }
  });

  it('answers a file that was not picked with the dashboard action, and reads it once picked', async () => {
    const before = await client.callTool({
      name: 'read_range',
      arguments: { spreadsheetId: budget, range: 'A1:B1' },
    });
    expect(before.isError).toBe(true);
    expect(text(before)).toContain('Sheetgate cannot reach this spreadsheet');
    expect(text(before)).toContain(`Choose spreadsheets) at ${stack.baseUrl}/dashboard`);

    const listedBefore = await client.callTool({ name: 'list_spreadsheets', arguments: {} });
    expect((listedBefore.structuredContent as { spreadsheets: unknown[] }).spreadsheets).toEqual([]);

    await pick(budget);
    const after = await client.callTool({
      name: 'read_range',
      arguments: { spreadsheetId: budget, range: 'A1:B1' },
    });
    expect(after.isError).toBeFalsy();
    expect((after.structuredContent as { values: unknown[][] }).values).toEqual([['Rent', '1200']]);

    const listed = await client.callTool({ name: 'list_spreadsheets', arguments: {} });
    expect(
      (listed.structuredContent as { spreadsheets: Array<{ name: string }> }).spreadsheets.map(
        (file) => file.name,
      ),
    ).toEqual(['Budget']);
    const other = await client.callTool({
      name: 'read_range',
      arguments: { spreadsheetId: plans, range: 'A1' },
    });
    expect(text(other)).toContain('Choose spreadsheets');
  });

  it('writes to and converts a picked file, and creates one it then lists', async () => {
    const written = await client.callTool({
      name: 'write_range',
      arguments: { spreadsheetId: budget, range: 'C1', values: [['paid']] },
    });
    expect(written.isError, text(written)).toBeFalsy();
    const created = await client.callTool({ name: 'create_spreadsheet', arguments: { title: 'Made here' } });
    expect(created.isError, text(created)).toBeFalsy();
    // Conversion reads the picked file and creates one Sheetgate can reach (it made it).
    const converted = await client.callTool({
      name: 'convert_file',
      arguments: { fileId: budget, to: 'csv', name: 'Budget export' },
    });
    expect(converted.isError, text(converted)).toBeFalsy();
    const notPicked = await client.callTool({
      name: 'convert_file',
      arguments: { fileId: plans, to: 'csv' },
    });
    expect(text(notPicked)).toContain('Choose spreadsheets');
    const listed = await client.callTool({ name: 'list_spreadsheets', arguments: {} });
    expect(
      (listed.structuredContent as { spreadsheets: Array<{ name: string }> }).spreadsheets
        .map((file) => file.name)
        .sort(),
    ).toEqual(['Budget', 'Made here']);
  });

  it('trash_file leaves a picked file where it is, though Google would let it, and trashes one it made', async () => {
    const refused = await client.callTool({ name: 'trash_file', arguments: { fileId: budget } });
    expect(refused.isError).toBe(true);
    expect(text(refused)).toContain('Sheetgate trashes only files you made with it');
    const made = await client.callTool({ name: 'create_spreadsheet', arguments: { title: 'Scratch' } });
    const madeId = (made.structuredContent as { spreadsheetId: string }).spreadsheetId;
    const trashed = await client.callTool({ name: 'trash_file', arguments: { fileId: madeId } });
    expect(trashed.isError, text(trashed)).toBeFalsy();
    const token = await stack.googleAccessToken(userId);
    const state = async (fileId: string) =>
      (
        (await (
          await fetch(`${stack.emulatorUrl}/drive/v3/files/${fileId}?fields=trashed`, {
            headers: { authorization: `Bearer ${token}` },
          })
        ).json()) as { trashed: boolean }
      ).trashed;
    expect([await state(budget), await state(madeId)]).toEqual([false, true]);
  });
});
