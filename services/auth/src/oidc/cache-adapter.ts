import type { Adapter, AdapterPayload } from 'oidc-provider';
import type { Cache } from '../cache/cache.ts';

/** The short-lived models kept in the cache (Redis across replicas) rather than PostgreSQL. */
export const CACHED_MODELS = new Set(['Interaction', 'ReplayDetection', 'PushedAuthorizationRequest']);

/**
 * oidc-provider storage for short-lived models on the Cache: interactions live minutes and
 * replay-detection entries only need to outlive a token's validity, so losing them on a Redis
 * restart costs a person at most one retried sign-in. None of these models is bound to a grant.
 */
export function cacheAdapterFactory(cache: Cache) {
  return class CacheAdapter implements Adapter {
    readonly model: string;
    constructor(model: string) {
      this.model = model;
    }

    private key(id: string) {
      return `oidc:${this.model}:${id}`;
    }

    async upsert(id: string, payload: AdapterPayload, expiresIn: number): Promise<void> {
      await cache.set(this.key(id), JSON.stringify(payload), expiresIn || 3600);
      if (payload.uid) await cache.set(`oidc:${this.model}:uid:${payload.uid}`, id, expiresIn || 3600);
    }

    async find(id: string): Promise<AdapterPayload | undefined> {
      const stored = await cache.get(this.key(id));
      return stored ? (JSON.parse(stored) as AdapterPayload) : undefined;
    }

    async findByUid(uid: string): Promise<AdapterPayload | undefined> {
      const id = await cache.get(`oidc:${this.model}:uid:${uid}`);
      return id ? this.find(id) : undefined;
    }

    async findByUserCode(): Promise<AdapterPayload | undefined> {
      return undefined;
    }

    async consume(id: string): Promise<void> {
      const payload = await this.find(id);
      if (!payload) return;
      const now = Math.floor(Date.now() / 1000);
      const remaining = typeof payload.exp === 'number' ? Math.max(1, payload.exp - now) : 3600;
      await cache.set(this.key(id), JSON.stringify({ ...payload, consumed: now }), remaining);
    }

    async destroy(id: string): Promise<void> {
      await cache.delete(this.key(id));
    }

    async revokeByGrantId(): Promise<void> {}
  };
}
