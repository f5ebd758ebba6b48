import { createHash } from 'node:crypto';
import { DPOP_SIGNING_ALGORITHMS } from '@sheetgate/proto';
import { calculateJwkThumbprint, EmbeddedJWK, errors, jwtVerify } from 'jose';

/**
 * How far a proof's `iat` may be from this replica's clock, either way (RFC 9449 §11.1; the MCP
 * DPoP profile, SEP-1932, tests ±5 minutes, and auth's token endpoint takes the same).
 */
export const DPOP_PROOF_WINDOW_SECONDS = 300;
/** A proof carries one small public key: anything longer is not one. */
const MAX_PROOF_LENGTH = 4096;
const COMPACT_JWS = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

/**
 * Why a request's proof was refused. `invalid_dpop_proof` (RFC 9449 §7.1, §12.2) for the proof
 * itself; `invalid_token` when the proof is sound but its key is not the one the token is bound
 * to (RFC 9449 §7.1's "Invalid DPoP key binding").
 */
export class DpopRefusal extends Error {
  readonly error: 'invalid_dpop_proof' | 'invalid_token';
  constructor(error: DpopRefusal['error'], message: string) {
    super(message);
    this.name = 'DpopRefusal';
    this.error = error;
  }
}

/**
 * The fleet-wide record of proofs used (each proof's `jti` is taken once, whichever replica it
 * reaches). `firstUse` rejects when the record cannot be asked; nothing is then accepted.
 */
export interface DpopProofReplays {
  firstUse(jkt: string, jti: string, validForMs: number): Promise<boolean>;
}

/**
 * Checks the DPoP proof sent with a DPoP-bound access token at `/api/mcp` (RFC 9449 §4.3 and §7):
 * one compact JWS typed `dpop+jwt`, signed with an allow-listed asymmetric algorithm by the public
 * key in its `jwk` header (jose's EmbeddedJWK refuses a private key), for this request's method
 * and for `url`, the resource's public URL (query and fragment ignored) — never an address read
 * from the request, so a proof made for another server cannot be replayed here by it; `ath` the
 * token's hash; `iat` within the window; its key the one the token is bound to; and its `jti` not
 * used before, on any replica, which is asked last, so that only proofs otherwise accepted are
 * recorded. No nonce is asked for (RFC 9449 §8 makes it the server's choice): the window and the
 * fleet-wide `jti` record already make each proof good for one request within five minutes.
 */
export function createDpopProofVerifier(options: {
  url: string;
  replays: DpopProofReplays;
  now?: () => number;
}) {
  const now = options.now ?? Date.now;
  const expectedUrl = new URL(options.url);
  expectedUrl.search = '';
  expectedUrl.hash = '';
  const refuse = (message: string): never => {
    throw new DpopRefusal('invalid_dpop_proof', message);
  };

  return async function verifyProof(request: {
    /** The DPoP header as Node read it (a repeated header arrives joined by commas). */
    proof: string | undefined;
    method: string;
    accessToken: string;
    /** The token's `cnf.jkt`. */
    jkt: string;
  }): Promise<void> {
    const { proof } = request;
    if (!proof) return refuse('a DPoP-bound access token needs a DPoP proof header');
    if (proof.length > MAX_PROOF_LENGTH || !COMPACT_JWS.test(proof))
      return refuse('the DPoP header must hold one DPoP proof JWT');
    let verified: Awaited<ReturnType<typeof jwtVerify>>;
    try {
      verified = await jwtVerify(proof, EmbeddedJWK, {
        typ: 'dpop+jwt',
        algorithms: [...DPOP_SIGNING_ALGORITHMS],
        requiredClaims: ['jti', 'htm', 'htu', 'iat', 'ath'],
        currentDate: new Date(now()),
      });
    } catch (error) {
      if (error instanceof errors.JOSEError) return refuse('the DPoP proof is not valid');
      throw error;
    }
    const { payload, protectedHeader } = verified;
    if (typeof payload.jti !== 'string' || payload.jti.length === 0 || payload.jti.length > 256)
      return refuse('the DPoP proof has no usable jti');
    if (payload.htm !== request.method) return refuse('the DPoP proof is for another HTTP method');
    if (!sameUrl(payload.htu, expectedUrl)) return refuse('the DPoP proof is for another URL');
    const iat = payload.iat as number;
    if (Math.abs(now() / 1000 - iat) > DPOP_PROOF_WINDOW_SECONDS)
      return refuse('the DPoP proof is too old or dated in the future');
    if (payload.ath !== createHash('sha256').update(request.accessToken).digest('base64url'))
      return refuse('the DPoP proof is for another access token (ath)');
    // EmbeddedJWK has already imported it, so it is a JWK object.
    const thumbprint = await calculateJwkThumbprint(protectedHeader.jwk!, 'sha256');
    if (thumbprint !== request.jkt)
      throw new DpopRefusal(
        'invalid_token',
        'the DPoP proof is signed by another key than the token is bound to',
      );
    const validForMs = Math.max(1, Math.ceil((iat + DPOP_PROOF_WINDOW_SECONDS) * 1000 - now()));
    if (!(await options.replays.firstUse(thumbprint, payload.jti, validForMs)))
      return refuse('the DPoP proof was already used');
  };
}

export type DpopProofVerifier = ReturnType<typeof createDpopProofVerifier>;

/** RFC 9449 §4.3: `htu` compared without its query and fragment, after URL normalisation. */
function sameUrl(htu: unknown, expected: URL): boolean {
  if (typeof htu !== 'string') return false;
  const actual = URL.parse(htu);
  if (!actual) return false;
  actual.search = '';
  actual.hash = '';
  return actual.href === expected.href;
}
