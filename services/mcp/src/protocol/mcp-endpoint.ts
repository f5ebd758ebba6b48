import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  HttpError,
  inSpan,
  jsonErrorAnswer,
  jsonNestsDeeperThan,
  type Logger,
  MAX_JSON_DEPTH,
  markSpanFailed,
  readBodyUpTo,
  remoteContext,
  tracingOn,
} from '@sheetgate/service-runtime';
import type { Middleware } from 'koa';
import { declaresUi, isUiSession, newUiSessionId } from '../apps/ui-extension.ts';
import type { AuthInfo } from '../auth/auth-info.ts';
import { requireScope } from '../auth/authenticate-request.ts';
import { DEFAULT_MAX_REQUEST_BYTES, requestBodyCeiling } from '../settings.ts';
import { type BodySketch, BodySketcher } from './body-sketch.ts';
import {
  classifyMessage,
  type IncomingMessage as IncomingRpcMessage,
  JsonRpcErrorCode,
  type JsonRpcReply,
  type JsonRpcRequest,
  parseError,
  rpcError,
} from './json-rpc.ts';
import type { McpServerHandle } from './mcp-server.ts';
import { ReplyChannel, writeJson } from './reply-channel.ts';
import { type MirroredHeaders, resolveRequestEra } from './request-era.ts';
import { callTooLargeText, mebibytes, requestTooLargeText } from './request-too-large.ts';

export const MCP_PATH = '/api/mcp';
const BATCH_LIMIT = 50;
/** `application/json`, with parameters or not (what `ctx.is` accepts, without parsing per request). */
const JSON_CONTENT_TYPE = /^application\/json\s*(;|$)/i;

export interface McpEndpointOptions {
  mcp: McpServerHandle;
  logger: Logger;
  publicOrigin: string;
  resourceMetadataUrl: string;
  authenticate: (req: IncomingMessage) => Promise<AuthInfo>;
  /** MCP_MAX_REQUEST_BYTES: the largest body taken; a larger one is answered as too large. */
  maxRequestBytes?: number;
}

/** Whether a request is a POST to the endpoint itself (any query string): `servePost`'s to answer. */
export function isMcpPost(req: IncomingMessage): boolean {
  if (req.method !== 'POST') return false;
  const url = req.url ?? '';
  return url === MCP_PATH || url.startsWith(`${MCP_PATH}?`);
}

/**
 * The endpoint's other answers, as Koa middleware: GET/DELETE (and any method but POST) 405, and
 * the near misses under `/api/mcp/` a JSON 404 naming the endpoint.
 */
export function mcpEndpointRefusals(publicOrigin: string): Middleware {
  const endpointUrl = `${publicOrigin}${MCP_PATH}`;
  return async (ctx, next) => {
    if (ctx.path === MCP_PATH) {
      // Stateless: no SSE stream to open (GET) and no session to end (DELETE).
      throw new HttpError(405, 'method_not_allowed', 'this MCP endpoint is stateless: use POST', {
        allow: 'POST',
      });
    }
    if (!ctx.path.startsWith(`${MCP_PATH}/`)) return next();
    // Near misses reaching this service directly (publicly, web answers them the same way).
    throw new HttpError(404, 'not_found', `no MCP endpoint here; it is ${endpointUrl}`);
  };
}

/**
 * POST /api/mcp — MCP Streamable HTTP, stateless, in both eras (docs/design.md §15), on Node's
 * own request and response: the service's hot path skips Koa (its context, middleware chain and
 * response logic cost a fifth of a `tools/list` under load), so this handler answers its own
 * errors through the same `jsonErrorAnswer` and writes the same request log line as
 * `requestLog`. Order matters: cheap header checks, then authentication (a 401 costs no body
 * parsing), then the body, then the era and its header rules, then whether each call may run
 * (its scope and toolset, judged for the whole body: `McpServerHandle.admit`), then the method
 * handlers.
 */
export function createMcpPostHandler(
  options: McpEndpointOptions,
): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  const { mcp, resourceMetadataUrl, logger } = options;
  const maxRequestBytes = options.maxRequestBytes ?? DEFAULT_MAX_REQUEST_BYTES;
  const ceiling = requestBodyCeiling(maxRequestBytes);

  return async function servePost(req, res) {
    const started = performance.now();
    let rpcMethod: string | undefined;
    try {
      rpcMethod = await serve(req, res, started);
    } catch (error) {
      // The client left mid-request: nobody to answer (the connection's reset is logged in app.ts).
      // The socket tells, not `req.destroyed`: a request whose body was read whole, or cut short
      // at the size limit, is destroyed too, and still gets its answer.
      if (req.socket.destroyed && !res.headersSent) return;
      const answer = jsonErrorAnswer(error, logger, { method: 'POST', path: MCP_PATH });
      // A stream already under way cannot carry an error answer: the client sees it cut short.
      if (res.headersSent) res.destroy();
      else writeJson(res, answer.status, JSON.stringify(answer.body), answer.headers);
    } finally {
      // A request answered from memory (tools/list, server/discover, ping) is logged at debug: its
      // line would cost a tenth of its time, and metrics count it. Tool calls and refusals at info.
      const level = res.statusCode < 400 && ANSWERED_FROM_MEMORY.has(rpcMethod) ? 'debug' : 'info';
      if (logger.isLevelEnabled(level)) {
        const ms = Math.round(performance.now() - started);
        logger[level](
          { method: 'POST', path: MCP_PATH, rpc: rpcMethod, status: res.statusCode, ms },
          'request',
        );
      }
    }
  };

  /** Answers one POST; returns the JSON-RPC method it answered, if it got that far. */
  async function serve(
    req: IncomingMessage,
    res: ServerResponse,
    started: number,
  ): Promise<string | undefined> {
    const headers = req.headers;
    const origin = headers.origin;
    if (origin && origin !== options.publicOrigin) {
      // DNS-rebinding protection (MCP transports §security): only our own origin, or none.
      throw new HttpError(403, 'forbidden_origin', 'requests from this origin are not allowed');
    }
    if (!JSON_CONTENT_TYPE.test(headers['content-type'] ?? ''))
      throw new HttpError(415, 'unsupported_media_type', 'send Content-Type: application/json');
    const accept = headers.accept ?? '';
    if (accept && !(accept.includes('application/json') || accept.includes('*/*'))) {
      throw new HttpError(406, 'not_acceptable', 'accept application/json (and text/event-stream)');
    }

    const auth = await options.authenticate(req);
    requireScope(auth, 'sheets:read', resourceMetadataUrl);

    const read = await readBody(req);
    if (typeof read !== 'string') return refuseTooLarge(res, read);
    const body = read;
    // Checked on the text (a scan, no recursion) before anything walks the parsed value.
    if (jsonNestsDeeperThan(body))
      return answer(res, 400, parseError(`the body is nested deeper than ${MAX_JSON_DEPTH} levels`));
    let payload: unknown;
    try {
      payload = JSON.parse(body);
    } catch {
      return answer(res, 400, parseError());
    }
    const mirrored: MirroredHeaders = {
      protocolVersion: headerValue(headers['mcp-protocol-version']),
      method: headerValue(headers['mcp-method']),
      name: headerValue(headers['mcp-name']),
    };
    const session = headerValue(headers['mcp-session-id']);
    if (Array.isArray(payload))
      return serveBatch(res, payload, mirrored, auth, clientGone(res), isUiSession(session));

    const message = classifyMessage(payload);
    // Valid JSON that is not a JSON-RPC message is the client's fault: HTTP 400 with the error.
    if (message.kind === 'invalid') return answer(res, 400, message.reply);
    if (message.kind === 'response') return accepted(res);
    const incoming = message.kind === 'request' ? message.request : message.notification;
    const era = resolveRequestEra(mirrored, incoming);
    if (!era.ok) return answer(res, era.status, era.reply, incoming.method);
    if (message.kind === 'notification') {
      if (incoming.method === 'notifications/cancelled') mcp.cancel(auth, incoming.params?.requestId);
      return accepted(res, incoming.method);
    }
    const request = message.request;
    // MCP Apps (docs/design.md §11.11): declared in this request (modern), in this initialize, or
    // by the session id a legacy client's initialize got for declaring it.
    const ui =
      era.era === 'modern'
        ? declaresUi(era.clientCapabilities)
        : request.method === 'initialize'
          ? declaresUi(request.params?.capabilities)
          : isUiSession(session);
    if (ui && era.era === 'legacy' && request.method === 'initialize')
      res.setHeader('mcp-session-id', newUiSessionId());
    // Whether its call may run, before anything runs (a 403 is thrown from here).
    const admission = mcp.admit(auth, [request], { ui });
    const channel = new ReplyChannel(res, acceptsEventStream(accept));
    const handle = () =>
      mcp.handle(
        request,
        {
          era: era.era,
          version: era.version,
          auth,
          // Only a tool call does work that a departed client should stop.
          signal: request.method === 'tools/call' ? clientGone(res) : NEVER,
          ...(era.clientCapabilities ? { clientCapabilities: era.clientCapabilities } : {}),
          ui,
          notify: (notification) => channel.notify(notification),
        },
        admission,
      );
    const { reply, httpStatus } = tracingOn()
      ? await inSpan(
          requestSpanName(request),
          {
            kind: 'server',
            parent: remoteContext(traceCarrier(request, headers)),
            startTime: performance.timeOrigin + started,
            attributes: { 'mcp.method.name': spanSafe(request.method), 'mcp.protocol.version': era.version },
          },
          async (span) => {
            const answer = await handle();
            span?.setAttribute('http.response.status_code', answer.httpStatus);
            const failure = replyFailure(answer.reply);
            if (failure) markSpanFailed(span, failure);
            return answer;
          },
        )
      : await handle();
    channel.finish(httpStatus, reply);
    return request.method;
  }

  /**
   * The body if within MCP_MAX_REQUEST_BYTES; else, up to the ceiling, what it says of itself
   * (read as it arrives, never kept); past the ceiling a 413 without reading it.
   */
  async function readBody(req: IncomingMessage): Promise<string | BodySketch> {
    const sketcher = new BodySketcher();
    const body = await readBodyUpTo(req, maxRequestBytes, ceiling, (chunk) => sketcher.write(chunk));
    if (body) return body.toString('utf8');
    if (req.complete && sketcher.sketch().bytes > maxRequestBytes) return sketcher.sketch();
    throw new HttpError(
      413,
      'payload_too_large',
      `the body is over ${mebibytes(ceiling)}; one request may carry ${mebibytes(maxRequestBytes)}`,
      { connection: 'close' },
    );
  }

  /**
   * A body past the limit that was read: a tool call is answered as a tool error the model reads,
   * saying how many of its rows fit in one call (MCP asks that a call's input errors be tool
   * results); any other request with an id a JSON-RPC error, HTTP 413; the rest a plain 413.
   */
  function refuseTooLarge(res: ServerResponse, sketch: BodySketch): string | undefined {
    const { id, method } = sketch;
    if (id === undefined)
      throw new HttpError(413, 'payload_too_large', requestTooLargeText(sketch.bytes, maxRequestBytes));
    if (method === 'tools/call') {
      const text = callTooLargeText(sketch, maxRequestBytes);
      return answer(
        res,
        200,
        { jsonrpc: '2.0', id, result: { isError: true, content: [{ type: 'text', text }] } },
        method,
      );
    }
    return answer(
      res,
      413,
      rpcError(id, JsonRpcErrorCode.InvalidRequest, requestTooLargeText(sketch.bytes, maxRequestBytes)),
      method,
    );
  }

  /** JSON-RPC batches: MCP 2025-03-26 only, answered together as JSON (no streaming). */
  async function serveBatch(
    res: ServerResponse,
    payload: unknown[],
    headers: MirroredHeaders,
    auth: AuthInfo,
    signal: AbortSignal,
    ui: boolean,
  ) {
    const version = headers.protocolVersion ?? '2025-03-26';
    if (version !== '2025-03-26') {
      return answer(
        res,
        400,
        rpcError(null, JsonRpcErrorCode.InvalidRequest, `JSON-RPC batches are not part of MCP ${version}`),
      );
    }
    if (payload.length === 0 || payload.length > BATCH_LIMIT) {
      return answer(
        res,
        400,
        rpcError(null, JsonRpcErrorCode.InvalidRequest, `a batch holds 1 to ${BATCH_LIMIT} messages`),
      );
    }
    const classified: IncomingRpcMessage[] = payload.map(classifyMessage);
    // Every call of the body is judged before any runs: a 403 must not follow a half-run batch.
    const admission = mcp.admit(
      auth,
      classified.flatMap((message) => (message.kind === 'request' ? [message.request] : [])),
      { ui },
    );
    const replies: JsonRpcReply[] = await Promise.all(
      classified.flatMap((message) => {
        if (message.kind === 'invalid') return [Promise.resolve(message.reply)];
        if (message.kind === 'notification' && message.notification.method === 'notifications/cancelled')
          mcp.cancel(auth, message.notification.params?.requestId);
        if (message.kind !== 'request') return [];
        return [
          mcp
            .handle(
              message.request,
              { era: 'legacy', version, auth, signal, ui, notify: () => {} },
              admission,
            )
            .then((outcome) => outcome.reply),
        ];
      }),
    );
    if (replies.length === 0) return accepted(res, 'batch');
    return answer(res, 200, replies, 'batch');
  }
}

const NEVER = new AbortController().signal;

/** Methods answered without work: a success among them is logged at debug. */
const ANSWERED_FROM_MEMORY = new Set<string | undefined>([
  'tools/list',
  'server/discover',
  'initialize',
  'ping',
  'notifications/initialized',
]);

/** A mirrored header's value, or undefined when absent or empty. */
function headerValue(value: string | string[] | undefined): string | undefined {
  const text = Array.isArray(value) ? value.join(', ') : value;
  return text || undefined;
}

/** Aborted when the client closes the connection before the answer is complete. */
function clientGone(res: ServerResponse): AbortSignal {
  const abort = new AbortController();
  res.once('close', () => {
    if (!res.writableFinished) abort.abort();
  });
  return abort.signal;
}

/** Answers with JSON; returns the JSON-RPC method it answered, for the request log. */
function answer(
  res: ServerResponse,
  status: number,
  reply: JsonRpcReply | JsonRpcReply[],
  rpcMethod?: string,
): string | undefined {
  new ReplyChannel(res, false).finish(status, reply);
  return rpcMethod;
}

/** Notifications and responses only: accepted, no body (Streamable HTTP). */
function accepted(res: ServerResponse, rpcMethod?: string): string | undefined {
  res.writeHead(202);
  res.end();
  return rpcMethod;
}

function acceptsEventStream(accept: string): boolean {
  return accept.includes('text/event-stream');
}

/** A client-sent name in a span only when it looks like a method or tool name (bounded, plain). */
function spanSafe(name: unknown): string {
  return typeof name === 'string' && /^[\w/.-]{1,64}$/.test(name) ? name : 'unknown';
}

/** `tools/call read_range`, `tools/list`: the MCP semantic conventions' span name. */
function requestSpanName(request: JsonRpcRequest): string {
  const method = spanSafe(request.method);
  return method === 'tools/call' ? `${method} ${spanSafe(request.params?.name)}` : method;
}

/**
 * Where the caller's trace context is: a 2026-07-28 request may carry it in `params._meta`
 * (`traceparent`, `tracestate`), which wins; else the HTTP headers.
 */
function traceCarrier(request: JsonRpcRequest, headers: IncomingMessage['headers']): Record<string, unknown> {
  const meta = request.params?._meta as Record<string, unknown> | undefined;
  return typeof meta?.traceparent === 'string' ? meta : headers;
}

/** Why a reply failed, in a few words without content: a JSON-RPC error code or a tool error. */
function replyFailure(reply: unknown): string | undefined {
  const answer = reply as { error?: { code?: unknown }; result?: { isError?: unknown } } | undefined;
  if (answer?.error) return `jsonrpc ${String(answer.error.code)}`;
  if (answer?.result?.isError === true) return 'tool_error';
  return undefined;
}
