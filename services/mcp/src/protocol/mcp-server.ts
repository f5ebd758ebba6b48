import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  InitializeRequestSchema,
  ListToolsRequestSchema,
  type ListToolsResult,
} from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from '@sheetgate/service-runtime';
import { z } from 'zod';
import type { AuthInfo } from '../auth/auth-info.ts';
import { type ToolDefinition, ToolError } from '../tools/tool-definition.ts';
import { markConstantResult } from './json-rpc.ts';
import { MultiplexingTransport } from './multiplexing-transport.ts';
import { portableJsonSchema } from './portable-json-schema.ts';

/** Protocol versions this endpoint speaks, newest first (issue 5). */
export const SUPPORTED_PROTOCOL_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26'] as const;

const SERVER_INFO = { name: 'sheetgate', title: 'Sheetgate', version: '0.1.0' };
const INSTRUCTIONS =
  "Tools for reading and writing the signed-in person’s Google Sheets. Ranges use A1 notation with quoted tab names ('My tab'!A1:C9). Large reads are paged: follow the notice to fetch the rest.";

/**
 * The one SDK `Server` of the process, behind the multiplexing transport. Tool schemas are turned
 * into JSON Schema once, here, not per request (docs/design.md §14: ~30% of the SDK pattern's
 * time).
 * `initialize` is answered without storing the client's capabilities on the shared server.
 */
export async function createMcpServer(options: {
  tools: ToolDefinition[];
  logger: Logger;
  /** How long a request may run before it is answered with an error and its handler cancelled. */
  requestTimeoutMs?: number;
}) {
  const tools = new Map(options.tools.map((tool) => [tool.name, tool]));
  const listResult: ListToolsResult = {
    tools: options.tools.map((tool) => ({
      name: tool.name,
      title: tool.title,
      description: tool.description,
      inputSchema: portableJsonSchema(
        z.toJSONSchema(tool.inputSchema, { io: 'input' }),
      ) as ListToolsResult['tools'][number]['inputSchema'],
      outputSchema: portableJsonSchema(
        z.toJSONSchema(tool.outputSchema),
      ) as ListToolsResult['tools'][number]['outputSchema'],
      annotations: { title: tool.title, ...tool.annotations },
    })),
  };

  markConstantResult(listResult);

  const server = new Server(SERVER_INFO, {
    capabilities: { tools: { listChanged: false } },
    instructions: INSTRUCTIONS,
  });
  server.setRequestHandler(InitializeRequestSchema, async (request) => {
    const requested = request.params.protocolVersion;
    return {
      protocolVersion: (SUPPORTED_PROTOCOL_VERSIONS as readonly string[]).includes(requested)
        ? requested
        : SUPPORTED_PROTOCOL_VERSIONS[0],
      capabilities: { tools: { listChanged: false } },
      serverInfo: SERVER_INFO,
      instructions: INSTRUCTIONS,
    };
  });
  server.setRequestHandler(ListToolsRequestSchema, async () => listResult);
  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const tool = tools.get(request.params.name);
    if (!tool)
      return toolError(`unknown tool "${request.params.name}"; call tools/list for the available tools`);
    const auth = (extra.authInfo?.extra as { sheetgate?: AuthInfo } | undefined)?.sheetgate;
    if (!auth) return toolError('not authenticated');
    const parsed = tool.inputSchema.safeParse(request.params.arguments ?? {});
    if (!parsed.success) return toolError(`invalid arguments: ${z.prettifyError(parsed.error)}`);
    try {
      const output = await tool.run(parsed.data, { auth, signal: extra.signal, progress: () => {} });
      return { content: [{ type: 'text', text: output.text }], structuredContent: output.structuredContent };
    } catch (error) {
      if (error instanceof ToolError) return toolError(error.message);
      options.logger.error({ err: error, tool: tool.name }, 'tool failed');
      return toolError('the tool failed unexpectedly; try again');
    }
  });
  server.onerror = (error) => options.logger.warn({ err: error }, 'mcp protocol error');

  const transport = new MultiplexingTransport(
    options.requestTimeoutMs === undefined ? {} : { timeoutMs: options.requestTimeoutMs },
  );
  await server.connect(transport);
  return { server, transport, tools };
}

function toolError(text: string): CallToolResult {
  return { isError: true, content: [{ type: 'text', text }] };
}

export type McpServerHandle = Awaited<ReturnType<typeof createMcpServer>>;
