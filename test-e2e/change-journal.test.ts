import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { type Stack, startStack } from '@sheetgate/test-harness';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey, signIn } from './support/people.ts';

// The change journal (docs/design.md §11.8) end to end: a person's API key writes through the
// real MCP SDK client, list_changes names the key, undo_change restores, refuses after a later
// edit naming the cell, and force restores anyway; another person cannot see or undo it.

let stack: Stack;
let alice: Client;
let bob: Client;
let keyId: string;

async function mcpClient(apiKey: string): Promise<Client> {
  const client = new Client({ name: 'sheetgate-e2e-journal', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${stack.baseUrl}/api/mcp`), {
      requestInit: { headers: { 'x-api-key': apiKey } },
    }),
  );
  return client;
}

async function call(client: Client, name: string, args: Record<string, unknown>) {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  return {
    isError: result.isError === true,
    text: (result.content as Array<{ text: string }>)[0]!.text,
    structured: (result.structuredContent ?? {}) as Record<string, unknown>,
  };
}

async function ok(client: Client, name: string, args: Record<string, unknown>) {
  const answer = await call(client, name, args);
  expect(answer.isError, answer.text).toBe(false);
  return answer.structured;
}

beforeAll(async () => {
  stack = await startStack();
  const person = await signIn(stack, 'alice@example.com');
  const created = await createApiKey(stack, person.sessionCookie);
  keyId = created.key!.id;
  alice = await mcpClient(created.secret);
  const other = await signIn(stack, 'bob@example.com');
  bob = await mcpClient((await createApiKey(stack, other.sessionCookie)).secret);
}, 120_000);

afterAll(async () => {
  await alice?.close();
  await bob?.close();
  await stack?.stop();
});

describe('the change journal over MCP with an API key', () => {
  it('write, list_changes, undo, a refused undo after a later edit, force', async () => {
    const { spreadsheetId } = (await ok(alice, 'create_spreadsheet', {
      title: 'Journal',
      values: [
        ['Item', 'Qty'],
        ['Pens', 3],
      ],
    })) as { spreadsheetId: string };
    const read = async () =>
      (await ok(alice, 'read_range', { spreadsheetId, range: 'A1:B2', valueRenderOption: 'FORMULA' })).values;

    const write = await ok(alice, 'write_range', { spreadsheetId, range: 'B2', values: [[30]] });
    const changes = (await ok(alice, 'list_changes', { spreadsheetId })).changes as Array<
      Record<string, unknown>
    >;
    expect(changes[0]).toMatchObject({
      changeId: write.changeId,
      tool: 'write_range',
      cells: 1,
      undoable: true,
      credential: { kind: 'api_key', id: keyId, name: 'e2e sheets:read sheets:write' },
    });
    // By credential: the same entry; another credential's filter finds nothing.
    expect(((await ok(alice, 'list_changes', { credentialId: keyId })).changes as unknown[]).length).toBe(
      changes.length,
    );

    const undone = await ok(alice, 'undo_change', {});
    expect(undone.undoneChangeId).toBe(write.changeId);
    expect(await read()).toEqual([
      ['Item', 'Qty'],
      ['Pens', 3],
    ]);

    const second = await ok(alice, 'write_range', { spreadsheetId, range: 'A2:B2', values: [['Ink', 5]] });
    await ok(alice, 'write_range', { spreadsheetId, range: 'B2', values: [[6]] });
    const refused = await call(alice, 'undo_change', { changeId: second.changeId });
    expect(refused.isError).toBe(true);
    expect(refused.text).toMatch(/changed since change .*!B2/);
    expect(await read()).toEqual([
      ['Item', 'Qty'],
      ['Ink', 6],
    ]);

    // Bob can neither see nor undo it.
    const bobs = await call(bob, 'undo_change', { changeId: second.changeId, force: true });
    expect(bobs.isError).toBe(true);
    expect(bobs.text).toContain('not found');
    expect((await ok(bob, 'list_changes', {})).changes).toEqual([]);

    await ok(alice, 'undo_change', { changeId: second.changeId, force: true });
    expect(await read()).toEqual([
      ['Item', 'Qty'],
      ['Pens', 3],
    ]);
  });
});
