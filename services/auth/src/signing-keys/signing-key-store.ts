import { exportJWK, generateKeyPair, type JWK } from 'jose';
import type { Keyring } from '../crypto/keyring.ts';
import { type ResealCount, resealEach } from '../crypto/reseal-each.ts';
import type { DatabasePool, Queryable } from '../db/pool.ts';
import { withTransaction } from '../db/transaction.ts';

/** Algorithms an access-token signing key may use: asymmetric only (DESIGN §7.1). */
export const SIGNING_ALGORITHMS = ['ES256', 'EdDSA', 'RS256', 'PS256'] as const;
export type SigningAlgorithm = (typeof SIGNING_ALGORITHMS)[number];

export interface SigningKey {
  kid: string;
  alg: SigningAlgorithm;
  /** The private JWK, with `kid`, `alg` and `use: 'sig'`. */
  privateJwk: JWK;
  state: 'next' | 'current' | 'retired';
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

async function insertKey(db: Queryable, keyring: Keyring, key: SigningKey): Promise<void> {
  await db.query(
    `INSERT INTO signing_keys (kid, alg, public_jwk, private_jwk_encrypted, state, activated_at)
     VALUES ($1, $2, $3, $4, $5, CASE WHEN $5 = 'current' THEN now() END)`,
    [
      key.kid,
      key.alg,
      publicPart(key.privateJwk),
      keyring.encrypt(JSON.stringify(key.privateJwk), key.kid),
      key.state,
    ],
  );
}

/**
 * Drops every stored key at once and stores one new current key, so every token the old keys
 * signed stops verifying as soon as resource servers refresh the JWKS (the OAuth reset; unlike a
 * rotation, live tokens are meant to die). Run inside the caller's transaction.
 */
export async function replaceAllSigningKeys(db: Queryable, keyring: Keyring): Promise<string> {
  await db.query('DELETE FROM signing_keys');
  const key = await generateSigningKey();
  await insertKey(db, keyring, key);
  return key.kid;
}

/**
 * Signing keys kept in PostgreSQL, private parts encrypted with the key ring (bound to the kid as
 * associated data, so a ciphertext cannot be moved to another row).
 */
export function createSigningKeyStore(pool: DatabasePool, keyring: Keyring) {
  const insert = (key: SigningKey) => insertKey(pool, keyring, key);

  async function list(): Promise<SigningKey[]> {
    const { rows } = await pool.query<{
      kid: string;
      alg: SigningAlgorithm;
      private_jwk_encrypted: string;
      state: SigningKey['state'];
    }>(
      `SELECT kid, alg, private_jwk_encrypted, state FROM signing_keys
       ORDER BY CASE state WHEN 'current' THEN 0 WHEN 'next' THEN 1 ELSE 2 END, created_at DESC`,
    );
    return rows.map((row) => ({
      kid: row.kid,
      alg: row.alg,
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
      await pool.query("DELETE FROM signing_keys WHERE state = 'next'");
      await insert(key);
      return key.kid;
    },

    /** Rotation step 2: the next key signs; the old current key stays published as retired. */
    promoteNextKey(): Promise<void> {
      return withTransaction(pool, async (client) => {
        const { rowCount } = await client.query("SELECT 1 FROM signing_keys WHERE state = 'next'");
        if (!rowCount) throw new SigningKeyError('there is no staged next key: stage one first');
        await client.query(
          "UPDATE signing_keys SET state = 'retired', retired_at = now() WHERE state = 'current'",
        );
        await client.query(
          "UPDATE signing_keys SET state = 'current', activated_at = now() WHERE state = 'next'",
        );
      });
    },

    /**
     * Encryption-key rotation: re-encrypts private keys written with an older key of the ring
     * under its current one, each row replaced only if unchanged (safe beside running replicas).
     * Rows no key in the ring opens are counted as unreadable and left alone.
     */
    async resealWithCurrentKey(): Promise<ResealCount> {
      const { rows } = await pool.query<{ kid: string; sealed: string }>(
        `SELECT kid, private_jwk_encrypted AS sealed FROM signing_keys
         WHERE split_part(private_jwk_encrypted, '.', 2) <> $1`,
        [keyring.currentKeyId],
      );
      const secrets = rows.map(({ kid, sealed }) => ({ kid, sealed, associatedData: kid }));
      return resealEach(keyring, secrets, async ({ kid, sealed }, resealed) => {
        const { rowCount } = await pool.query(
          'UPDATE signing_keys SET private_jwk_encrypted = $3 WHERE kid = $1 AND private_jwk_encrypted = $2',
          [kid, sealed, resealed],
        );
        return (rowCount ?? 0) > 0;
      });
    },

    /** Rotation step 3: stop publishing keys retired longer ago than the longest token lifetime. */
    async removeRetiredKeys(olderThanSeconds: number): Promise<number> {
      const { rowCount } = await pool.query(
        "DELETE FROM signing_keys WHERE state = 'retired' AND retired_at < now() - make_interval(secs => $1)",
        [olderThanSeconds],
      );
      return rowCount ?? 0;
    },
  };
}

export type SigningKeyStore = ReturnType<typeof createSigningKeyStore>;
