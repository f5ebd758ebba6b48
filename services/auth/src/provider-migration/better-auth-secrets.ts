import { createHash } from 'node:crypto';
import { xchacha20poly1305 } from '@noble/ciphers/chacha.js';
import { managedNonce } from '@noble/ciphers/utils.js';

/**
 * How Better Auth stored the secrets Sheetgate imports, read back here. Better Auth's own code is
 * the reference (packages/better-auth/src/crypto, packages/api-key); nothing here is invented.
 */

/**
 * Better Auth's API-key plugin stores `base64url(SHA-256(key))` without padding (its
 * `defaultKeyHasher`): 43 characters. Anything else means the deployment turned hashing off or
 * used its own hasher, which the import cannot verify.
 */
export const BETTER_AUTH_KEY_HASH = /^[A-Za-z0-9_-]{43}$/;

export function betterAuthKeyHash(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('base64url');
}

/**
 * The session token inside Better Auth's `better-auth.session_token` cookie: the cookie value is
 * `<token>.<base64 HMAC of the token>`, percent-encoded by the browser's cookie header. The token is
 * a 32-character random id stored in Better Auth's `session` table, so it is the bearer secret;
 * the import keeps only its SHA-256, and the exchange looks it up by that hash (the signature
 * would add nothing an attacker without the token could pass).
 */
export function betterAuthSessionToken(cookieValue: string): string | undefined {
  if (cookieValue.length === 0 || cookieValue.length > 1024) return undefined;
  let decoded: string;
  try {
    decoded = decodeURIComponent(cookieValue);
  } catch {
    return undefined;
  }
  const token = decoded.split('.', 1)[0] ?? '';
  return /^[A-Za-z0-9_-]{16,256}$/.test(token) ? token : undefined;
}

export const sessionTokenHash = (token: string): Buffer =>
  createHash('sha256').update(token, 'utf8').digest();

/**
 * Better Auth's secrets, as its operator already has them: `BETTER_AUTH_SECRET` and the versioned
 * `BETTER_AUTH_SECRETS` ("1:secret,2:secret"). Needed only when the deployment set
 * `account.encryptOAuthTokens`, to read the Google refresh tokens it encrypted.
 */
export interface BetterAuthSecrets {
  secret?: string | undefined;
  versioned?: Map<number, string>;
}

export function parseBetterAuthSecrets(secret?: string, versioned?: string): BetterAuthSecrets {
  const map = new Map<number, string>();
  for (const entry of (versioned ?? '').split(',').map((part) => part.trim())) {
    if (!entry) continue;
    const colon = entry.indexOf(':');
    const version = Number(entry.slice(0, colon));
    if (colon < 1 || !Number.isInteger(version) || version < 0 || colon === entry.length - 1)
      throw new Error('BETTER_AUTH_SECRETS must look like "1:secret,2:secret"');
    map.set(version, entry.slice(colon + 1));
  }
  return { secret: secret || undefined, versioned: map };
}

// Better Auth's `isLikelyEncrypted`: its envelope, or bare hex of even length. Google's own refresh
// tokens ("1//…") never look like either.
export const looksEncrypted = (token: string) =>
  token.startsWith('$ba$') || (token.length % 2 === 0 && /^[0-9a-f]+$/i.test(token));

/**
 * A token Better Auth stored for an OAuth account: plain, or encrypted with XChaCha20-Poly1305
 * under SHA-256 of its secret (hex of nonce ‖ ciphertext, optionally in a `$ba$<version>$`
 * envelope naming which of the versioned secrets). Throws when it is encrypted and no given
 * secret opens it.
 */
export function readBetterAuthToken(stored: string, secrets: BetterAuthSecrets): string {
  if (!looksEncrypted(stored)) return stored;
  let secret = secrets.secret;
  let hex = stored;
  const envelope = /^\$ba\$(\d+)\$([0-9a-f]*)$/i.exec(stored);
  if (envelope) {
    secret = secrets.versioned?.get(Number(envelope[1]));
    hex = envelope[2]!;
    if (!secret) throw new Error(`encrypted with secret version ${envelope[1]}: set BETTER_AUTH_SECRETS`);
  }
  if (!secret) throw new Error('encrypted by Better Auth: set BETTER_AUTH_SECRET');
  const key = createHash('sha256').update(secret, 'utf8').digest();
  try {
    const plaintext = managedNonce(xchacha20poly1305)(key).decrypt(Buffer.from(hex, 'hex'));
    return Buffer.from(plaintext).toString('utf8');
  } catch {
    throw new Error('could not be decrypted with the Better Auth secret given');
  }
}
