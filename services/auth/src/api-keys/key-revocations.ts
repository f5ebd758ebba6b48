import { randomUUID } from 'node:crypto';
import type { Logger } from '@sheetgate/service-runtime';
import { createAuthRedisPubSub } from '../cache/redis-client.ts';

/**
 * How auth replicas learn that an API key was revoked (docs/design.md §5: the revocation version
 * and its publish), so a replica may cache verified keys and still refuse a revoked one on the very
 * next request.
 *
 * The guarantee comes from `version()`: a value that changes with every revocation and is read
 * on every resolve. A verified key is trusted from cache only under the version read before its
 * row was read; a revocation commits, then changes the version, then answers, so any resolve that
 * starts after the answer sees a new version and goes back to PostgreSQL. The publish is a
 * courtesy that frees the revoked entry on every replica at once.
 */
export interface KeyRevocations {
  /** Where the version lives: one process, or Redis shared by every replica. */
  readonly backend: 'in-process' | 'redis';
  /**
   * The current revocation version, or undefined when it cannot be known (Redis unreachable, or
   * the version was just found missing and replaced): then nothing cached may be trusted and every
   * key is read from PostgreSQL.
   */
  version(): Promise<string | undefined>;
  /**
   * Changes the version and tells every replica `keyId` was revoked. Resolves once any later
   * `version()` on any replica sees the change; rejects when that could not be ensured.
   */
  announce(keyId: string): Promise<void>;
  /** Called with the key id whenever any replica announces a revocation. */
  onRevoked(listener: (keyId: string) => void): void;
  close(): Promise<void>;
}

/** Without Redis there is one auth replica (docs/design.md §6): the version lives in this process. */
export function createInProcessKeyRevocations(): KeyRevocations {
  let generation = 0;
  const listeners: Array<(keyId: string) => void> = [];
  return {
    backend: 'in-process',
    version: async () => `local:${generation}`,
    async announce(keyId) {
      generation++;
      for (const listener of listeners) listener(keyId);
    },
    onRevoked: (listener) => void listeners.push(listener),
    close: async () => {},
  };
}

/**
 * The version's key and the channel in Redis, under the deployment's key prefix
 * (RATE_LIMIT_KEY_PREFIX): deployments that share one Redis — test stacks running side by side —
 * neither see each other's revocations as a change of version (which would send every key of
 * theirs back to PostgreSQL) nor hear each other's key ids. Without a prefix (the setting's
 * default) the names are those the version always had, so a rollout keeps one version.
 */
export function keyRevocationNames(keyPrefix?: string) {
  const base = keyPrefix === undefined ? 'sheetgate:auth:api-keys' : `${keyPrefix}:api-keys`;
  return { version: `${base}:revocation-version`, channel: `${base}:revoked` };
}

/**
 * The version in Redis, shared by every replica. It is a random value rather than a counter so it
 * never returns to an earlier value: were Redis to lose the key (restart, eviction), an old
 * counter value could come back and make a stale cache entry look current.
 */
export async function createRedisKeyRevocations(options: {
  redisUrl: string;
  /** See `keyRevocationNames`. */
  keyPrefix?: string | undefined;
  logger?: Logger;
}): Promise<KeyRevocations> {
  const names = keyRevocationNames(options.keyPrefix);
  // Fail fast: a Redis that is down or hangs must not hang API-key requests; an unknown version
  // means the resolve reads PostgreSQL instead. (The subscriber's errors are logged by the
  // factory: a subscription that died silently would leave this replica trusting cached keys
  // revoked elsewhere until the version next changed.)
  const { client, subscriber } = await createAuthRedisPubSub(options.redisUrl, {
    label: 'key revocations',
    logger: options.logger,
  });
  const listeners: Array<(keyId: string) => void> = [];
  try {
    await subscriber.subscribe(names.channel, (keyId) => {
      for (const listener of listeners) listener(keyId);
    });
  } catch (error) {
    client.destroy();
    subscriber.destroy();
    throw error;
  }
  // Written now when missing, as `version()` would, rather than by the first resolve, which then
  // trusts nothing it caches: a new deployment (a test stack under a prefix of its own) keeps the
  // first keys it verifies. Not written (Redis down): `version()` tries again.
  await client.set(names.version, randomUUID(), { condition: 'NX' }).catch(() => {});
  return {
    backend: 'redis',
    async version() {
      try {
        const current = await client.get(names.version);
        if (current !== null) return current;
        // Never written, or lost (restart, eviction) after a revocation wrote it: a fixed stand-in
        // would match entries cached before that revocation. A fresh random value matches none;
        // until it is read back, this resolve trusts nothing cached.
        await client.set(names.version, randomUUID(), { condition: 'NX' });
        return undefined;
      } catch {
        return undefined;
      }
    },
    async announce(keyId) {
      await client.set(names.version, randomUUID());
      await client.publish(names.channel, keyId).catch((error: unknown) => {
        options.logger?.warn({ err: error }, 'could not publish a key revocation (the version changed)');
      });
    },
    onRevoked: (listener) => void listeners.push(listener),
    async close() {
      await Promise.all([subscriber.close(), client.close()]);
    },
  };
}

/** Redis when configured (any number of replicas), else in-process (one replica). */
export function createKeyRevocations(options: {
  redisUrl?: string | undefined;
  keyPrefix?: string | undefined;
  logger?: Logger;
}) {
  return options.redisUrl
    ? createRedisKeyRevocations({
        redisUrl: options.redisUrl,
        keyPrefix: options.keyPrefix,
        ...(options.logger ? { logger: options.logger } : {}),
      })
    : Promise.resolve(createInProcessKeyRevocations());
}
