import { randomBytes } from 'node:crypto';
import { exportJWK, exportSPKI, generateKeyPair, type JWK, SignJWT } from 'jose';

export interface SigningKey {
  kid: string;
  /** `/oauth2/v3/certs`: the public key as a JWK. */
  jwk: JWK;
  /** `/oauth2/v1/certs`: the public key as PEM, which google-auth-library fetches under Node. */
  pem: string;
  sign(claims: Record<string, unknown>): Promise<string>;
}

/** A fresh RS256 key per emulator start; ID tokens of an earlier run are no longer valid. */
export async function createSigningKey(): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true });
  const kid = randomBytes(20).toString('hex');
  const jwk = { ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' };
  const pem = await exportSPKI(publicKey);
  return {
    kid,
    jwk,
    pem,
    sign: (claims) =>
      new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid, typ: 'JWT' }).sign(privateKey),
  };
}
