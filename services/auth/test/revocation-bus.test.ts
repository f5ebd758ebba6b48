import { randomBytes } from 'node:crypto';
import type { Revocation } from '@sheetgate/proto';
import { createLogger } from '@sheetgate/service-runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Announcement,
  createRedisRevocationBus,
  type RevocationBus,
  revocationBusNames,
} from '../src/edge-revocations/revocation-bus.ts';

// The relay between auth replicas over Redis (docs/design.md §4.6), namespaced by the deployment's
// key prefix: replicas of one deployment hear each other and wait for each other; another
// deployment on the same Redis (a test stack beside this one) is neither heard nor waited for.

const redisUrl = process.env.REDIS_URL;
const logger = createLogger({ service: 'test', level: 'silent' });

describe('the bus’s names in Redis', () => {
  it('are the historical ones without a prefix, and under the prefix otherwise', () => {
    expect(revocationBusNames()).toEqual({
      announced: 'sheetgate:auth:revocations:announced',
      delivered: 'sheetgate:auth:revocations:delivered',
      relays: 'sheetgate:auth:revocations:relays',
    });
    expect(revocationBusNames('e2e:ab12')).toEqual({
      announced: 'e2e:ab12:revocations:announced',
      delivered: 'e2e:ab12:revocations:delivered',
      relays: 'e2e:ab12:revocations:relays',
    });
  });
});

describe.skipIf(!redisUrl)('two deployments on one Redis', () => {
  const ours = `test:${randomBytes(6).toString('hex')}`;
  const theirs = `test:${randomBytes(6).toString('hex')}`;
  let first: RevocationBus;
  let second: RevocationBus;
  let other: RevocationBus;
  const heard = new Map<RevocationBus, Announcement[]>();
  const reports: Array<[string, string]> = [];

  /** Resolves with the announcement once `bus` hears one with `id`. */
  function hearing(bus: RevocationBus, id: string): Promise<Announcement> {
    return new Promise((resolve) =>
      bus.onAnnouncement((announcement) => announcement.id === id && resolve(announcement)),
    );
  }

  beforeAll(async () => {
    first = await createRedisRevocationBus({ redisUrl: redisUrl!, keyPrefix: ours, logger });
    second = await createRedisRevocationBus({ redisUrl: redisUrl!, keyPrefix: ours, logger });
    other = await createRedisRevocationBus({ redisUrl: redisUrl!, keyPrefix: theirs, logger });
    for (const bus of [first, second, other]) {
      heard.set(bus, []);
      bus.onAnnouncement((announcement) => heard.get(bus)!.push(announcement));
    }
    first.onDelivered((id, relayId) => reports.push([id, relayId]));
  });
  afterAll(async () => {
    await Promise.all([first, second, other].map((bus) => bus?.close()));
  });

  it('waits only for its own deployment’s relays', async () => {
    const live = await first.liveRelays();
    expect(live).toEqual(expect.arrayContaining([first.relayId, second.relayId]));
    expect(live).not.toContain(other.relayId);
    expect(await other.liveRelays()).toEqual([other.relayId]);
  });

  it('relays an announcement to its own deployment only, and hears only its own reports', async () => {
    const revocation: Revocation = { kind: 'api_key', keyId: `key-${randomBytes(4).toString('hex')}` };
    const ownId = randomBytes(8).toString('hex');
    const otherId = randomBytes(8).toString('hex');
    const atSecond = hearing(second, ownId);
    const atOther = hearing(other, otherId);
    await first.publish({ id: ownId, revocation });
    // Published after ours: had the other deployment been subscribed to our channel, Redis would
    // have handed it ours first.
    await other.publish({ id: otherId, revocation });
    expect(await atSecond).toEqual({ id: ownId, revocation });
    await atOther;
    expect(heard.get(other)!.map((announcement) => announcement.id)).toEqual([otherId]);
    expect(heard.get(first)!.map((announcement) => announcement.id)).toContain(ownId);
    expect(heard.get(first)!.map((announcement) => announcement.id)).not.toContain(otherId);

    // Reports likewise: the other deployment's report is not heard, ours (sent after it) is.
    const reported = new Promise<void>((resolve) => first.onDelivered((id) => id === ownId && resolve()));
    await other.reportDelivered(otherId);
    await second.reportDelivered(ownId);
    await reported;
    expect(reports).toEqual([[ownId, second.relayId]]);
  });
});
