import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ToolDeps } from '../src/tools/kit/tool-deps.ts';
import { sheetgateTools } from '../src/tools/registry.ts';
import { measureGoogleRequestsPerTool } from './support/every-tool-call.ts';
import { type McpUnderTest, startMcpUnderTest } from './support/stack.ts';

// Every write tool takes `dryRun`, and a dry run makes no Google write (docs/design.md §11.2): a
// walk of the registry, then one ordinary call of each write tool (every-tool-call.ts) with
// `dryRun: true` on a fresh book, through the MCP SDK client against real mcp and auth processes
// and the Google emulator, whose request counters say which methods each call used.

/** Google's methods that change nothing; every other method the emulator counts is a write. */
const READING = /\.(get|list|export|batchGet|getByDataFilter|batchGetByDataFilter)$/;

const registry = sheetgateTools({} as ToolDeps);
const writeTools = registry.filter((tool) => !tool.annotations.readOnlyHint);

let stack: McpUnderTest;
let client: Client;
let userId: string;

async function attempts(): Promise<Record<string, number>> {
  const stats = (await (await fetch(`${stack.emulatorUrl}/__emulator/stats`)).json()) as {
    methods: Record<string, { attempts: number }>;
  };
  return Object.fromEntries(Object.entries(stats.methods).map(([name, { attempts }]) => [name, attempts]));
}

beforeAll(async () => {
  stack = await startMcpUnderTest();
  ({ userId } = await stack.signIn('alice@example.com'));
  client = await stack.connectClient(userId, 'dry-run-test');
}, 120_000);
afterAll(async () => {
  await client?.close();
  await stack?.stop();
});

describe('the registry', () => {
  it('has write tools, each of scope sheets:write and only those', () => {
    expect(writeTools.length).toBeGreaterThan(40);
    for (const tool of registry)
      expect(tool.scope, tool.name).toBe(tool.annotations.readOnlyHint ? 'sheets:read' : 'sheets:write');
  });

  it('gives every write tool a dryRun argument, false unless asked', () => {
    const without = writeTools
      .filter((tool) => !('dryRun' in tool.inputSchema.shape))
      .map((tool) => tool.name);
    expect(without).toEqual([]);
    for (const tool of writeTools) {
      const dryRun = (tool.inputSchema.shape as Record<string, { safeParse(value: unknown): unknown }>)
        .dryRun!;
      expect(dryRun.safeParse(undefined), tool.name).toEqual({ success: true, data: false });
    }
  });
});

describe('a dry run of every write tool', () => {
  it('answers dryRun: true and makes no Google write', async () => {
    const writes = new Set(writeTools.map((tool) => tool.name));
    const wrote: Record<string, Record<string, number>> = {};
    const failed: Record<string, string> = {};
    const answered: string[] = [];
    await measureGoogleRequestsPerTool(stack, userId, async (name, args) => {
      const call = async (callArgs: Record<string, unknown>) =>
        (await client.callTool({ name, arguments: callArgs })) as CallToolResult;
      if (!writes.has(name)) return call(args);
      if (name === 'undo_change') {
        // Something of this credential's to undo: a real change, made before the count starts.
        const cleared = (await client.callTool({
          name: 'clear_range',
          arguments: { spreadsheetId: args.spreadsheetId ?? (await lastBook()), range: 'Plan!B2' },
        })) as CallToolResult;
        expect(cleared.isError, JSON.stringify(cleared.content)).toBeFalsy();
      }
      const before = await attempts();
      const result = await call({ ...args, dryRun: true });
      const after = await attempts();
      const written = Object.fromEntries(
        Object.entries(after)
          .filter(([method]) => !READING.test(method))
          .map(([method, count]) => [method, count - (before[method] ?? 0)] as const)
          .filter(([, count]) => count > 0),
      );
      if (Object.keys(written).length > 0) wrote[name] = written;
      if (result.isError) failed[name] = JSON.stringify(result.content).slice(0, 300);
      else if ((result.structuredContent as { dryRun?: unknown } | undefined)?.dryRun === true)
        answered.push(name);
      // The measuring loop stops at an error; the failures are asserted below, all at once.
      return { ...result, isError: false };
    });
    expect(wrote).toEqual({});
    expect(failed).toEqual({});
    expect(answered.sort()).toEqual([...writes].sort());
  }, 180_000);
});

/** undo_change's call names no book: the newest one the person has (the one just seeded). */
async function lastBook(): Promise<string> {
  const result = (await client.callTool({
    name: 'list_spreadsheets',
    arguments: { pageSize: 1 },
  })) as CallToolResult;
  return (result.structuredContent as { spreadsheets: Array<{ spreadsheetId: string }> }).spreadsheets[0]!
    .spreadsheetId;
}
