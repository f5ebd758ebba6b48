import { type FreezableRelay, startFreezableRelay } from '@sheetgate/test-harness';

export interface FreezableRedis extends FreezableRelay {
  /** The Redis URL (credentials and database kept) that reaches the real server through the relay. */
  url: string;
}

/**
 * A real Redis behind the test harness's freezable relay: `freeze()` makes it a hung Redis (a
 * stopped process, a partitioned network), which a stopped server is not — that one refuses
 * connections at once. Commands sent while frozen are held, not lost, and reach Redis in order on
 * `thaw()`.
 */
export async function startFreezableRedis(redisUrl: string): Promise<FreezableRedis> {
  const target = new URL(redisUrl);
  const relay = await startFreezableRelay({
    host: target.hostname.replace(/^\[(.*)\]$/, '$1'),
    port: Number(target.port || 6379),
  });
  const url = new URL(redisUrl);
  url.hostname = relay.host;
  url.port = String(relay.port);
  return { ...relay, url: url.toString() };
}
