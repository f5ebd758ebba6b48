export type JsonRpcId = string | number;
export type JsonRpcError = { code: number; message: string; data?: unknown };
export type JsonRpcReply = { jsonrpc: '2.0'; id: JsonRpcId } & (
  | { result: unknown }
  | { error: JsonRpcError }
);
export interface JsonRpcRequest {
  jsonrpc: '2.0';
  id: JsonRpcId;
  method: string;
  params?: Record<string, unknown>;
}

/**
 * JSON-RPC 2.0 error codes (§5.1) and those MCP 2026-07-28 defines in its reserved range
 * (-32020 to -32099); Sheetgate allocates none of its own there.
 */
export const JsonRpcErrorCode = {
  /** Invalid JSON was received by the server. */
  ParseError: -32700,
  /** The JSON sent is not a valid Request object. */
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  /** MCP 2026-07-28: HTTP headers missing, malformed, or not matching the body. */
  HeaderMismatch: -32020,
  /** MCP 2026-07-28: the request needs a client capability the client did not declare. */
  MissingRequiredClientCapability: -32021,
  /** MCP 2026-07-28: the requested protocol version is not served here. */
  UnsupportedProtocolVersion: -32022,
} as const;

export function rpcError(id: JsonRpcId | null, code: number, message: string, data?: unknown): JsonRpcReply {
  return {
    jsonrpc: '2.0',
    id: id as JsonRpcId,
    error: data === undefined ? { code, message } : { code, message, data },
  };
}

export interface JsonRpcNotification {
  jsonrpc: '2.0';
  method: string;
  params?: Record<string, unknown>;
}

export type IncomingMessage =
  | { kind: 'request'; request: JsonRpcRequest }
  | { kind: 'notification'; notification: JsonRpcNotification }
  | { kind: 'response' }
  | { kind: 'invalid'; reply: JsonRpcReply };

const REQUEST_KEYS = new Set(['jsonrpc', 'id', 'method', 'params']);

/**
 * Sorts one incoming message: a request, a notification, a response (ignored: this server asks
 * clients nothing over JSON-RPC), or something that is not a JSON-RPC 2.0 message (-32600).
 */
export function classifyMessage(message: unknown): IncomingMessage {
  if (!message || typeof message !== 'object' || Array.isArray(message)) {
    return { kind: 'invalid', reply: invalidRequest(null, 'a JSON-RPC message must be an object') };
  }
  const record = message as Record<string, unknown>;
  const id = record.id;
  const validId = typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id));
  if (record.jsonrpc !== '2.0')
    return { kind: 'invalid', reply: invalidRequest(validId ? id : null, 'jsonrpc must be "2.0"') };
  if (!('method' in record)) {
    // A response from the client: this server never asks the client anything, so it is ignored.
    if ('result' in record || 'error' in record) return { kind: 'response' };
    return { kind: 'invalid', reply: invalidRequest(validId ? id : null, 'missing method') };
  }
  if (typeof record.method !== 'string' || record.method.length === 0 || record.method.length > 200) {
    return {
      kind: 'invalid',
      reply: invalidRequest(validId ? id : null, 'method must be a non-empty string'),
    };
  }
  for (const key of Object.keys(record)) {
    if (!REQUEST_KEYS.has(key))
      return { kind: 'invalid', reply: invalidRequest(validId ? id : null, `unexpected member "${key}"`) };
  }
  if (
    'params' in record &&
    (typeof record.params !== 'object' || record.params === null || Array.isArray(record.params))
  ) {
    return { kind: 'invalid', reply: invalidRequest(validId ? id : null, 'params must be an object') };
  }
  if (!('id' in record))
    return { kind: 'notification', notification: record as unknown as JsonRpcNotification };
  if (!validId) return { kind: 'invalid', reply: invalidRequest(null, 'id must be a string or a number') };
  return { kind: 'request', request: record as unknown as JsonRpcRequest };
}

export function invalidRequest(id: JsonRpcId | null, message: string): JsonRpcReply {
  return rpcError(id, JsonRpcErrorCode.InvalidRequest, message);
}

export function parseError(reason = 'the body is not valid JSON'): JsonRpcReply {
  return rpcError(null, JsonRpcErrorCode.ParseError, `Parse error: ${reason}`);
}

// Serialised forms of results that never change (tools/list): serialising the whole list for
// every request was a large share of the service's CPU under load (docs/benchmarks.md). Keyed by object identity; the objects are frozen.
const constantResultTails = new WeakMap<object, Buffer>();

/** Registers a frozen result object whose serialisation can be reused for every reply. */
export function markConstantResult(result: object): void {
  constantResultTails.set(Object.freeze(result), Buffer.from(`,"result":${JSON.stringify(result)}}`));
}

// Whole replies carrying a constant result, by request id. Clients number their requests from 0
// or 1 and list tools early, so a handful of ids cover nearly every tools/list; each hit saves
// copying the long tail into a new buffer. Only those small ids are kept: ids are client-chosen,
// and a first-come table would let one client's odd ids take every slot for good.
const constantReplies: Array<{ result: object; bytes: Buffer } | undefined> = [];
const CACHED_IDS = 32;

/** A reply's JSON bytes, reusing the serialised result when it is a constant one. */
export function serializeReply(reply: JsonRpcReply): string | Buffer {
  const result = 'result' in reply ? reply.result : undefined;
  const tail = result && typeof result === 'object' ? constantResultTails.get(result) : undefined;
  if (!tail) return JSON.stringify(reply);
  const slot = Number.isInteger(reply.id) && (reply.id as number) >= 0 && (reply.id as number) < CACHED_IDS;
  const known = slot ? constantReplies[reply.id as number] : undefined;
  if (known && known.result === result) return known.bytes;
  const bytes = Buffer.concat([Buffer.from(`{"jsonrpc":"2.0","id":${JSON.stringify(reply.id)}`), tail]);
  if (slot) constantReplies[reply.id as number] = { result: result!, bytes };
  return bytes;
}
