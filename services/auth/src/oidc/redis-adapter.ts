import type { Logger } from '@sheetgate/service-runtime';
import type { Adapter, AdapterPayload } from 'oidc-provider';
import { createAuthRedisClient } from '../cache/redis-client.ts';
import { StoreUnavailableError } from '../cache/store-unavailable.ts';
import type { ModelSecrets } from './model-secrets.ts';
import { ProviderStoreUnavailable } from './store-outage.ts';

/** The short-lived models kept in Redis rather than PostgreSQL (docs/design.md §5). */
export const SHORT_LIVED_MODELS = new Set(['AuthorizationCode', 'Interaction', 'ReplayDetection']);

// Marks a model consumed only while it exists: HSET alone would recreate an expired or revoked
// code as a key without expiry. One script, so no request sees it half-written.
const CONSUME = `
if redis.call('EXISTS', KEYS[1]) == 1 then
  redis.call('HSET', KEYS[1], 'consumed', ARGV[1])
end`;

// Deletes every model issued under a grant, then the grant's key set, as one step: an upsert
// cannot add a code between the read of the set and its deletion. (The members are keys of this
// instance, not declared in KEYS: Sheetgate's Redis is one server, not a cluster.)
const REVOKE_GRANT = `
for _, key in ipairs(redis.call('SMEMBERS', KEYS[1])) do
  redis.call('DEL', key)
end
redis.call('DEL', KEYS[1])`;

/** One minute past the longest TTL the provider asks for, for models it stores without one. */
const FALLBACK_TTL_SECONDS = 3600;

/**
 * oidc-provider storage for its short-lived models on Redis, shared by every auth replica:
 * interactions (minutes), authorization codes (a minute) and replay detection.
 * Losing them on a Redis restart costs a person at most one retried connection.
 *
 * Each model is a hash (`payload`, and `consumed` once used) that expires with the model, stored as
 * in PostgreSQL (model-secrets.ts): under the keyed hash of its id, without the id; codes
 * are also listed in a set per grant, so revoking a grant (code reuse, disconnect) deletes them.
 * Writes are atomic: an upsert is one MULTI, consume and revocation one script each.
 *
 * Fails fast: while Redis is unreachable every operation rejects at once (ProviderStoreUnavailable),
 * which the provider answers 503 `temporarily_unavailable` instead of leaving the authorize,
 * consent or token request hanging until Redis is back.
 */
export async function createRedisModelStore(
  url: string,
  options: { secrets: ModelSecrets; namespace?: string; logger?: Logger | undefined },
) {
  const { secrets } = options;
  const namespace = options.namespace ?? 'sheetgate:oidc:';
  const client = await createAuthRedisClient(url, {
    label: 'oidc models',
    logger: options.logger,
    failFast: true,
  });
  const grantKey = (grantId: string) => `${namespace}grant:${grantId}`;
  const attempt = async <T>(work: () => Promise<T>): Promise<T> => {
    try {
      return await work();
    } catch (error) {
      throw new ProviderStoreUnavailable(
        new StoreUnavailableError('the Redis store of short-lived OAuth models is unavailable', error),
      );
    }
  };

  class RedisAdapter implements Adapter {
    readonly model: string;
    constructor(model: string) {
      this.model = model;
    }

    /** The key of the model presented as `id`. */
    private key(id: string) {
      return this.storedKey(secrets.storedId(this.model, id));
    }

    private storedKey(storedId: string) {
      return `${namespace}${this.model}:${storedId}`;
    }

    private uidKey(uid: string) {
      return `${namespace}${this.model}:uid:${uid}`;
    }

    upsert(id: string, payload: AdapterPayload, expiresIn: number): Promise<void> {
      const storedId = secrets.storedId(this.model, id);
      const key = this.storedKey(storedId);
      const stored = secrets.toStored(this.model, id, payload);
      const ttl = Math.max(1, Math.ceil(expiresIn || FALLBACK_TTL_SECONDS));
      return attempt(async () => {
        const write = client.multi().del(key).hSet(key, 'payload', JSON.stringify(stored)).expire(key, ttl);
        if (payload.uid)
          write.set(this.uidKey(payload.uid), storedId, { expiration: { type: 'EX', value: ttl } });
        if (payload.grantId) {
          // The set lives as long as its longest-lived member: NX gives a new set its expiry, GT
          // lengthens it for a later member.
          const set = grantKey(payload.grantId);
          write.sAdd(set, key).expire(set, ttl, 'NX').expire(set, ttl, 'GT');
        }
        await write.exec();
      });
    }

    find(id: string): Promise<AdapterPayload | undefined> {
      return this.findStored(secrets.storedId(this.model, id), id);
    }

    async findByUid(uid: string): Promise<AdapterPayload | undefined> {
      const storedId = await attempt(() => client.get(this.uidKey(uid)));
      return storedId ? this.findStored(storedId, undefined) : undefined;
    }

    private async findStored(storedId: string, id: string | undefined): Promise<AdapterPayload | undefined> {
      const stored = await attempt(() => client.hGetAll(this.storedKey(storedId)));
      if (!stored.payload) return undefined;
      const payload = secrets.fromStored(this.model, JSON.parse(stored.payload) as AdapterPayload, {
        storedId,
        ...(id === undefined ? {} : { id }),
      });
      if (!payload) return undefined;
      return stored.consumed ? { ...payload, consumed: Number(stored.consumed) } : payload;
    }

    async findByUserCode(): Promise<AdapterPayload | undefined> {
      return undefined; // the device flow is not enabled
    }

    consume(id: string): Promise<void> {
      return attempt(async () => {
        await client.eval(CONSUME, {
          keys: [this.key(id)],
          arguments: [String(Math.floor(Date.now() / 1000))],
        });
      });
    }

    destroy(id: string): Promise<void> {
      return attempt(async () => {
        await client.del(this.key(id));
      });
    }

    revokeByGrantId(grantId: string): Promise<void> {
      return attempt(async () => {
        await client.eval(REVOKE_GRANT, { keys: [grantKey(grantId)] });
      });
    }
  }

  return {
    adapterFor: (model: string): Adapter => new RedisAdapter(model),
    async close() {
      await client.close();
    },
  };
}

export type RedisModelStore = Awaited<ReturnType<typeof createRedisModelStore>>;
