import { createHmac, hkdfSync } from 'node:crypto';
import type { AdapterPayload } from 'oidc-provider';
import { type Keyring, KeyringError } from '../crypto/keyring.ts';

/** Models whose ids are not bearer values: they stay as they are, listed and joined by their ids. */
export const CLEAR_ID_MODELS: readonly string[] = ['Client', 'Grant'];

// Provider ids are base64url (nanoid, or a SHA-256 for replay detection) and never hold a '.',
// so a stored id with this prefix is a hash and a presented one never matches a stored hash as is.
export const HASHED_ID_PREFIX = 'h1.';
const SEALED_CLIENT_SECRET = 'client_secret_sealed';

/** What a client's sealed secret is bound to: its client id, so it cannot be moved to another. */
export const clientSecretContext = (clientId: string) => `Client:${clientId}`;

/**
 * What the provider's stores keep of its bearer values, so that a copy of them (a database dump,
 * its WAL, a backup, a replica, a Redis dump) gives no working code, token or session:
 *
 * - every model but clients and grants is stored under a keyed hash of its id (HMAC-SHA-256), and
 *   looked up by the hash of the id presented; its payload is stored without the id (`jti`), which
 *   comes back from the presented id;
 * - an interaction's payload is sealed whole with the key ring: it names the provider session's id
 *   (`session.cookie`) and its own (in `returnTo`);
 * - a client's secret is sealed with the key ring, bound to its client id (the provider compares
 *   it in clear, so it must be read back; reseal.ts moves it to a newer key).
 *
 * The hash key comes from API_KEY_PEPPER (through HKDF, apart from the API key hashes): unlike the
 * key ring it never rotates, and a lookup must find what was stored under any earlier key.
 */
export function createModelSecrets(options: { pepper: string; keyring: Keyring }) {
  const { keyring } = options;
  const hashKey = Buffer.from(hkdfSync('sha256', options.pepper, '', 'sheetgate oauth model ids v1', 32));
  const hashes = (model: string) => !CLEAR_ID_MODELS.includes(model);
  const hash = (model: string, kind: string, value: string) =>
    HASHED_ID_PREFIX +
    createHmac('sha256', hashKey).update(`${model}\0${kind}\0${value}`).digest('base64url');

  function storedId(model: string, id: string): string {
    return hashes(model) ? hash(model, 'id', id) : id;
  }

  return {
    storedId,

    /**
     * The id under which a row of the earlier release, stored in clear, would hold the model
     * presented as `id`; undefined when there can be none — the model's ids are not hashed, or the
     * value presented has the form of a stored hash (a stored hash must never work as the value).
     */
    idInClear(model: string, id: string): string | undefined {
      return hashes(model) && !id.startsWith(HASHED_ID_PREFIX) ? id : undefined;
    },

    /** The user code (device flow) as stored and looked up. */
    storedUserCode(model: string, userCode: string): string {
      return hashes(model) ? hash(model, 'user_code', userCode) : userCode;
    },

    /** The payload as stored under `id` (the provider's id, not yet hashed). */
    toStored(model: string, id: string, payload: AdapterPayload): AdapterPayload {
      if (model === 'Client') {
        const { client_secret: secret, ...rest } = payload;
        if (typeof secret !== 'string') return payload;
        return { ...rest, [SEALED_CLIENT_SECRET]: keyring.encrypt(secret, clientSecretContext(id)) };
      }
      if (!hashes(model)) return payload;
      const { jti: _id, ...rest } = payload;
      if (model === 'Interaction') {
        return { sealed: keyring.encrypt(JSON.stringify(rest), `Interaction:${storedId(model, id)}`) };
      }
      return rest;
    },

    /**
     * The payload as the provider expects it, from what is stored under `storedId`. `id` is the
     * value the model was found by; without it (a model found by its uid) the payload comes back
     * without its own id, which only its holder (the session cookie) has. An interaction sealed
     * under a key no longer in the ring is not found (the person starts again; it lives minutes).
     */
    fromStored(
      model: string,
      stored: AdapterPayload,
      where: { storedId: string; id?: string },
    ): AdapterPayload | undefined {
      if (model === 'Client') {
        const { [SEALED_CLIENT_SECRET]: sealed, ...rest } = stored;
        if (typeof sealed !== 'string') return stored;
        return { ...rest, client_secret: keyring.decrypt(sealed, clientSecretContext(where.storedId)) };
      }
      if (!hashes(model)) return stored;
      let payload = stored;
      if (model === 'Interaction' && typeof stored.sealed === 'string') {
        try {
          payload = JSON.parse(
            keyring.decrypt(stored.sealed, `Interaction:${where.storedId}`),
          ) as AdapterPayload;
        } catch (error) {
          if (error instanceof KeyringError) return undefined;
          throw error;
        }
      }
      return where.id === undefined ? payload : { ...payload, jti: where.id };
    },
  };
}

export type ModelSecrets = ReturnType<typeof createModelSecrets>;
