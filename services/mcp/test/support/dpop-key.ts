import { createHash, randomBytes } from 'node:crypto';
import { calculateJwkThumbprint, exportJWK, generateKeyPair, type JWK, SignJWT } from 'jose';

type PrivateKey = Awaited<ReturnType<typeof generateKeyPair>>['privateKey'];

/** What a proof may be bent by: its claims and header replaced, or signed by another key. */
export interface ProofOptions {
  accessToken?: string;
  claims?: Record<string, unknown>;
  header?: Record<string, unknown>;
  signWith?: PrivateKey;
}

export interface DpopKey {
  /** Its public JWK's SHA-256 thumbprint (RFC 7638): a bound token's `cnf.jkt`. */
  jkt: string;
  publicJwk: JWK;
  privateKey: PrivateKey;
  /** A DPoP proof (RFC 9449 §4.2) of `htm` to `htu`, with `ath` when given a token. */
  proof(htm: string, htu: string, options?: ProofOptions): Promise<string>;
}

/** A client's DPoP key pair, as an MCP client that asks for sender-constrained tokens holds one. */
export async function newDpopKey(alg: 'ES256' | 'EdDSA' = 'ES256'): Promise<DpopKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  const publicJwk = await exportJWK(publicKey);
  return {
    jkt: await calculateJwkThumbprint(publicJwk, 'sha256'),
    publicJwk,
    privateKey,
    proof(htm, htu, options = {}) {
      return new SignJWT({
        htm,
        htu,
        jti: randomBytes(12).toString('base64url'),
        iat: Math.floor(Date.now() / 1000),
        ...(options.accessToken ? { ath: accessTokenHash(options.accessToken) } : {}),
        ...options.claims,
      })
        .setProtectedHeader({ alg, typ: 'dpop+jwt', jwk: publicJwk, ...options.header })
        .sign(options.signWith ?? privateKey);
    },
  };
}

/** RFC 9449 §4.2 `ath`: base64url(SHA-256(the access token)). */
export function accessTokenHash(accessToken: string): string {
  return createHash('sha256').update(accessToken).digest('base64url');
}
