import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { oneCallOfEachTool } from './support/every-tool-call.ts';
import { type McpUnderTest, startMcpUnderTest } from './support/stack.ts';

// Every tool's input schema refuses arguments it does not take, at every depth, with an error that
// names them and the ones it takes (docs/design.md §11.2): a plain zod object would drop them, and
// `set_notes` with a `dryRun` it did not have cleared the note it was only asked about. Bad input
// of every other kind (missing, malformed, oversized) is refused too, bounded, and loses nothing.
// Through the MCP SDK client against real mcp and auth processes and the Google emulator.

let stack: McpUnderTest;
let client: Client;
let spreadsheetId: string;

async function googleCalls(): Promise<number> {
  const stats = (await (await fetch(`${stack.emulatorUrl}/__emulator/stats`)).json()) as {
    allMethods: { attempts: number };
  };
  return stats.allMethods.attempts;
}

async function call(name: string, args: Record<string, unknown>) {
  const result = await client.callTool({ name, arguments: args });
  return {
    isError: result.isError === true,
    text: (result.content as Array<{ text: string }>)[0]!.text,
    structured: result.structuredContent as Record<string, unknown> | undefined,
  };
}

async function noteOfA1(): Promise<string | undefined> {
  const details = await call('read_cell_details', { spreadsheetId, range: 'Plan!A1', fields: ['notes'] });
  expect(details.isError, details.text).toBe(false);
  return (details.structured!.cells as Array<{ note?: string }>)[0]?.note;
}

beforeAll(async () => {
  stack = await startMcpUnderTest();
  const email = 'alice@example.com';
  const { userId } = await stack.signIn(email);
  [spreadsheetId] = (await stack.seed(email, [
    { name: 'Plan', sheets: [{ title: 'Plan', values: [['Item', 'Amount']] }] },
  ])) as [string];
  client = await stack.connectClient(userId, 'strict-arguments-test');
  const set = await call('set_notes', { spreadsheetId, notes: [{ range: 'Plan!A1', note: 'keep me' }] });
  expect(set.isError, set.text).toBe(false);
});
afterAll(async () => {
  await client?.close();
  await stack?.stop();
});

describe('unknown arguments', () => {
  it('tools/list says every object of every input schema takes no other keys', async () => {
    const { tools } = await client.listTools();
    expect(tools.length).toBeGreaterThan(0);
    const open: string[] = [];
    const walk = (tool: string, node: unknown, path: string) => {
      if (Array.isArray(node)) {
        for (const [index, each] of node.entries()) walk(tool, each, `${path}[${index}]`);
        return;
      }
      if (!node || typeof node !== 'object') return;
      const schema = node as Record<string, unknown>;
      // Every object must refuse other keys (or give them a schema: a record), but batch_update's
      // Google request bodies: declared open, their fields are Google's to check.
      const extra = schema.additionalProperties;
      if (schema.type === 'object' && (extra === undefined || extra === true)) open.push(`${tool} ${path}`);
      for (const [key, child] of Object.entries(schema)) walk(tool, child, `${path}.${key}`);
    };
    for (const tool of tools) {
      expect(tool.inputSchema.additionalProperties, tool.name).toBe(false);
      walk(tool.name, tool.inputSchema, '');
    }
    expect(open).toEqual(['batch_update .properties.requests.items.additionalProperties']);
  });

  it('every tool refuses an unknown argument, naming it and the ones it takes, before asking Google anything', async () => {
    const { tools } = await client.listTools();
    const calls = new Map(oneCallOfEachTool({ spreadsheetId, planId: 0, notesId: 1 }));
    expect([...calls.keys()].sort()).toEqual(tools.map((tool) => tool.name).sort());
    const before = await googleCalls();
    for (const tool of tools) {
      const refused = await call(tool.name, { ...calls.get(tool.name), dryrun: true });
      expect(refused.isError, tool.name).toBe(true);
      const takes = Object.keys(tool.inputSchema.properties ?? {});
      // Nothing else: the ordinary call is valid, strict schemas and all.
      expect(refused.text).toBe(
        `invalid arguments: Unknown argument "dryrun" for ${tool.name}; it takes: ${takes.join(', ')}.`,
      );
    }
    expect(await googleCalls()).toBe(before);
  });

  it('set_notes with a misspelt dryRun is refused and the note is still there', async () => {
    const refused = await call('set_notes', {
      spreadsheetId,
      notes: [{ range: 'Plan!A1', note: null }],
      dryrun: true,
    });
    expect(refused).toMatchObject({ isError: true });
    expect(refused.text).toBe(
      'invalid arguments: Unknown argument "dryrun" for set_notes; it takes: spreadsheetId, notes, dryRun.',
    );
    expect(await noteOfA1()).toBe('keep me');
  });

  it('names an unknown key inside a nested object with the keys that object takes', async () => {
    const refused = await call('set_notes', {
      spreadsheetId,
      notes: [{ range: 'Plan!A1', note: null, colour: 'red' }],
    });
    expect(refused.isError).toBe(true);
    expect(refused.text).toContain('Unknown key "colour" in notes[0]; it takes: range, note.');
    const filtered = await call('read_records', {
      spreadsheetId,
      range: 'Plan',
      filters: [{ column: 'Item', op: '=', value: 'x', negate: true }],
    });
    expect(filtered.isError).toBe(true);
    expect(filtered.text).toContain('Unknown key "negate" in filters[0]; it takes: column, op, value.');
    expect(await noteOfA1()).toBe('keep me');
  });

  it('keeps batch_update’s Google request bodies open: their fields are Google’s to check', async () => {
    const dry = await call('batch_update', {
      spreadsheetId,
      requests: [{ findReplace: { find: 'Item', replacement: 'Thing', allSheets: true, matchCase: true } }],
      dryRun: true,
    });
    expect(dry.isError, dry.text).toBe(false);
  });

  it('answers thousands of long unknown keys with a bounded error', async () => {
    // Well within the endpoint's body limit.
    const junk = Object.fromEntries(
      Array.from({ length: 500 }, (_, index) => [`${index}${'k'.repeat(1_000)}`, 1]),
    );
    const refused = await call('read_range', { spreadsheetId, range: 'Plan', ...junk });
    expect(refused.isError).toBe(true);
    expect(refused.text).toContain('and 490 more for read_range; it takes: spreadsheetId, range,');
    expect(refused.text.length).toBeLessThan(3_000);
  });
});

describe('malformed, missing and oversized arguments', () => {
  it('refuses each with the argument named, and the note is still there', async () => {
    const cases: Array<[args: Record<string, unknown>, says: string]> = [
      [{ spreadsheetId }, 'notes'],
      [{ spreadsheetId, notes: [] }, 'notes'],
      [{ spreadsheetId, notes: 'Plan!A1' }, 'notes'],
      [{ spreadsheetId, notes: [{ range: 'Plan!A1' }] }, 'notes[0].note'],
      [{ spreadsheetId, notes: [{ range: 'Plan!A1', note: 'x'.repeat(50_001) }] }, 'notes[0].note'],
      [{ spreadsheetId, notes: [{ range: '', note: null }] }, 'notes[0].range'],
      [
        { spreadsheetId, notes: Array.from({ length: 501 }, () => ({ range: 'Plan!A1', note: null })) },
        'notes',
      ],
      [{ spreadsheetId, notes: [{ range: 'Plan!A1', note: null }], dryRun: 'yes' }, 'dryRun'],
      [{ spreadsheetId: 'short', notes: [{ range: 'Plan!A1', note: null }] }, 'spreadsheetId'],
    ];
    const before = await googleCalls();
    for (const [args, says] of cases) {
      const refused = await call('set_notes', args);
      expect(refused.isError, JSON.stringify(args).slice(0, 200)).toBe(true);
      expect(refused.text).toMatch(/^invalid arguments: /);
      expect(refused.text).toContain(`at ${says}`);
      expect(refused.text.length).toBeLessThan(3_000);
    }
    expect(await googleCalls()).toBe(before);
    expect(await noteOfA1()).toBe('keep me');
  });

  it('lists the first problems of a call with thousands of bad cells, and counts the rest', async () => {
    const refused = await call('write_range', {
      spreadsheetId,
      range: 'Plan!A1',
      values: Array.from({ length: 5_000 }, () => [{ formula: '=1' }]),
    });
    expect(refused.isError).toBe(true);
    expect(refused.text).toMatch(/\(and 4980 more problems\)$/);
    expect(refused.text.length).toBeLessThan(10_000);
    const values = await call('read_range', { spreadsheetId, range: 'Plan!A1:B1' });
    expect(values.structured!.values).toEqual([['Item', 'Amount']]);
  });
});
