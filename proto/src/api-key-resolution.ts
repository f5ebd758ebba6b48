import type { ApiKeyRefusal, ResolveApiKeyResponse } from '../gen/sheetgate/v1/token_broker.ts';

/**
 * What resolving an API key answers, as both sides of `ResolveApiKeys` see it: auth's API-key
 * library returns it, auth's gRPC handler sends it, the MCP service receives it. The one place
 * this union is defined; `toResolveApiKeyResponse` and `fromResolveApiKeyResponse` are its wire
 * form.
 */
export type ApiKeyResolution =
  | {
      ok: true;
      userId: string;
      scopes: readonly string[];
      keyId: string;
      /**
       * When the key expires (unix milliseconds), null for never. On the wire in whole seconds
       * rounded down, so a receiver never holds it past the instant auth would refuse it.
       */
      expiresAtMs: number | null;
      /**
       * The toolsets the key enables (TOOLSETS names), null for every set (a key created before
       * toolsets). On the wire an empty list.
       */
      toolsets: readonly string[] | null;
    }
  | { ok: false; reason: 'unknown' | 'expired' | 'revoked' }
  | { ok: false; reason: 'rate_limited'; retryAfterSeconds: number }
  /** Too many unknown keys from the presenting client's address; a key auth already knows still passes. */
  | { ok: false; reason: 'throttled'; retryAfterSeconds: number };

export type ApiKeyRefusalReason = Extract<ApiKeyResolution, { ok: false }>['reason'];

// The one definition of what an API key may look like, for the MCP service's filter before any
// call and for auth's before any hashing or I/O, so the two agree.

/** Sheetgate's own key namespace: a value in it is a key Sheetgate issued or nothing. */
export const API_KEY_NAMESPACE = 'sg_';

/** Every key auth issues starts with this, so secret scanners and people recognise one. */
export const API_KEY_PREFIX = 'sg_live_';

/** A key Sheetgate issues: the prefix and 256 random bits in unpadded base64url (43 characters). */
export const ISSUED_API_KEY = /^sg_live_[A-Za-z0-9_-]{43}$/;

/**
 * A key imported from an earlier provider (auth's migrate:import): any prefix outside Sheetgate's
 * namespace, 16–256 URL-safe characters (RFC 3986 "unreserved"). Bounded, so garbage of any size
 * is refused without being hashed.
 */
export const IMPORTED_API_KEY = /^[A-Za-z0-9._~-]{16,256}$/;

/** The most keys one `ResolveApiKeys` call may carry (INVALID_ARGUMENT beyond). */
export const MAX_API_KEYS_PER_BATCH = 256;

/** The most requests one `LeaseApiKeyAllowance` may ask for (INVALID_ARGUMENT beyond). */
export const MAX_API_KEY_LEASE = 1_000;

/**
 * Whether a presented value could be a key auth accepts: one Sheetgate issued (exact shape) or an
 * imported one. A cheap filter before any I/O; auth decides.
 */
export function mayBeApiKey(value: unknown): value is string {
  if (typeof value !== 'string' || value.length < 16 || value.length > 256) return false;
  return value.startsWith(API_KEY_NAMESPACE) ? ISSUED_API_KEY.test(value) : IMPORTED_API_KEY.test(value);
}

const REFUSALS: Record<ApiKeyRefusalReason, ApiKeyRefusal> = {
  unknown: 'API_KEY_REFUSAL_UNKNOWN',
  expired: 'API_KEY_REFUSAL_EXPIRED',
  revoked: 'API_KEY_REFUSAL_REVOKED',
  rate_limited: 'API_KEY_REFUSAL_RATE_LIMITED',
  throttled: 'API_KEY_REFUSAL_ADDRESS_THROTTLED',
};

/** The wire form of a resolution (auth's side). */
export function toResolveApiKeyResponse(resolution: ApiKeyResolution): ResolveApiKeyResponse {
  if (resolution.ok) {
    return {
      resolved: {
        userId: resolution.userId,
        scopes: [...resolution.scopes],
        keyId: resolution.keyId,
        expiresAt: resolution.expiresAtMs === null ? undefined : Math.floor(resolution.expiresAtMs / 1000),
        // `== null`: a resolution cached by an auth replica of the release before toolsets has none.
        toolsets: resolution.toolsets == null ? [] : [...resolution.toolsets],
      },
      refused: undefined,
    };
  }
  return {
    resolved: undefined,
    refused: {
      reason: REFUSALS[resolution.reason],
      retryAfterSeconds: 'retryAfterSeconds' in resolution ? Math.ceil(resolution.retryAfterSeconds) : 0,
    },
  };
}

/**
 * A resolution from its wire form (the MCP service's side). An unset or unknown refusal reason is
 * `unknown`, as the contract says; a rate-limit or throttling refusal always carries at least one
 * second.
 */
export function fromResolveApiKeyResponse(response: ResolveApiKeyResponse): ApiKeyResolution {
  if (response.resolved) {
    return {
      ok: true,
      userId: response.resolved.userId,
      scopes: response.resolved.scopes,
      keyId: response.resolved.keyId,
      expiresAtMs: response.resolved.expiresAt === undefined ? null : response.resolved.expiresAt * 1000,
      toolsets: response.resolved.toolsets.length === 0 ? null : response.resolved.toolsets,
    };
  }
  switch (response.refused?.reason) {
    case 'API_KEY_REFUSAL_EXPIRED':
      return { ok: false, reason: 'expired' };
    case 'API_KEY_REFUSAL_REVOKED':
      return { ok: false, reason: 'revoked' };
    case 'API_KEY_REFUSAL_RATE_LIMITED':
      return {
        ok: false,
        reason: 'rate_limited',
        retryAfterSeconds: Math.max(1, response.refused.retryAfterSeconds),
      };
    case 'API_KEY_REFUSAL_ADDRESS_THROTTLED':
      return {
        ok: false,
        reason: 'throttled',
        retryAfterSeconds: Math.max(1, response.refused.retryAfterSeconds),
      };
    default:
      return { ok: false, reason: 'unknown' };
  }
}
