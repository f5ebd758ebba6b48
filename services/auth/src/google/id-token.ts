import { createRemoteJWKSet, errors as joseErrors, jwtVerify } from 'jose';
import type { GoogleEndpoints } from './google-endpoints.ts';

export interface GoogleIdentity {
  sub: string;
  email: string;
  name: string | null;
}

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
 * algorithm Google signs ID tokens with.
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
    return {
      sub: String(payload.sub),
      email: payload.email,
      name: typeof payload.name === 'string' ? payload.name : null,
    };
  };
}

export type IdTokenVerifier = ReturnType<typeof createIdTokenVerifier>;
