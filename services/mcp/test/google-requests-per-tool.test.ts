import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registeredTools } from '../src/tools/registry.ts';
import {
  measureGoogleRequestsPerTool,
  oneCallOfEachTool,
  PINNED_GOOGLE_REQUESTS,
  type RequestsPerTool,
} from './support/every-tool-call.ts';
import { type McpUnderTest, startMcpUnderTest } from './support/stack.ts';

// The Google requests each tool makes for one ordinary call (issue 22, "frugal"): counted by the
// Google emulator per API method, pinned beside each tool's call (support/every-tool-call.ts) so
// that a tool that starts asking more shows as a failure; and the MCP service's own count per tool
// and method agrees.

let stack: McpUnderTest;
let client: Client;
let userId: string;

beforeAll(async () => {
  stack = await startMcpUnderTest();
  ({ userId } = await stack.signIn('alice@example.com'));
  client = await stack.connectClient(userId, 'quota counter');
}, 120_000);
afterAll(async () => {
  await client?.close();
  await stack?.stop();
});

describe('Google requests per tool call', () => {
  let measured: RequestsPerTool = {};

  it('pins a row for every registered tool, and none for a tool that is not', () => {
    expect(Object.keys(PINNED_GOOGLE_REQUESTS).sort()).toEqual(
      registeredTools()
        .map((tool) => tool.name)
        .sort(),
    );
  });

  it('every registered tool has a call here', async () => {
    const { tools } = await client.listTools();
    const called = oneCallOfEachTool({ spreadsheetId: 'x', planId: 0, notesId: 1 }).map(([tool]) => tool);
    expect([...called].sort()).toEqual(tools.map((tool) => tool.name).sort());
  });

  it('one ordinary call of each tool makes exactly the pinned Google requests', async () => {
    measured = await measureGoogleRequestsPerTool(
      stack,
      userId,
      async (name, args) => (await client.callTool({ name, arguments: args })) as CallToolResult,
    );
    expect(measured).toEqual(PINNED_GOOGLE_REQUESTS);
  }, 120_000);

  it("the MCP service's own count per tool and method agrees with the emulator's", async () => {
    const text = await (await fetch(stack.mcpMetricsUrl)).text();
    const counted: Record<string, Record<string, number>> = {};
    for (const line of text.split('\n')) {
      const match = /^sheetgate_mcp_tool_google_requests_total\{(.*)\} (\d+)$/.exec(line);
      if (!match) continue;
      const labels = Object.fromEntries([...match[1]!.matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
      counted[labels.tool!] = { ...counted[labels.tool!], [labels.method!]: Number(match[2]) };
    }
    // A tool that sent Google nothing (list_changes) has no series.
    const sending = Object.fromEntries(
      Object.entries(measured).filter(([, methods]) => Object.keys(methods).length > 0),
    );
    expect(counted).toEqual(sending);
  });
});
