import { HttpError, jsonNestsDeeperThan, MAX_JSON_DEPTH, readBodyUpTo } from '@sheetgate/service-runtime';
import type { Context, Middleware } from 'koa';
import type { AuthInfo } from '../auth/auth-info.ts';
import { requireScope } from '../auth/authenticate-request.ts';
import { classifyMessage, parseError, serializeReply } from './json-rpc.ts';
import type { McpServerHandle } from './mcp-server.ts';
import { SUPPORTED_PROTOCOL_VERSIONS } from './mcp-server.ts';
import type { JsonRpcReply } from './multiplexing-transport.ts';

const BODY_LIMIT = 1024 * 1024;
/** `application/json`, with parameters or not (what `ctx.is` accepts, without parsing per request). */
const JSON_CONTENT_TYPE = /^application\/json\s*(;|$)/i;
/** What a client that sends no MCP-Protocol-Version header speaks (MCP 2025-06-18, transports). */
const DEFAULT_PROTOCOL_VERSION = '2025-03-26';

export interface McpEndpointOptions {
  mcp: McpServerHandle;
  publicOrigin: string;
  resourceMetadataUrl: string;
  authenticate: (ctx: Context) => Promise<AuthInfo>;
}

/**
 * POST /api/mcp — MCP Streamable HTTP, stateless, JSON responses. Order matters: cheap header
 * checks, then authentication (a 401 costs no body parsing), then the body, then per-message
 * scope checks, then the shared SDK server.
 */
export function mcpEndpoint(options: McpEndpointOptions): Middleware {
  const { mcp, resourceMetadataUrl } = options;
  return async (ctx, next) => {
    if (ctx.path !== '/api/mcp') return next();
    if (ctx.method !== 'POST') {
      // Stateless: no SSE stream to open (GET) and no session to end (DELETE).
      throw new HttpError(405, 'method_not_allowed', 'this MCP endpoint is stateless: use POST', {
        allow: 'POST',
      });
    }
    const origin = ctx.get('origin');
    if (origin && origin !== options.publicOrigin) {
      // DNS-rebinding protection (MCP transports §security): only our own origin, or none.
      throw new HttpError(403, 'forbidden_origin', 'requests from this origin are not allowed');
    }
    const protocolVersion = ctx.get('mcp-protocol-version') || DEFAULT_PROTOCOL_VERSION;
    if (!(SUPPORTED_PROTOCOL_VERSIONS as readonly string[]).includes(protocolVersion)) {
      throw new HttpError(
        400,
        'unsupported_protocol_version',
        `supported MCP protocol versions: ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')}`,
      );
    }
    if (!JSON_CONTENT_TYPE.test(ctx.get('content-type')))
      throw new HttpError(415, 'unsupported_media_type', 'send Content-Type: application/json');
    const accept = ctx.get('accept');
    if (accept && !(accept.includes('application/json') || accept.includes('*/*'))) {
      throw new HttpError(406, 'not_acceptable', 'accept application/json (and text/event-stream)');
    }

    const auth = await options.authenticate(ctx);
    requireScope(auth, 'sheets:read', resourceMetadataUrl);

    const body = await readBody(ctx);
    // Checked on the text (a scan, no recursion) before anything walks the parsed value.
    if (jsonNestsDeeperThan(body))
      return reply(ctx, 400, parseError(`the body is nested deeper than ${MAX_JSON_DEPTH} levels`));
    let payload: unknown;
    try {
      payload = JSON.parse(body);
    } catch {
      return reply(ctx, 400, parseError());
    }
    const batch = Array.isArray(payload);
    if (batch && protocolVersion !== '2025-03-26') {
      throw new HttpError(400, 'invalid_request', `JSON-RPC batches are not part of MCP ${protocolVersion}`);
    }
    const messages = batch ? (payload as unknown[]) : [payload];
    if (messages.length === 0 || messages.length > 50)
      throw new HttpError(400, 'invalid_request', 'a batch holds 1 to 50 messages');

    const classified = messages.map(classifyMessage);
    // Scope checks come first, for the whole body: a 403 must not follow a half-run batch.
    for (const message of classified) {
      if (message.kind !== 'request' || message.request.method !== 'tools/call') continue;
      const tool = mcp.tools.get(String((message.request.params as { name?: unknown } | undefined)?.name));
      if (tool) requireScope(auth, tool.scope, resourceMetadataUrl);
    }

    const abort = new AbortController();
    ctx.res.once('close', () => {
      if (!ctx.res.writableFinished) abort.abort();
    });
    const sdkAuth = {
      token: '',
      clientId: auth.clientId ?? auth.apiKeyId ?? '',
      scopes: [...auth.scopes],
      extra: { sheetgate: auth },
    };
    const replies: JsonRpcReply[] = await Promise.all(
      classified.flatMap((message) => {
        if (message.kind === 'invalid') return [Promise.resolve(message.reply)];
        if (message.kind === 'request')
          return [mcp.transport.dispatch(message.request, sdkAuth, abort.signal)];
        return [];
      }),
    );
    if (replies.length === 0) {
      // Notifications and responses only: accepted, no body (Streamable HTTP). Koa would write the
      // status text as a body unless the null body is explicit.
      ctx.body = null;
      ctx.status = 202;
      return;
    }
    return reply(ctx, 200, batch ? replies : replies[0]!);
  };
}

function reply(ctx: Context, status: number, body: JsonRpcReply | JsonRpcReply[]) {
  ctx.status = status;
  ctx.type = 'application/json';
  ctx.body = Array.isArray(body) ? JSON.stringify(body) : serializeReply(body);
}

async function readBody(ctx: Context): Promise<string> {
  const body = await readBodyUpTo(ctx.req, BODY_LIMIT);
  if (!body) {
    ctx.set('connection', 'close');
    throw new HttpError(413, 'payload_too_large', 'the body is over 1 MiB');
  }
  return body.toString('utf8');
}
