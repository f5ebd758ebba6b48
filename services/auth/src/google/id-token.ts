import { createRemoteJWKSet, errors as joseErrors, jwtVerify } from 'jose';
import { z } from 'zod';
import type { GoogleEndpoints } from './google-endpoints.ts';

export interface GoogleIdentity {
  sub: string;
  email: string;
  name: string | null;
  /**
   * The `hd` claim: the domain of the Google Workspace or Cloud organisation the account belongs
   * to, lower-cased; null when the token has none (a consumer account).
   */
  hostedDomain: string | null;
}

/** `hd` is a DNS name (at most 253 characters, which the column checks too). */
const hostedDomainClaim = z.hostname().max(253);

export class IdTokenError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'IdTokenError';
  }
}

/**
 * Verifies Google ID tokens (OpenID Connect Core §3.1.3.7): signature against Google's JWKS
 * (fetched and cached by jose, refetched on an unknown `kid`), issuer, audience = our client id,
 * expiry, and the nonce this browser's sign-in was started with. Only RS256 is accepted: the one
 * algorithm Google signs ID tokens with. The identity, the Workspace domain (`hd`) included, is read
 * only from the payload jose verified: nothing else Google says (userinfo) decides who the person is.
 */
export function createIdTokenVerifier(endpoints: GoogleEndpoints, clientId: string) {
  const keys = createRemoteJWKSet(new URL(endpoints.jwks), { cooldownDuration: 30_000 });
  return async function verifyIdToken(idToken: string, expectedNonce: string): Promise<GoogleIdentity> {
    let payload: Awaited<ReturnType<typeof jwtVerify>>['payload'];
    try {
      ({ payload } = await jwtVerify(idToken, keys, {
        issuer: endpoints.issuers,
        audience: clientId,
        algorithms: ['RS256'],
        requiredClaims: ['sub', 'exp', 'iat'],
        clockTolerance: 30,
      }));
    } catch (error) {
      if (error instanceof joseErrors.JOSEError) throw new IdTokenError(`ID token refused: ${error.code}`);
      throw error;
    }
    if (payload.nonce !== expectedNonce) throw new IdTokenError('ID token refused: nonce mismatch');
    if (typeof payload.email !== 'string' || !payload.email)
      throw new IdTokenError('ID token refused: no email (the email scope was not granted)');
    const hostedDomain = payload.hd === undefined ? null : String(payload.hd).toLowerCase();
    if (hostedDomain !== null && !hostedDomainClaim.safeParse(hostedDomain).success)
      throw new IdTokenError('ID token refused: hd is not a domain name');
    return {
      sub: String(payload.sub),
      email: payload.email,
      name: typeof payload.name === 'string' ? payload.name : null,
      hostedDomain,
    };
  };
}

export type IdTokenVerifier = ReturnType<typeof createIdTokenVerifier>;
