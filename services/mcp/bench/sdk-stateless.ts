/**
 * Baseline: the MCP SDK's documented stateless pattern — a new McpServer and
 * StreamableHTTPServerTransport per request — behind bearer authentication (jose jwtVerify on
 * every request, as the SDK's requireBearerAuth does through its verifier), with the same 19
 * tool schemas registered per request.
 */
import http from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import type { ToolDeps } from '../src/tools/kit/tool-deps.ts';
import { sheetgateTools } from '../src/tools/registry.ts';

const issuer = process.env.BASE_URL!;
const jwks = createRemoteJWKSet(new URL(`${process.env.AUTH_INTERNAL_URL}/api/auth/jwks`));
// The tools are only listed here, never run, so their Google dependencies are never touched.
const tools = sheetgateTools({} as ToolDeps);

http
  .createServer(async (req, res) => {
    const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    try {
      if (!token) throw new Error('no token');
      await jwtVerify(token, jwks, { issuer, audience: `${issuer}/api/mcp`, typ: 'at+jwt' });
    } catch {
      res.writeHead(401).end();
      return;
    }
    const server = new McpServer({ name: 'baseline', version: '1' });
    for (const tool of tools) {
      server.registerTool(
        tool.name,
        { description: tool.description, inputSchema: tool.inputSchema.shape, annotations: tool.annotations },
        async () => ({ content: [] }),
      );
    }
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res);
  })
  .listen(Number(process.env.PORT), '127.0.0.1', () => process.stdout.write('ready\n'));
