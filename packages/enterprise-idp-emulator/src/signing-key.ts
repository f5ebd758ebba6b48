import { randomBytes } from 'node:crypto';
import { exportJWK, generateKeyPair, type JWK, type JWTPayload, SignJWT } from 'jose';

export interface SigningKey {
  kid: string;
  /** The public key, as the JWKS lists it. */
  jwk: JWK;
  /** Signs `claims` with this key (RS256), the header's `typ` and more given by `header`. */
  sign(claims: JWTPayload, header: { typ: string } & Record<string, unknown>): Promise<string>;
}

/** A fresh RS256 key per start (as IdPs such as Okta sign): what an earlier run signed no longer verifies. */
export async function createSigningKey(): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true });
  const kid = randomBytes(12).toString('hex');
  return {
    kid,
    jwk: { ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' },
    sign: (claims, header) =>
      new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid, ...header }).sign(privateKey),
  };
}
