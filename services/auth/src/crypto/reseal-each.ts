import type { Keyring } from './keyring.ts';

export interface ResealCount {
  /** Re-encrypted under the ring's current key. */
  resealed: number;
  /** Written with a key the ring no longer has (or tampered with): left as they are. */
  unreadable: number;
}

/** A secret sealed with the key ring, and the associated data it was bound to. */
export interface SealedSecret {
  sealed: string;
  associatedData: string;
}

/**
 * Re-encrypts each secret under the ring's current key, one after another: one no key in the ring
 * opens is counted as unreadable and skipped; otherwise `replace` writes the new ciphertext and
 * says whether it counts as resealed (a compare-and-swap that lost to a concurrent writer does not).
 */
export async function resealEach<Secret extends SealedSecret>(
  keyring: Keyring,
  secrets: Iterable<Secret> | AsyncIterable<Secret>,
  replace: (secret: Secret, resealed: string) => Promise<boolean>,
): Promise<ResealCount> {
  const count: ResealCount = { resealed: 0, unreadable: 0 };
  for await (const secret of secrets) {
    let plaintext: string;
    try {
      plaintext = keyring.decrypt(secret.sealed, secret.associatedData);
    } catch {
      count.unreadable += 1;
      continue;
    }
    if (await replace(secret, keyring.encrypt(plaintext, secret.associatedData))) count.resealed += 1;
  }
  return count;
}
