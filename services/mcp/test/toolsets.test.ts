import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { TOOLSET_NAMES, type ToolsetName } from '@sheetgate/proto';
import { createLogger } from '@sheetgate/service-runtime';
import { readJson } from '@sheetgate/test-harness';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuthInfo } from '../src/auth/auth-info.ts';
import { serializeReply } from '../src/protocol/json-rpc.ts';
import { type CallContext, createMcpServer } from '../src/protocol/mcp-server.ts';
import { createRequestStateCodec } from '../src/protocol/request-state.ts';
import type { ToolDeps } from '../src/tools/kit/tool-deps.ts';
import { sheetgateTools } from '../src/tools/registry.ts';
import { toolsetIndex, toolsetKey } from '../src/tools/toolsets.ts';
import { type McpUnderTest, postMcp, startMcpUnderTest } from './support/stack.ts';

// Toolsets (docs/design.md §11): every registered tool belongs to one set, and tools/list and
// tools/call follow the credential's sets. tools/list runs in-process on a registry built with
// clients that are never called (listing touches no Google API); tools/call's refusals go through
// real credentials made by auth.

const tools = sheetgateTools({} as ToolDeps);
const BASE_URL = 'https://sheetgate.example';
const server = createMcpServer({
  tools,
  logger: createLogger({ level: 'silent', service: 'toolsets-test' }),
  baseUrl: BASE_URL,
  states: createRequestStateCodec('x'.repeat(32)),
});

function call(auth: Partial<AuthInfo>, era: CallContext['era'] = 'legacy'): CallContext {
  return {
    era,
    version: era === 'modern' ? '2026-07-28' : '2025-11-25',
    auth: {
      userId: 'user-1',
      scopes: new Set(['sheets:read', 'sheets:write']),
      credential: 'api_key',
      ...auth,
    },
    signal: new AbortController().signal,
    notify() {},
  };
}

async function listNames(auth: Partial<AuthInfo>): Promise<string[]> {
  const { reply } = await server.handle({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, call(auth));
  return ((reply as { result: { tools: Array<{ name: string }> } }).result.tools ?? []).map(
    (tool) => tool.name,
  );
}

const inSet = (...sets: ToolsetName[]) =>
  tools.filter((tool) => sets.includes(tool.toolset)).map((tool) => tool.name);

describe('the toolsets of the definitions', () => {
  it('gives every registered tool exactly one known set', () => {
    for (const tool of tools) expect(TOOLSET_NAMES, tool.name).toContain(tool.toolset);
  });

  it("defines each tool in its set's folder (src/tools/sets/<set>/)", () => {
    const setsDir = fileURLToPath(new URL('../src/tools/sets/', import.meta.url));
    const definedIn = new Map<string, string>();
    for (const set of readdirSync(setsDir))
      for (const file of readdirSync(`${setsDir}${set}`))
        for (const [, name] of readFileSync(`${setsDir}${set}/${file}`, 'utf8').matchAll(
          /^ {6}name: '([a-z_]+)',$/gm,
        ))
          definedIn.set(name!, set);
    for (const tool of tools) expect(definedIn.get(tool.name), tool.name).toBe(tool.toolset);
  });

  it('leaves no set empty', () => {
    const { toolsIn } = toolsetIndex(tools);
    for (const name of TOOLSET_NAMES) expect(toolsIn.get(name)?.length, name).toBeGreaterThan(0);
  });

  it('refuses to start with a tool that has no set, naming it', () => {
    const stray = { ...tools[0]!, name: 'stray_tool', toolset: 'nonsense' as ToolsetName };
    expect(() => toolsetIndex([...tools, stray])).toThrow(/stray_tool has no toolset/);
  });

  it('keys combinations by known names in TOOLSETS order', () => {
    expect(toolsetKey(['files', 'core-read', 'nonsense'])).toBe('core-read files');
    expect(toolsetKey(undefined)).toBe(TOOLSET_NAMES.join(' '));
    expect(toolsetKey([])).toBe('');
  });
});

describe('tools/list by toolset', () => {
  it('lists every tool for a credential without sets', async () => {
    expect(await listNames({})).toEqual(tools.map((tool) => tool.name));
  });

  it.each([
    [['core-read']],
    [['core-write']],
    [['structure']],
    [['files']],
    [['charts']],
    [['core-read', 'core-write']],
    [['files', 'core-read']],
  ] as ToolsetName[][][])('lists only the tools of %j, in registry order', async (sets) => {
    const names = await listNames({ toolsets: sets });
    expect(names).toEqual(inSet(...sets));
    expect(names.length).toBeGreaterThan(0);
    expect(names.length).toBeLessThan(tools.length);
  });

  it('lists nothing for sets it does not know', async () => {
    expect(await listNames({ toolsets: ['everything'] })).toEqual([]);
  });

  it('is private to the credential in the 2026-07-28 era', async () => {
    const { reply } = await server.handle(
      { jsonrpc: '2.0', id: 1, method: 'tools/list' },
      call({ toolsets: ['core-read'] }, 'modern'),
    );
    expect((reply as { result: object }).result).toMatchObject({ cacheScope: 'private', ttlMs: 3_600_000 });
  });

  it('builds and serialises each combination once', async () => {
    const first = await server.handle(
      { jsonrpc: '2.0', id: 7, method: 'tools/list' },
      call({ toolsets: ['structure', 'files'] }),
    );
    const before = server.listsBuilt;
    // Another credential with the same sets, named in another order: the same frozen result.
    const second = await server.handle(
      { jsonrpc: '2.0', id: 7, method: 'tools/list' },
      call({ toolsets: ['files', 'structure'] }),
    );
    expect(server.listsBuilt).toBe(before);
    const result = (reply: unknown) => (reply as { result: object }).result;
    expect(result(second.reply)).toBe(result(first.reply));
    expect(Object.isFrozen(result(first.reply))).toBe(true);
    // Registered as constant: serialised from the stored bytes, not stringified again.
    expect(Buffer.isBuffer(serializeReply(second.reply))).toBe(true);
    await server.handle(
      { jsonrpc: '2.0', id: 7, method: 'tools/list' },
      call({ toolsets: ['core-write', 'structure', 'files'] }),
    );
    expect(server.listsBuilt).toBe(before + 1);
  });
});

describe('tools/call outside the toolsets, through auth and mcp', () => {
  // Real auth, mcp and emulator processes: the key is made by auth with the sets chosen, and its
  // sets reach mcp's AuthInfo by the path every request takes (auth's answer, the edge).
  let stack: McpUnderTest;
  let person: { userId: string; sessionCookie: string };

  beforeAll(async () => {
    stack = await startMcpUnderTest();
    person = await stack.signIn('alice@example.com');
  }, 120_000);
  afterAll(() => stack?.stop());

  async function callTool(
    credential: Record<string, string>,
    name: string,
  ): Promise<{
    error?: { code: number; message: string };
    result?: { isError?: boolean; content: Array<{ text: string }> };
  }> {
    const response = await postMcp(
      stack.mcpUrl,
      { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name, arguments: {} } },
      { headers: { 'mcp-protocol-version': '2025-11-25', ...credential } },
    );
    expect(response.status).toBe(200);
    return readJson(response);
  }
  const withKey = async (toolsets: ToolsetName[]) => ({
    'x-api-key': (await stack.createApiKey(person.sessionCookie, { toolsets })).secret,
  });

  it('refuses an API key with -32602 naming the set and the dashboard', async () => {
    const { error } = await callTool(await withKey(['core-read']), 'add_sheet');
    expect(error?.code).toBe(-32602);
    expect(error?.message).toContain('"structure" (Structure and formatting)');
    expect(error?.message).toContain(`${stack.baseUrl}/dashboard`);
    expect(error?.message).toContain('create an API key with it');
  });

  it('refuses an access token naming the set and the consent screen', async () => {
    const token = await stack.sign({ sub: person.userId, toolsets: ['core-read'] });
    const { error } = await callTool({ authorization: `Bearer ${token}` }, 'write_range');
    expect(error?.code).toBe(-32602);
    expect(error?.message).toContain('"core-write" (Writing)');
    expect(error?.message).toContain(`disconnect the app at ${stack.baseUrl}/dashboard`);
    expect(error?.message).toContain('consent screen');
  });

  it('lets a tool of the sets through to its arguments', async () => {
    const reply = await callTool(await withKey(['structure']), 'add_sheet');
    // Missing arguments: refused by the tool's schema, past the toolset check.
    expect(reply.error).toBeUndefined();
    expect(reply.result?.isError).toBe(true);
    expect(reply.result?.content[0]?.text).toMatch(/invalid arguments/);
  });
});
