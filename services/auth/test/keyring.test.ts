import { describe, expect, it } from 'vitest';
import { generateKeyringSpec, KeyringError, parseKeyring } from '../src/crypto/keyring.ts';

describe('encryption key ring', () => {
  it('round-trips and binds the ciphertext to its context', () => {
    const keyring = parseKeyring(generateKeyringSpec('a'));
    const sealed = keyring.encrypt('refresh-token-value', 'user-1');
    expect(sealed).not.toContain('refresh-token-value');
    expect(keyring.decrypt(sealed, 'user-1')).toBe('refresh-token-value');
    expect(() => keyring.decrypt(sealed, 'user-2')).toThrow(KeyringError);
  });

  it('rotates: a new first key encrypts, the old one still decrypts', () => {
    const oldSpec = generateKeyringSpec('old');
    const sealedWithOld = parseKeyring(oldSpec).encrypt('secret');
    const rotated = parseKeyring(`${generateKeyringSpec('new')},${oldSpec}`);
    expect(rotated.decrypt(sealedWithOld)).toBe('secret');
    expect(rotated.keyIdOf(rotated.encrypt('secret'))).toBe('new');
    expect(rotated.keyIdOf(sealedWithOld)).toBe('old');
  });

  it('detects tampering', () => {
    const keyring = parseKeyring(generateKeyringSpec('a'));
    const parts = keyring.encrypt('secret').split('.');
    parts[4] = Buffer.from('other').toString('base64url');
    expect(() => keyring.decrypt(parts.join('.'))).toThrow(/failed authentication/);
  });

  it.each([
    ['', /no key given/],
    ['nokeyid', /needs an id/],
    ['k1:c2hvcnQ=', /32 bytes/],
    [`k1:${Buffer.alloc(32).toString('base64')},k1:${Buffer.alloc(32).toString('base64')}`, /appears twice/],
  ])('refuses the spec %j', (spec, message) => {
    expect(() => parseKeyring(spec)).toThrow(message);
  });
});
