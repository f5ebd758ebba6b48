import { exportJWK, generateKeyPair, type JWK } from 'jose';
import type { Keyring } from '../crypto/keyring.ts';
import { type ResealCount, resealEach } from '../crypto/reseal-each.ts';
import type { DatabasePool, Queryable } from '../db/pool.ts';
import { withTransaction } from '../db/transaction.ts';
import { createSigningKeyQueries, type SigningKeyState } from './signing-key-queries.ts';

/** Algorithms an access-token signing key may use: asymmetric only (docs/design.md §7.1). */
export const SIGNING_ALGORITHMS = ['ES256', 'EdDSA', 'RS256', 'PS256'] as const;
export type SigningAlgorithm = (typeof SIGNING_ALGORITHMS)[number];

export interface SigningKey {
  kid: string;
  alg: SigningAlgorithm;
  /** The private JWK, with `kid`, `alg` and `use: 'sig'`. */
  privateJwk: JWK;
  state: SigningKeyState;
}

export class SigningKeyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SigningKeyError';
  }
}

/**
 * Parses `AUTH_SIGNING_KEYS`: a private JWKS (`{"keys":[…]}`). The first key signs; the others are
 * published (the next key before a switch, retired keys until their tokens expire).
 */
export function parseConfiguredSigningKeys(json: string): SigningKey[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    throw new SigningKeyError('AUTH_SIGNING_KEYS is not valid JSON');
  }
  const keys = (parsed as { keys?: unknown })?.keys;
  if (!Array.isArray(keys) || keys.length === 0)
    throw new SigningKeyError('AUTH_SIGNING_KEYS needs a non-empty "keys" array');
  const seen = new Set<string>();
  return keys.map((key: JWK & { alg?: string }, index) => {
    if (!key || typeof key !== 'object')
      throw new SigningKeyError(`AUTH_SIGNING_KEYS key ${index} is not an object`);
    if (!key.kid) throw new SigningKeyError(`AUTH_SIGNING_KEYS key ${index} has no "kid"`);
    if (seen.has(key.kid)) throw new SigningKeyError(`AUTH_SIGNING_KEYS has kid ${key.kid} twice`);
    seen.add(key.kid);
    if (!SIGNING_ALGORITHMS.includes(key.alg as SigningAlgorithm)) {
      throw new SigningKeyError(
        `AUTH_SIGNING_KEYS key ${key.kid}: "alg" must be one of ${SIGNING_ALGORITHMS.join(', ')}`,
      );
    }
    if (!key.d) throw new SigningKeyError(`AUTH_SIGNING_KEYS key ${key.kid} is not a private key (no "d")`);
    return {
      kid: key.kid,
      alg: key.alg as SigningAlgorithm,
      privateJwk: { ...key, use: 'sig' },
      state: index === 0 ? 'current' : 'retired',
    };
  });
}

async function generateSigningKey(alg: SigningAlgorithm = 'ES256'): Promise<SigningKey> {
  const { privateKey } = await generateKeyPair(alg, { extractable: true });
  const jwk = await exportJWK(privateKey);
  const kid = `sg-${Date.now().toString(36)}-${crypto.randomUUID().slice(0, 8)}`;
  return { kid, alg, privateJwk: { ...jwk, kid, alg, use: 'sig' }, state: 'current' };
}

function publicPart(jwk: JWK): JWK {
  const { d: _d, p: _p, q: _q, dp: _dp, dq: _dq, qi: _qi, oth: _oth, ...rest } = jwk;
  return rest;
}

function insertKey(db: Queryable, keyring: Keyring, key: SigningKey): Promise<void> {
  return createSigningKeyQueries(db).insert({
    kid: key.kid,
    alg: key.alg,
    publicJwk: publicPart(key.privateJwk),
    sealedPrivateJwk: keyring.encrypt(JSON.stringify(key.privateJwk), key.kid),
    state: key.state,
  });
}

/**
 * Drops every stored key at once and stores one new current key, so every token the old keys
 * signed stops verifying as soon as resource servers refresh the JWKS (the OAuth reset; unlike a
 * rotation, live tokens are meant to die). Run inside the caller's transaction.
 */
export async function replaceAllSigningKeys(db: Queryable, keyring: Keyring): Promise<string> {
  await createSigningKeyQueries(db).deleteAll();
  const key = await generateSigningKey();
  await insertKey(db, keyring, key);
  return key.kid;
}

/**
 * Signing keys kept in PostgreSQL, private parts encrypted with the key ring (bound to the kid as
 * associated data, so a ciphertext cannot be moved to another row).
 */
export function createSigningKeyStore(pool: DatabasePool, keyring: Keyring) {
  const queries = createSigningKeyQueries(pool);
  const insert = (key: SigningKey) => insertKey(pool, keyring, key);

  async function list(): Promise<SigningKey[]> {
    return (await queries.listSealed()).map((row) => ({
      kid: row.kid,
      alg: row.alg as SigningAlgorithm,
      state: row.state,
      privateJwk: JSON.parse(keyring.decrypt(row.private_jwk_encrypted, row.kid)) as JWK,
    }));
  }

  return {
    list,

    /** The stored keys, generating the first one when there is none (safe with racing replicas). */
    async loadOrCreate(): Promise<SigningKey[]> {
      const existing = await list();
      if (existing.some((key) => key.state === 'current')) return existing;
      try {
        await insert(await generateSigningKey());
      } catch (error) {
        // Another replica created the current key first (unique index on the current state).
        if ((error as { code?: string }).code !== '23505') throw error;
      }
      return list();
    },

    /** Rotation step 1: publish a new key that does not sign yet, so caches learn it first. */
    async stageNextKey(alg: SigningAlgorithm = 'ES256'): Promise<string> {
      const key = { ...(await generateSigningKey(alg)), state: 'next' as const };
      await queries.deleteNext();
      await insert(key);
      return key.kid;
    },

    /** Rotation step 2: the next key signs; the old current key stays published as retired. */
    promoteNextKey(): Promise<void> {
      return withTransaction(pool, async (client) => {
        const inTransaction = createSigningKeyQueries(client);
        if (!(await inTransaction.hasNext()))
          throw new SigningKeyError('there is no staged next key: stage one first');
        await inTransaction.promoteNext();
      });
    },

    /**
     * Encryption-key rotation: re-encrypts private keys written with an older key of the ring
     * under its current one, each row replaced only if unchanged (safe beside running replicas).
     * Rows no key in the ring opens are counted as unreadable and left alone.
     */
    async resealWithCurrentKey(): Promise<ResealCount> {
      const rows = await queries.sealedUnderOtherKeys(keyring.currentKeyId);
      const secrets = rows.map(({ kid, sealed }) => ({ kid, sealed, associatedData: kid }));
      return resealEach(keyring, secrets, ({ kid, sealed }, resealed) =>
        queries.replaceSealed(kid, sealed, resealed),
      );
    },

    /** Rotation step 3: stop publishing keys retired longer ago than the longest token lifetime. */
    async removeRetiredKeys(olderThanSeconds: number): Promise<number> {
      return queries.deleteRetiredBefore(olderThanSeconds);
    },
  };
}

export type SigningKeyStore = ReturnType<typeof createSigningKeyStore>;
