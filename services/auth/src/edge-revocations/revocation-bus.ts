import { randomUUID } from 'node:crypto';
import type { Revocation } from '@sheetgate/proto';
import type { Logger } from '@sheetgate/service-runtime';
import { z } from 'zod';
import { createAuthRedisPubSub } from '../cache/redis-client.ts';

/** A revocation on its way to every auth replica's MCP streams, named so deliveries can be reported. */
export interface Announcement {
  id: string;
  revocation: Revocation;
}

/**
 * How auth replicas (each one a relay to the MCP replicas streaming from it) hear every
 * revocation, whichever replica made it, and tell the announcing replica once their streams have
 * it. In-process with one replica; Redis Pub/Sub with several, with each relay's presence in a
 * sorted set so the announcer knows whose report to wait for.
 */
export interface RevocationBus {
  readonly relayId: string;
  /** The relays alive now, this one included. */
  liveRelays(): Promise<string[]>;
  /** Sends the announcement to every relay, this one included; rejects when it could not. */
  publish(announcement: Announcement): Promise<void>;
  onAnnouncement(listener: (announcement: Announcement) => void): void;
  /** Tells the announcer this relay's streams acknowledged it (or can no longer trust themselves). */
  reportDelivered(announcementId: string): Promise<void>;
  onDelivered(listener: (announcementId: string, relayId: string) => void): void;
  /**
   * Whether this relay hears every announcement now. Pub/Sub loses what is published while a
   * subscriber is disconnected, so while it is not, this relay's MCP replicas must not be told
   * they are current (their streams are ended and refused until it is back).
   */
  hearing(): boolean;
  /** Called when `hearing()` changes. */
  onHearingChange(listener: (hearing: boolean) => void): void;
  close(): Promise<void>;
}

/** Without Redis there is one auth replica (docs/design.md §6): the bus is a function call. */
export function createInProcessRevocationBus(): RevocationBus {
  const relayId = randomUUID();
  const announced: Array<(announcement: Announcement) => void> = [];
  const delivered: Array<(announcementId: string, relayId: string) => void> = [];
  return {
    relayId,
    liveRelays: async () => [relayId],
    async publish(announcement) {
      for (const listener of announced) listener(announcement);
    },
    onAnnouncement: (listener) => void announced.push(listener),
    async reportDelivered(announcementId) {
      for (const listener of delivered) listener(announcementId, relayId);
    },
    onDelivered: (listener) => void delivered.push(listener),
    hearing: () => true,
    onHearingChange: () => {},
    close: async () => {},
  };
}

/**
 * The bus's channels and presence set in Redis, under the deployment's key prefix
 * (RATE_LIMIT_KEY_PREFIX): deployments that share one Redis — test stacks running side by side —
 * neither relay each other's revocations nor wait for each other's relays. Without a prefix (the
 * setting's default) the names are those the bus always had, so a rollout keeps relaying.
 */
export function revocationBusNames(keyPrefix?: string) {
  const base = keyPrefix === undefined ? 'sheetgate:auth:revocations' : `${keyPrefix}:revocations`;
  return { announced: `${base}:announced`, delivered: `${base}:delivered`, relays: `${base}:relays` };
}
/** How often a relay says it is alive, and how long that lasts: three missed beats and it is gone. */
const PRESENCE_INTERVAL_MS = 1_000;
const PRESENCE_TTL_MS = 3_000;

const revocationSchema: z.ZodType<Revocation> = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('api_key'), keyId: z.string().min(1) }),
  z.object({ kind: z.literal('google_connection'), userId: z.string().min(1) }),
  z.object({ kind: z.literal('grant'), grantId: z.string().min(1), coversUntil: z.number() }),
  z.object({
    kind: z.literal('person'),
    userId: z.string().min(1),
    revokedAt: z.number(),
    coversUntil: z.number(),
  }),
  z.object({ kind: z.literal('signing_key'), keyId: z.string().min(1), coversUntil: z.number() }),
  z.object({ kind: z.literal('provider_reset'), resetAt: z.number(), coversUntil: z.number() }),
]);
const announcementSchema = z.object({ id: z.string().min(1), revocation: revocationSchema });
const deliverySchema = z.object({ id: z.string().min(1), relayId: z.string().min(1) });

function parsed<T>(schema: z.ZodType<T>, message: string): T | undefined {
  try {
    const result = schema.safeParse(JSON.parse(message));
    return result.success ? result.data : undefined;
  } catch {
    return undefined;
  }
}

/** The bus over Redis, for any number of auth replicas. */
export async function createRedisRevocationBus(options: {
  redisUrl: string;
  /** See `revocationBusNames`. */
  keyPrefix?: string | undefined;
  logger?: Logger | undefined;
}): Promise<RevocationBus> {
  const relayId = randomUUID();
  const names = revocationBusNames(options.keyPrefix);
  // Fail fast: a revocation that cannot be relayed is answered "try again", not held.
  const { client, subscriber } = await createAuthRedisPubSub(options.redisUrl, {
    label: 'revocation relay',
    logger: options.logger,
  });
  const announced: Array<(announcement: Announcement) => void> = [];
  const delivered: Array<(announcementId: string, relayId: string) => void> = [];
  const beat = () => client.zAdd(names.relays, { score: Date.now() + PRESENCE_TTL_MS, value: relayId });
  let hearing = true;
  const hearingListeners: Array<(hearing: boolean) => void> = [];
  const setHearing = (now: boolean) => {
    if (now === hearing) return;
    hearing = now;
    for (const listener of hearingListeners) listener(now);
  };
  // node-redis subscribes again on reconnecting, before it is ready.
  subscriber.on('ready', () => setHearing(true));
  for (const lost of ['error', 'end', 'reconnecting']) subscriber.on(lost, () => setHearing(false));
  try {
    await subscriber.subscribe(names.announced, (message) => {
      const announcement = parsed(announcementSchema, message);
      if (!announcement) {
        options.logger?.warn('a revocation announcement on Redis was not understood; ignored');
        return;
      }
      for (const listener of announced) listener(announcement);
    });
    await subscriber.subscribe(names.delivered, (message) => {
      const delivery = parsed(deliverySchema, message);
      if (delivery) for (const listener of delivered) listener(delivery.id, delivery.relayId);
    });
    await beat();
  } catch (error) {
    client.destroy();
    subscriber.destroy();
    throw error;
  }
  const presence = setInterval(() => {
    beat().catch(() => {}); // the client logs its connection errors
  }, PRESENCE_INTERVAL_MS);
  presence.unref();

  return {
    relayId,
    async liveRelays() {
      const now = Date.now();
      const live = await client.zRangeByScore(names.relays, now, '+inf');
      // Relays that stopped without saying so are pruned by whoever looks.
      client.zRemRangeByScore(names.relays, '-inf', now).catch(() => {});
      return live.includes(relayId) ? live : [...live, relayId];
    },
    async publish(announcement) {
      await client.publish(names.announced, JSON.stringify(announcement));
    },
    onAnnouncement: (listener) => void announced.push(listener),
    async reportDelivered(announcementId) {
      await client.publish(names.delivered, JSON.stringify({ id: announcementId, relayId }));
    },
    onDelivered: (listener) => void delivered.push(listener),
    hearing: () => hearing,
    onHearingChange: (listener) => void hearingListeners.push(listener),
    async close() {
      clearInterval(presence);
      await client.zRem(names.relays, relayId).catch(() => {});
      await Promise.all([subscriber.close(), client.close()]);
    },
  };
}

/** Redis when configured (any number of replicas), else in-process (one replica). */
export function createRevocationBus(options: {
  redisUrl?: string | undefined;
  keyPrefix?: string | undefined;
  logger?: Logger | undefined;
}): Promise<RevocationBus> {
  return options.redisUrl
    ? createRedisRevocationBus({
        redisUrl: options.redisUrl,
        keyPrefix: options.keyPrefix,
        logger: options.logger,
      })
    : Promise.resolve(createInProcessRevocationBus());
}
