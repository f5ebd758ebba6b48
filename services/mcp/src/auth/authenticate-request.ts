import type { IncomingMessage } from 'node:http';
import { mayBeApiKey } from '@sheetgate/proto';
import { type ClientAddressOf, HttpError } from '@sheetgate/service-runtime';
import type { AccessTokenVerifier } from './access-token-verifier.ts';
import { InvalidAccessToken } from './access-token-verifier.ts';
import type { AuthInfo } from './auth-info.ts';
import type { ApiKeyResolver } from './broker-clients.ts';
import { JwksUnavailableError } from './jwks-cache.ts';

const BEARER = /^Bearer ([A-Za-z0-9\-._~+/]+=*)$/i;

/**
 * Authenticates a request to /api/mcp as docs/design.md §7.1–7.2 and §8 say: exactly one
 * credential, from the header only; a bearer JWT verified locally, an API key resolved at the
 * edge (what auth said of it, kept until the revocation stream drops it; `api-key-edge.ts`).
 * Failures throw HttpError with the WWW-Authenticate challenge the MCP spec requires.
 */
export function createRequestAuthenticator(deps: {
  verifier: AccessTokenVerifier;
  apiKeys: ApiKeyResolver;
  /** The client's address by TRUSTED_PROXIES, the rule auth uses for its own routes. */
  clientAddress: ClientAddressOf;
  resourceMetadataUrl: string;
  scopes: readonly string[];
}) {
  const metadata = `resource_metadata="${deps.resourceMetadataUrl}"`;
  const challenge = `Bearer ${metadata}, scope="${deps.scopes.join(' ')}"`;

  return async function authenticate(req: IncomingMessage): Promise<AuthInfo> {
    const authorization = req.headers.authorization ?? '';
    const apiKey = headerValue(req.headers['x-api-key']);
    if (authorization && apiKey) {
      throw new HttpError(
        400,
        'invalid_request',
        'send either an Authorization bearer token or an x-api-key, not both',
      );
    }
    if (apiKey) {
      // A value no key could have is refused here, without a call to auth.
      if (!mayBeApiKey(apiKey)) throw new HttpError(401, 'invalid_api_key', apiKeyRefusal.unknown);
      const resolution = await deps.apiKeys.resolve(apiKey, deps.clientAddress(req));
      if (resolution.ok) {
        return {
          userId: resolution.userId,
          scopes: new Set(resolution.scopes),
          credential: 'api_key',
          apiKeyId: resolution.keyId,
          ...(resolution.toolsets === null ? {} : { toolsets: resolution.toolsets }),
        };
      }
      if (resolution.reason === 'rate_limited') {
        throw new HttpError(429, 'rate_limited', 'too many requests for this API key', {
          'retry-after': String(resolution.retryAfterSeconds),
        });
      }
      if (resolution.reason === 'throttled') {
        throw new HttpError(429, 'rate_limited', 'too many invalid API keys from this address', {
          'retry-after': String(resolution.retryAfterSeconds),
        });
      }
      if (resolution.reason === 'unavailable') {
        throw new HttpError(
          503,
          'temporarily_unavailable',
          'API keys cannot be checked right now; retry shortly',
          {
            'retry-after': String(resolution.retryAfterSeconds),
          },
        );
      }
      throw new HttpError(401, 'invalid_api_key', apiKeyRefusal[resolution.reason]);
    }
    if (!authorization) {
      throw new HttpError(401, 'invalid_request', 'authentication required', {
        'www-authenticate': challenge,
      });
    }
    const match = BEARER.exec(authorization);
    if (!match) {
      throw new HttpError(401, 'invalid_token', 'use an Authorization: Bearer access token', {
        'www-authenticate': `Bearer error="invalid_token", error_description="malformed Authorization header", ${metadata}`,
      });
    }
    try {
      return await deps.verifier.verify(match[1]!);
    } catch (error) {
      if (error instanceof JwksUnavailableError) {
        // No key set yet (auth has not answered since this replica started): the token may well be
        // good, so not a 401 that would send the client to sign in again.
        throw new HttpError(
          503,
          'temporarily_unavailable',
          'access tokens cannot be checked right now; retry shortly',
          { 'retry-after': String(error.retryAfterSeconds) },
        );
      }
      if (!(error instanceof InvalidAccessToken)) throw error;
      throw new HttpError(401, 'invalid_token', error.message, {
        'www-authenticate': `Bearer error="invalid_token", error_description="${error.message}", ${metadata}`,
      });
    }
  };
}

/** A header as one string: '' when absent, repeated values joined as Node joins them. */
function headerValue(value: string | string[] | undefined): string {
  return Array.isArray(value) ? value.join(', ') : (value ?? '');
}

const apiKeyRefusal = {
  unknown: 'the API key is not valid',
  expired: 'the API key has expired',
  revoked: 'the API key has been revoked',
} as const;

/** Refuses a call whose credential lacks `scope`, naming it for step-up (MCP 2025-11-25). */
export function requireScope(authInfo: AuthInfo, scope: string, resourceMetadataUrl: string): void {
  if (!authInfo.scopes.has(scope)) throw insufficientScope(scope, resourceMetadataUrl);
}

/** 403 `insufficient_scope` with its challenge (RFC 6750 §3.1), naming the scope to step up to. */
export function insufficientScope(scope: string, resourceMetadataUrl: string): HttpError {
  return new HttpError(403, 'insufficient_scope', `this call needs the ${scope} scope`, {
    'www-authenticate': `Bearer error="insufficient_scope", scope="${scope}", resource_metadata="${resourceMetadataUrl}"`,
  });
}
