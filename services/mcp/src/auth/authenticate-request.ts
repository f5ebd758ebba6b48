import type { IncomingMessage } from 'node:http';
import { DPOP_SIGNING_ALGORITHMS, mayBeApiKey } from '@sheetgate/proto';
import { type ClientAddressOf, HttpError } from '@sheetgate/service-runtime';
import type { AccessTokenVerifier } from './access-token-verifier.ts';
import { InvalidAccessToken } from './access-token-verifier.ts';
import type { AuthInfo } from './auth-info.ts';
import type { ApiKeyResolver } from './broker-clients.ts';
import { type DpopProofVerifier, DpopRefusal } from './dpop-proof.ts';
import { JwksUnavailableError } from './jwks-cache.ts';

/** `Bearer` (RFC 6750) or `DPoP` (RFC 9449 §7.1), the scheme in any case, and a token68. */
const AUTHORIZATION = /^(Bearer|DPoP) ([A-Za-z0-9\-._~+/]+=*)$/i;
/** RFC 9449 §7.1: the DPoP challenge names the proof algorithms taken. */
const DPOP_ALGS = `algs="${DPOP_SIGNING_ALGORITHMS.join(' ')}"`;

/**
 * Authenticates a request to /api/mcp as docs/design.md §7.1–7.2 and §8 say: exactly one
 * credential, from the header only; a bearer JWT verified locally, an API key resolved at the
 * edge (what auth said of it, kept until the revocation stream drops it; `api-key-edge.ts`).
 * A DPoP-bound token (its `cnf.jkt`) is taken only as `Authorization: DPoP` with a proof by its
 * key (`dpop-proof.ts`), and a `DPoP` request only with a bound token (RFC 9449 §7).
 * Failures throw HttpError with the WWW-Authenticate challenge the MCP spec requires; a 401
 * offers both schemes, Bearer first (clients read `resource_metadata` from it), and a refusal of
 * a DPoP request, or of a bound token sent as Bearer, is a DPoP challenge.
 */
export function createRequestAuthenticator(deps: {
  verifier: AccessTokenVerifier;
  dpopProofs: DpopProofVerifier;
  apiKeys: ApiKeyResolver;
  /** The client's address by TRUSTED_PROXIES, the rule auth uses for its own routes. */
  clientAddress: ClientAddressOf;
  resourceMetadataUrl: string;
  scopes: readonly string[];
}) {
  const metadata = `resource_metadata="${deps.resourceMetadataUrl}"`;
  const dpopOffer = `DPoP ${DPOP_ALGS}`;
  const challenge = `Bearer ${metadata}, scope="${deps.scopes.join(' ')}", ${dpopOffer}`;
  const bearerRefusal = (description: string) =>
    new HttpError(401, 'invalid_token', description, {
      'www-authenticate': `Bearer error="invalid_token", error_description="${description}", ${metadata}, ${dpopOffer}`,
    });
  const dpopRefusal = (error: DpopRefusal['error'], description: string) =>
    new HttpError(401, error, description, {
      'www-authenticate': `DPoP error="${error}", error_description="${description}", ${DPOP_ALGS}, ${metadata}`,
    });

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
    const match = AUTHORIZATION.exec(authorization);
    if (!match) {
      throw new HttpError(401, 'invalid_token', 'use an Authorization: Bearer (or DPoP) access token', {
        'www-authenticate': `Bearer error="invalid_token", error_description="malformed Authorization header", ${metadata}, ${dpopOffer}`,
      });
    }
    const dpop = match[1]!.toLowerCase() === 'dpop';
    const token = match[2]!;
    let authInfo: AuthInfo;
    try {
      authInfo = await deps.verifier.verify(token);
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
      throw dpop ? dpopRefusal('invalid_token', error.message) : bearerRefusal(error.message);
    }
    if (!dpop) {
      // RFC 9449 §7.2: a bound token as a bearer token would be a stolen token's way in.
      if (authInfo.dpopJkt)
        throw dpopRefusal(
          'invalid_token',
          'the access token is DPoP-bound: send it as Authorization: DPoP with a proof',
        );
      return authInfo;
    }
    if (!authInfo.dpopJkt)
      throw dpopRefusal(
        'invalid_token',
        'the access token is not DPoP-bound: send it as Authorization: Bearer',
      );
    try {
      await deps.dpopProofs({
        proof: headerValue(req.headers.dpop) || undefined,
        method: req.method ?? '',
        accessToken: token,
        jkt: authInfo.dpopJkt,
      });
    } catch (error) {
      if (error instanceof DpopRefusal) throw dpopRefusal(error.error, error.message);
      throw error;
    }
    return authInfo;
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
  if (!authInfo.scopes.has(scope)) throw insufficientScope(authInfo, scope, resourceMetadataUrl);
}

/**
 * 403 `insufficient_scope` with its challenge (RFC 6750 §3.1), naming the scope to step up to; in
 * the DPoP scheme for a DPoP-bound token (RFC 9449 §7.1).
 */
export function insufficientScope(authInfo: AuthInfo, scope: string, resourceMetadataUrl: string): HttpError {
  const scheme = authInfo.dpopJkt ? 'DPoP' : 'Bearer';
  const algs = authInfo.dpopJkt ? `, ${DPOP_ALGS}` : '';
  return new HttpError(403, 'insufficient_scope', `this call needs the ${scope} scope`, {
    'www-authenticate': `${scheme} error="insufficient_scope", scope="${scope}"${algs}, resource_metadata="${resourceMetadataUrl}"`,
  });
}
