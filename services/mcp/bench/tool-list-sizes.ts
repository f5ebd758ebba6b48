import { TOOLSET_NAMES } from '@sheetgate/proto';
import { createLogger } from '@sheetgate/service-runtime';
import type { AuthInfo } from '../src/auth/auth-info.ts';
import { serializeReply } from '../src/protocol/json-rpc.ts';
import { createMcpServer } from '../src/protocol/mcp-server.ts';
import { createRequestStateCodec } from '../src/protocol/request-state.ts';
import type { ToolDeps } from '../src/tools/kit/tool-deps.ts';
import { sheetgateTools } from '../src/tools/registry.ts';

/**
 * What a conversation pays for `tools/list` (docs/design.md §11, "Toolsets"): the legacy reply's
 * bytes for each toolset alone and for all of them, from the registry in this process (no
 * clients are called; nothing is started).
 */
export async function toolListSizes(): Promise<Array<{ sets: string; tools: number; bytes: number }>> {
  const server = createMcpServer({
    tools: sheetgateTools({} as ToolDeps),
    logger: createLogger({ service: 'bench', level: 'silent' }),
    baseUrl: 'https://sheetgate.example',
    states: createRequestStateCodec('bench-'.repeat(6)),
  });
  const measure = async (toolsets: readonly string[] | undefined) => {
    const auth: AuthInfo = {
      userId: 'bench',
      scopes: new Set(['sheets:read', 'sheets:write']),
      credential: 'api_key',
      ...(toolsets ? { toolsets } : {}),
    };
    const { reply } = await server.handle(
      { jsonrpc: '2.0', id: 1, method: 'tools/list' },
      {
        era: 'legacy',
        version: '2025-11-25',
        auth,
        signal: new AbortController().signal,
        notify() {},
      },
    );
    const tools = (reply as { result: { tools: unknown[] } }).result.tools.length;
    return { sets: toolsets?.join(' ') ?? 'all', tools, bytes: Buffer.byteLength(serializeReply(reply)) };
  };
  const sizes = [];
  for (const name of TOOLSET_NAMES) sizes.push(await measure([name]));
  sizes.push(await measure(['core-read', 'core-write']));
  sizes.push(await measure(undefined));
  return sizes;
}
