import { JsonRpcErrorCode, type JsonRpcId, type JsonRpcReply, rpcError } from './json-rpc.ts';
import {
  DEFAULT_LEGACY_VERSION,
  type Era,
  eraOf,
  META,
  SUPPORTED_PROTOCOL_VERSIONS,
} from './protocol-versions.ts';

/** The headers MCP's Streamable HTTP mirrors from the body (2026-07-28, request metadata). */
export interface MirroredHeaders {
  protocolVersion: string | undefined;
  method: string | undefined;
  name: string | undefined;
}

export type RequestEra =
  | { ok: true; era: Era; version: string; clientCapabilities?: Record<string, unknown> }
  | { ok: false; status: number; reply: JsonRpcReply };

const LOG_LEVELS = new Set(['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency']);
const BASE64_SENTINEL = /^=\?base64\?([A-Za-z0-9+/]*={0,2})\?=$/;

/**
 * Which era a message speaks, and whether its headers and `_meta` agree (MCP 2026-07-28,
 * versioning and Streamable HTTP §server validation). A version in the header or in `_meta` that
 * is not served here is -32022 whatever the method; a 2026-07-28 request must mirror its version,
 * method and tool name in headers that match the body (-32020), and declare its capabilities.
 * Without a modern version the request is legacy, as every client before 2026 sends it.
 */
export function resolveRequestEra(
  headers: MirroredHeaders,
  message: { id?: JsonRpcId; method: string; params?: Record<string, unknown> },
): RequestEra {
  const id = message.id ?? null;
  const meta = message.params?._meta;
  const metaRecord =
    meta && typeof meta === 'object' && !Array.isArray(meta) ? (meta as Record<string, unknown>) : {};
  const metaVersion = metaRecord[META.protocolVersion];
  const headerVersion = headers.protocolVersion;

  // The header is judged first; a supported header that _meta contradicts is a mismatch even
  // when the _meta version is not served (the conformance suite's precedence).
  if (headerVersion !== undefined && !SUPPORTED_PROTOCOL_VERSIONS.includes(headerVersion)) {
    return unsupported(id, headerVersion);
  }
  if (headerVersion !== undefined && metaVersion !== undefined && metaVersion !== headerVersion) {
    return mismatch(id, `MCP-Protocol-Version header ${headerVersion} does not match _meta protocolVersion`);
  }
  if (
    metaVersion !== undefined &&
    (typeof metaVersion !== 'string' || !SUPPORTED_PROTOCOL_VERSIONS.includes(metaVersion))
  ) {
    return unsupported(id, String(metaVersion));
  }
  const claimsModern =
    (headerVersion && eraOf(headerVersion) === 'modern') ||
    (metaVersion && eraOf(metaVersion as string) === 'modern');
  if (!claimsModern) return { ok: true, era: 'legacy', version: headerVersion ?? DEFAULT_LEGACY_VERSION };
  // Notifications carry no header requirements in 2026-07-28; they are accepted as they come.
  if (message.id === undefined)
    return { ok: true, era: 'modern', version: (headerVersion ?? metaVersion) as string };

  if (headerVersion === undefined) return mismatch(id, 'the MCP-Protocol-Version header is missing');
  if (metaVersion === undefined) {
    return reject(
      400,
      id,
      JsonRpcErrorCode.InvalidParams,
      `params._meta["${META.protocolVersion}"] is required`,
    );
  }
  if (metaVersion !== headerVersion) {
    return mismatch(
      id,
      `MCP-Protocol-Version header ${headerVersion} does not match _meta protocolVersion ${metaVersion}`,
    );
  }
  const capabilities = metaRecord[META.clientCapabilities];
  if (!capabilities || typeof capabilities !== 'object' || Array.isArray(capabilities)) {
    return reject(
      400,
      id,
      JsonRpcErrorCode.InvalidParams,
      `params._meta["${META.clientCapabilities}"] must be an object`,
    );
  }
  const logLevel = metaRecord[META.logLevel];
  if (logLevel !== undefined && !LOG_LEVELS.has(logLevel as string)) {
    return reject(
      400,
      id,
      JsonRpcErrorCode.InvalidParams,
      `params._meta["${META.logLevel}"] is not a log level`,
    );
  }
  if (headers.method === undefined) return mismatch(id, 'the Mcp-Method header is missing');
  if (headers.method !== message.method) {
    return mismatch(id, `the Mcp-Method header does not match the body's method`);
  }
  const nameSource = message.method === 'tools/call' ? message.params?.name : undefined;
  if (nameSource !== undefined) {
    if (headers.name === undefined) return mismatch(id, 'the Mcp-Name header is missing');
    const name = decodeHeaderValue(headers.name);
    if (name === undefined) return mismatch(id, 'the Mcp-Name header is not a valid value');
    if (name !== nameSource) return mismatch(id, `the Mcp-Name header does not match params.name`);
  }
  return {
    ok: true,
    era: 'modern',
    version: headerVersion,
    clientCapabilities: capabilities as Record<string, unknown>,
  };
}

/** A mirrored header value: as sent, or the UTF-8 inside the `=?base64?…?=` sentinel. */
export function decodeHeaderValue(value: string): string | undefined {
  if (!value.startsWith('=?base64?')) return value;
  const encoded = BASE64_SENTINEL.exec(value)?.[1];
  if (encoded === undefined || encoded.length % 4 !== 0) return undefined;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(Buffer.from(encoded, 'base64'));
  } catch {
    return undefined;
  }
}

function unsupported(id: JsonRpcId | null, requested: string): RequestEra {
  return reject(400, id, JsonRpcErrorCode.UnsupportedProtocolVersion, 'Unsupported protocol version', {
    supported: [...SUPPORTED_PROTOCOL_VERSIONS],
    requested: requested.slice(0, 100),
  });
}

function mismatch(id: JsonRpcId | null, message: string): RequestEra {
  return reject(400, id, JsonRpcErrorCode.HeaderMismatch, `Header mismatch: ${message}`);
}

function reject(
  status: number,
  id: JsonRpcId | null,
  code: number,
  message: string,
  data?: unknown,
): RequestEra {
  return { ok: false, status, reply: rpcError(id, code, message, data) };
}
