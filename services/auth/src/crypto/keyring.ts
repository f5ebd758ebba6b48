import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { SheetgateError } from '@sheetgate/service-runtime';

/**
 * Encryption at rest for secrets auth must be able to read back (Google refresh tokens, signing
 * keys): AES-256-GCM with a key id in every ciphertext, so keys rotate without re-encrypting
 * everything at once. Format: `v1.<keyId>.<iv>.<tag>.<ciphertext>` (base64url parts).
 *
 * The key ring comes from `AUTH_ENCRYPTION_KEYS`: `id:base64key` pairs separated by commas; the
 * first encrypts, all decrypt.
 */
export interface Keyring {
  readonly currentKeyId: string;
  encrypt(plaintext: string, associatedData?: string): string;
  decrypt(ciphertext: string, associatedData?: string): string;
  /** The key id a ciphertext was written with (to find rows that need re-encryption). */
  keyIdOf(ciphertext: string): string;
}

/** A key ring or ciphertext that cannot be used: a deployment or data problem, never the caller's. */
export class KeyringError extends SheetgateError {
  constructor(message: string) {
    super('internal', message);
    this.name = 'KeyringError';
  }
}

const KEY_ID = /^[A-Za-z0-9_-]{1,32}$/;

export function parseKeyring(spec: string): Keyring {
  const keys = new Map<string, Buffer>();
  let currentKeyId: string | undefined;
  for (const entry of spec
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean)) {
    const separator = entry.indexOf(':');
    const id = entry.slice(0, separator);
    const key = Buffer.from(entry.slice(separator + 1), 'base64');
    if (separator < 1 || !KEY_ID.test(id)) throw new KeyringError('each key needs an id: `id:base64key`');
    if (key.length !== 32) throw new KeyringError(`key ${id} must be 32 bytes (base64 of 32 random bytes)`);
    if (keys.has(id)) throw new KeyringError(`key id ${id} appears twice`);
    keys.set(id, key);
    currentKeyId ??= id;
  }
  if (!currentKeyId) throw new KeyringError('no key given');
  const current = currentKeyId;
  const keyFor = (id: string) => {
    const key = keys.get(id);
    if (!key) throw new KeyringError(`ciphertext was written with key ${id}, which is not in the key ring`);
    return key;
  };
  return {
    currentKeyId: current,
    encrypt(plaintext, associatedData = '') {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', keyFor(current), iv);
      cipher.setAAD(Buffer.from(associatedData));
      const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return [
        'v1',
        current,
        iv.toString('base64url'),
        cipher.getAuthTag().toString('base64url'),
        body.toString('base64url'),
      ].join('.');
    },
    decrypt(ciphertext, associatedData = '') {
      const [version, keyId, iv, tag, body] = ciphertext.split('.');
      if (version !== 'v1' || !keyId || !iv || !tag || body === undefined)
        throw new KeyringError('not a v1 ciphertext');
      const decipher = createDecipheriv('aes-256-gcm', keyFor(keyId), Buffer.from(iv, 'base64url'));
      decipher.setAAD(Buffer.from(associatedData));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      try {
        return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString(
          'utf8',
        );
      } catch {
        throw new KeyringError('ciphertext failed authentication (wrong key, wrong context, or tampered)');
      }
    },
    keyIdOf(ciphertext) {
      return ciphertext.split('.')[1] ?? '';
    },
  };
}

/** A fresh key ring spec with one random key, for development stacks and tests. */
export function generateKeyringSpec(id = `k${Date.now().toString(36)}`): string {
  return `${id}:${randomBytes(32).toString('base64')}`;
}
