import { knownToolsets, type TokenFacts } from '@sheetgate/proto';
import { decodeProtectedHeader, errors, jwtVerify } from 'jose';
import type { AuthInfo } from './auth-info.ts';
import type { JwksCache } from './jwks-cache.ts';

/** Asymmetric algorithms only (docs/design.md §7.1): never HS*, never `none`. */
export const ACCEPTED_ALGORITHMS = ['ES256', 'ES384', 'EdDSA', 'Ed25519', 'RS256', 'PS256'];
/** Header parameters that would let a token choose its own key; refused outright. */
const KEY_CHOOSING_HEADERS = ['jku', 'x5u', 'jwk', 'x5c'];
const CLOCK_TOLERANCE_SECONDS = 5;

/** Why a token was refused, in a word (the metrics' `reason` label). */
export type RefusalReason =
  | 'expired'
  | 'too_long'
  | 'not_jws'
  | 'key_in_header'
  | 'issued_in_future'
  | 'revoked'
  | 'invalid';

const REFUSALS: Record<RefusalReason, string> = {
  expired: 'the access token has expired',
  too_long: 'the access token is too long',
  not_jws: 'the access token is not a signed JWT',
  key_in_header: 'the access token names its own key',
  issued_in_future: 'the access token was issued in the future',
  revoked: 'the access token has been revoked',
  invalid: 'the access token is not valid',
};

export class InvalidAccessToken extends Error {
  readonly reason: RefusalReason;
  constructor(reason: RefusalReason) {
    super(REFUSALS[reason]);
    this.name = 'InvalidAccessToken';
    this.reason = reason;
  }
}

/** How one verification ended: from the cache, checked now, or refused (with why). */
export type VerificationOutcome =
  | { outcome: 'cache_hit' | 'verified' }
  | { outcome: 'refused'; reason: RefusalReason };

interface CachedVerification {
  authInfo: AuthInfo;
  expiresAtMs: number;
  kid: string;
  facts: TokenFacts;
}

/**
 * What auth revoked (the revocation stream, or auth itself while the stream lags:
 * `revocation-check.ts`). `refuses` rejects with a JwksUnavailableError when neither can say:
 * answered 503, as a missing key set is.
 */
export interface RevocationCheck {
  /** Synchronous when the replica can answer at once (the usual case), a promise when it must ask auth. */
  refuses(token: TokenFacts): boolean | Promise<boolean>;
}

/**
 * Verifies Sheetgate access tokens locally: compact JWS, allow-listed algorithm, a key from our
 * JWKS, `typ: at+jwt`, exact issuer, our resource in the audience, not expired, not issued in the
 * future. Verified tokens are remembered (keyed by the exact token string, until `exp`, bounded)
 * so a client's repeated calls skip the signature check, the verification's main cost; entries
 * signed by a key that leaves the JWKS are dropped at once. Every token, remembered or not, is
 * then held against what auth revoked (its grant, its person's grants, its signing key, the
 * provider's reset).
 */
export function createAccessTokenVerifier(options: {
  issuer: string;
  resource: string;
  jwks: JwksCache;
  /** Revocations to refuse tokens by; without it (tests of the verifier alone), none. */
  revocations?: RevocationCheck;
  maxCachedTokens?: number;
  /** Told how each verification ended (the metrics count them). */
  onOutcome?: (outcome: VerificationOutcome) => void;
}) {
  const report = options.onOutcome ?? (() => {});
  const refuse = (reason: RefusalReason): never => {
    report({ outcome: 'refused', reason });
    throw new InvalidAccessToken(reason);
  };
  // Awaited only when the check must wait: a cache hit costs no extra turn of the event loop.
  const isRevoked = (facts: TokenFacts) => options.revocations?.refuses(facts) ?? false;
  const maxCached = options.maxCachedTokens ?? 10_000;
  const verified = new Map<string, CachedVerification>();

  // Tokens signed by a key that left the JWKS are not trusted a moment longer.
  options.jwks.onKeysRemoved((kids) => {
    const gone = new Set(kids);
    for (const [token, entry] of verified) if (gone.has(entry.kid)) verified.delete(token);
  });

  function remember(token: string, entry: CachedVerification) {
    if (verified.size >= maxCached) {
      // Map keeps insertion order: the first entry is the oldest.
      const oldest = verified.keys().next().value;
      if (oldest !== undefined) verified.delete(oldest);
    }
    verified.set(token, entry);
  }

  return {
    async verify(token: string): Promise<AuthInfo> {
      const cached = verified.get(token);
      if (cached) {
        if (cached.expiresAtMs + CLOCK_TOLERANCE_SECONDS * 1000 > Date.now()) {
          let revoked = isRevoked(cached.facts);
          if (typeof revoked !== 'boolean') revoked = await revoked;
          if (revoked) {
            verified.delete(token);
            return refuse('revoked');
          }
          report({ outcome: 'cache_hit' });
          return cached.authInfo;
        }
        verified.delete(token);
        return refuse('expired');
      }
      if (token.length > 8192) return refuse('too_long');
      const parts = token.split('.');
      if (parts.length !== 3) return refuse('not_jws');
      let header: ReturnType<typeof decodeProtectedHeader>;
      try {
        header = decodeProtectedHeader(token);
      } catch {
        return refuse('not_jws');
      }
      if (KEY_CHOOSING_HEADERS.some((name) => name in header)) return refuse('key_in_header');
      try {
        const { payload, protectedHeader } = await jwtVerify(token, options.jwks.getKey, {
          issuer: options.issuer,
          audience: options.resource,
          algorithms: ACCEPTED_ALGORITHMS,
          typ: 'at+jwt',
          clockTolerance: CLOCK_TOLERANCE_SECONDS,
          requiredClaims: ['exp', 'iat', 'sub'],
        });
        if (typeof payload.iat === 'number' && payload.iat > Date.now() / 1000 + CLOCK_TOLERANCE_SECONDS) {
          return refuse('issued_in_future');
        }
        const scopes = new Set(
          typeof payload.scope === 'string' ? payload.scope.split(' ').filter(Boolean) : [],
        );
        const toolsets = toolsetsClaim(payload.toolsets);
        if (toolsets === 'malformed') return refuse('invalid');
        const dpopJkt = confirmationClaim(payload.cnf);
        if (dpopJkt === 'unusable') return refuse('invalid');
        const authInfo: AuthInfo = {
          userId: String(payload.sub),
          scopes,
          credential: 'access_token',
          ...(typeof payload.client_id === 'string' ? { clientId: payload.client_id } : {}),
          ...(toolsets ? { toolsets } : {}),
          ...(dpopJkt ? { dpopJkt } : {}),
        };
        const facts: TokenFacts = {
          grantId: typeof payload.grant_id === 'string' ? payload.grant_id : undefined,
          userId: authInfo.userId,
          issuedAt: payload.iat as number,
          kid: protectedHeader.kid ?? '',
        };
        let revoked = isRevoked(facts);
        if (typeof revoked !== 'boolean') revoked = await revoked;
        if (revoked) return refuse('revoked');
        remember(token, { authInfo, expiresAtMs: (payload.exp as number) * 1000, kid: facts.kid, facts });
        report({ outcome: 'verified' });
        return authInfo;
      } catch (error) {
        if (error instanceof InvalidAccessToken) throw error;
        if (error instanceof errors.JWTExpired) return refuse('expired');
        if (error instanceof errors.JOSEError) return refuse('invalid');
        // JwksUnavailableError (no key set yet) says nothing about the token: the caller answers 503.
        throw error;
      }
    },
  };
}

export type AccessTokenVerifier = ReturnType<typeof createAccessTokenVerifier>;

/**
 * The `toolsets` claim: the sets the person chose for the app on the consent screen (absent: every
 * set). Names this replica does not know enable nothing here (auth may be a version ahead); a
 * claim that is not a list of strings was not written by auth.
 */
function toolsetsClaim(claim: unknown): readonly string[] | undefined | 'malformed' {
  if (claim === undefined) return undefined;
  if (!Array.isArray(claim) || !claim.every((name) => typeof name === 'string')) return 'malformed';
  return knownToolsets(claim);
}

/**
 * The `cnf` claim (RFC 7800): the thumbprint of the DPoP key the token is bound to (RFC 9449 §6),
 * or undefined for a bearer token. A binding this server cannot check (mTLS's `x5t#S256`, or a
 * malformed one) makes the token unusable here rather than a bearer token.
 */
function confirmationClaim(claim: unknown): string | undefined | 'unusable' {
  if (claim === undefined) return undefined;
  if (typeof claim !== 'object' || claim === null || Array.isArray(claim)) return 'unusable';
  const members = Object.keys(claim);
  const jkt = (claim as { jkt?: unknown }).jkt;
  if (members.length !== 1 || typeof jkt !== 'string' || !JWK_THUMBPRINT.test(jkt)) return 'unusable';
  return jkt;
}

/** A base64url SHA-256 JWK thumbprint (RFC 7638). */
const JWK_THUMBPRINT = /^[A-Za-z0-9_-]{43}$/;
