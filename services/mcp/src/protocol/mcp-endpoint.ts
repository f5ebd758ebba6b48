import { HttpError, jsonNestsDeeperThan, MAX_JSON_DEPTH, readBodyUpTo } from '@sheetgate/service-runtime';
import type { Context, Middleware } from 'koa';
import type { AuthInfo } from '../auth/auth-info.ts';
import { requireScope } from '../auth/authenticate-request.ts';
import {
  classifyMessage,
  type IncomingMessage,
  JsonRpcErrorCode,
  type JsonRpcReply,
  type JsonRpcRequest,
  parseError,
  rpcError,
} from './json-rpc.ts';
import type { McpServerHandle } from './mcp-server.ts';
import { ReplyChannel } from './reply-channel.ts';
import { type MirroredHeaders, resolveRequestEra } from './request-era.ts';

export const MCP_PATH = '/api/mcp';
const BODY_LIMIT = 1024 * 1024;
const BATCH_LIMIT = 50;
/** `application/json`, with parameters or not (what `ctx.is` accepts, without parsing per request). */
const JSON_CONTENT_TYPE = /^application\/json\s*(;|$)/i;

export interface McpEndpointOptions {
  mcp: McpServerHandle;
  publicOrigin: string;
  resourceMetadataUrl: string;
  authenticate: (ctx: Context) => Promise<AuthInfo>;
}

/**
 * POST /api/mcp — MCP Streamable HTTP, stateless, in both eras (docs/design.md §15). Order
 * matters: cheap header checks, then authentication (a 401 costs no body parsing), then the body,
 * then the era and its header rules, then scope checks, then the method handlers.
 */
export function mcpEndpoint(options: McpEndpointOptions): Middleware {
  const { mcp, resourceMetadataUrl } = options;
  const endpointUrl = `${options.publicOrigin}${MCP_PATH}`;
  return async (ctx, next) => {
    if (ctx.path !== MCP_PATH) {
      if (!ctx.path.startsWith(`${MCP_PATH}/`)) return next();
      // Near misses reaching this service directly (publicly, web answers them the same way).
      throw new HttpError(404, 'not_found', `no MCP endpoint here; it is ${endpointUrl}`);
    }
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
      return answer(ctx, 400, parseError(`the body is nested deeper than ${MAX_JSON_DEPTH} levels`));
    let payload: unknown;
    try {
      payload = JSON.parse(body);
    } catch {
      return answer(ctx, 400, parseError());
    }
    const headers: MirroredHeaders = {
      protocolVersion: ctx.get('mcp-protocol-version') || undefined,
      method: ctx.get('mcp-method') || undefined,
      name: ctx.get('mcp-name') || undefined,
    };
    if (Array.isArray(payload)) return serveBatch(ctx, payload, headers, auth, clientGone(ctx));

    const message = classifyMessage(payload);
    // Valid JSON that is not a JSON-RPC message is the client's fault: HTTP 400 with the error.
    if (message.kind === 'invalid') return answer(ctx, 400, message.reply);
    if (message.kind === 'response') return accepted(ctx);
    const incoming = message.kind === 'request' ? message.request : message.notification;
    const era = resolveRequestEra(headers, incoming);
    if (!era.ok) return answer(ctx, era.status, era.reply);
    if (message.kind === 'notification') {
      if (incoming.method === 'notifications/cancelled') mcp.cancel(auth, incoming.params?.requestId);
      return accepted(ctx);
    }
    const request = message.request;
    checkToolScope(request, auth);
    const channel = new ReplyChannel(ctx, acceptsEventStream(accept));
    const { reply, httpStatus } = await mcp.handle(request, {
      era: era.era,
      version: era.version,
      auth,
      // Only a tool call does work that a departed client should stop.
      signal: request.method === 'tools/call' ? clientGone(ctx) : NEVER,
      ...(era.clientCapabilities ? { clientCapabilities: era.clientCapabilities } : {}),
      notify: (notification) => channel.notify(notification),
    });
    channel.finish(httpStatus, reply);
  };

  /** JSON-RPC batches: MCP 2025-03-26 only, answered together as JSON (no streaming). */
  async function serveBatch(
    ctx: Context,
    payload: unknown[],
    headers: MirroredHeaders,
    auth: AuthInfo,
    signal: AbortSignal,
  ) {
    const version = headers.protocolVersion ?? '2025-03-26';
    if (version !== '2025-03-26') {
      return answer(
        ctx,
        400,
        rpcError(null, JsonRpcErrorCode.InvalidRequest, `JSON-RPC batches are not part of MCP ${version}`),
      );
    }
    if (payload.length === 0 || payload.length > BATCH_LIMIT) {
      return answer(
        ctx,
        400,
        rpcError(null, JsonRpcErrorCode.InvalidRequest, `a batch holds 1 to ${BATCH_LIMIT} messages`),
      );
    }
    const classified: IncomingMessage[] = payload.map(classifyMessage);
    // Scope checks come first, for the whole body: a 403 must not follow a half-run batch.
    for (const message of classified) if (message.kind === 'request') checkToolScope(message.request, auth);
    const replies: JsonRpcReply[] = await Promise.all(
      classified.flatMap((message) => {
        if (message.kind === 'invalid') return [Promise.resolve(message.reply)];
        if (message.kind === 'notification' && message.notification.method === 'notifications/cancelled')
          mcp.cancel(auth, message.notification.params?.requestId);
        if (message.kind !== 'request') return [];
        return [
          mcp
            .handle(message.request, { era: 'legacy', version, auth, signal, notify: () => {} })
            .then((outcome) => outcome.reply),
        ];
      }),
    );
    if (replies.length === 0) return accepted(ctx);
    return answer(ctx, 200, replies);
  }

  function checkToolScope(request: JsonRpcRequest, auth: AuthInfo) {
    if (request.method !== 'tools/call') return;
    const tool = mcp.tools.get(String(request.params?.name));
    if (tool) requireScope(auth, tool.scope, resourceMetadataUrl);
  }
}

const NEVER = new AbortController().signal;

/** Aborted when the client closes the connection before the answer is complete. */
function clientGone(ctx: Context): AbortSignal {
  const abort = new AbortController();
  ctx.res.once('close', () => {
    if (!ctx.res.writableFinished) abort.abort();
  });
  return abort.signal;
}

function answer(ctx: Context, status: number, reply: JsonRpcReply | JsonRpcReply[]) {
  new ReplyChannel(ctx, false).finish(status, reply);
}

/** Notifications and responses only: accepted, no body (Streamable HTTP). */
function accepted(ctx: Context) {
  // Koa would write the status text as a body unless the null body is explicit.
  ctx.body = null;
  ctx.status = 202;
}

function acceptsEventStream(accept: string): boolean {
  return accept.includes('text/event-stream');
}

async function readBody(ctx: Context): Promise<string> {
  const body = await readBodyUpTo(ctx.req, BODY_LIMIT);
  if (!body) {
    ctx.set('connection', 'close');
    throw new HttpError(413, 'payload_too_large', 'the body is over 1 MiB');
  }
  return body.toString('utf8');
}
