import { type Logger, withDeadline } from '@sheetgate/service-runtime';
import type { createClient } from 'redis';

export type AuthRedisClient = ReturnType<typeof createClient>;

export interface AuthRedisClientOptions {
  /** What the client is for ("cache", "oidc models", …); named in every log line about it. */
  label: string;
  logger?: Logger | undefined;
  /**
   * Commands fail at once while disconnected (no offline queue) and when no reply has come within
   * COMMAND_TIMEOUT_MS, instead of waiting for Redis to come back: for request paths, which answer
   * "try again" (HTTP 503, gRPC UNAVAILABLE) or fall back to PostgreSQL rather than hang.
   */
  failFast?: boolean;
  /** Reconnect after a lost connection (services, the default), or fail (one-shot commands). */
  reconnect?: boolean;
}

/**
 * How long a fail-fast command may take. Generous, because the timer also counts the time this
 * process's event loop was busy elsewhere; a Redis that answers at all answers in milliseconds.
 */
const COMMAND_TIMEOUT_MS = 1_000;
/**
 * The most commands a fail-fast client keeps waiting for replies: a Redis that holds the
 * connection open and never answers would otherwise collect every request's command in memory.
 */
const MAX_QUEUED_COMMANDS = 10_000;
/** Calls that manage the connection rather than send a command; never given a reply deadline. */
const CONNECTION_CALLS = new Set<PropertyKey>(['connect', 'close', 'quit', 'disconnect', 'destroy']);
/** While Redis stays down node-redis reports every reconnection attempt; one line per interval is enough. */
const ERROR_LOG_INTERVAL_MS = 30_000;

/**
 * The one way auth connects to Redis (the cache, the provider's short-lived models, rate limits,
 * key revocations, reseal): connected before it is returned, reconnecting with backoff, and its
 * connection errors logged — at most one line per 30 s while they last, and a line when the
 * connection is back. (node-redis emits connection errors as events; without a listener they
 * would crash the process.)
 */
export async function createAuthRedisClient(
  url: string,
  options: AuthRedisClientOptions,
): Promise<AuthRedisClient> {
  const { label, logger } = options;
  // Loaded with the first client: without REDIS_URL (the local stack) auth never needs node-redis,
  // whose modules are a measurable share of every start's CPU (docs/design.md §10, docs/benchmarks.md).
  const { createClient } = await import('redis');
  const client = createClient({
    url,
    ...(options.failFast
      ? {
          disableOfflineQueue: true,
          commandOptions: { timeout: COMMAND_TIMEOUT_MS },
          commandsQueueMaxLength: MAX_QUEUED_COMMANDS,
        }
      : {}),
    socket: {
      connectTimeout: 5_000,
      reconnectStrategy: options.reconnect === false ? false : (retries) => Math.min(retries * 100, 2_000),
    },
  }) as AuthRedisClient;
  let lastLoggedAt = 0;
  let unlogged = 0;
  let failing = false;
  client.on('error', (error: unknown) => {
    failing = true;
    if (Date.now() - lastLoggedAt < ERROR_LOG_INTERVAL_MS) {
      unlogged += 1;
      return;
    }
    logger?.warn(
      { err: error, redis: label, errorsSinceLastLine: unlogged },
      `Redis (${label}): connection error`,
    );
    lastLoggedAt = Date.now();
    unlogged = 0;
  });
  client.on('ready', () => {
    if (!failing) return;
    logger?.info({ redis: label, errorsSinceLastLine: unlogged }, `Redis (${label}): connected again`);
    failing = false;
    lastLoggedAt = 0;
    unlogged = 0;
  });
  try {
    await client.connect();
  } catch (error) {
    client.destroy();
    throw error;
  }
  return options.failFast ? withReplyDeadline(client, label) : client;
}

/**
 * The client with a deadline on every reply. node-redis's command `timeout` only covers the time a
 * command waits to be written: once written it waits for its reply forever (RESP replies come in
 * order, so the client cannot skip one), and a Redis that keeps the connection open without
 * answering (a network partition, a stopped process) would hold every request. No client option
 * bounds that, so this does: the caller stops waiting after COMMAND_TIMEOUT_MS and the command
 * stays queued, its late reply consumed in order. Transactions (`multi()…exec()`) get the same.
 */
function withReplyDeadline(client: AuthRedisClient, label: string): AuthRedisClient {
  const deadline = <T>(reply: Promise<T>): Promise<T> =>
    withDeadline(
      reply,
      COMMAND_TIMEOUT_MS,
      () => new Error(`Redis (${label}) did not answer within ${COMMAND_TIMEOUT_MS} ms`),
    );
  const isThenable = (value: unknown): value is Promise<unknown> =>
    typeof (value as { then?: unknown } | null)?.then === 'function';
  // The builder's chained calls return the builder itself: keep them on the proxy so `exec` is ours.
  const transaction = (builder: object): object => {
    const proxy: object = new Proxy(builder, {
      get(target, property) {
        const value = Reflect.get(target, property, target);
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          const result = value.apply(target, args);
          if (result === target) return proxy;
          return isThenable(result) ? deadline(result) : result;
        };
      },
    });
    return proxy;
  };
  return new Proxy(client, {
    get(target, property) {
      const value = Reflect.get(target, property, target);
      if (typeof value !== 'function' || CONNECTION_CALLS.has(property)) {
        return typeof value === 'function' ? value.bind(target) : value;
      }
      return (...args: unknown[]) => {
        const result = value.apply(target, args);
        if (isThenable(result)) return deadline(result);
        if (property === 'multi' && result && typeof result === 'object') return transaction(result);
        return result;
      };
    },
  });
}

/**
 * A fail-fast client and a subscriber for publish/subscribe (a connection that subscribes can send
 * nothing else): both or neither — one opened beside a failure is closed, not left open for good.
 */
export async function createAuthRedisPubSub(
  url: string,
  options: { label: string; logger?: Logger | undefined },
): Promise<{ client: AuthRedisClient; subscriber: AuthRedisClient }> {
  const connect = (label: string) =>
    createAuthRedisClient(url, { label, logger: options.logger, failFast: true });
  const connecting = await Promise.allSettled([
    connect(options.label),
    connect(`${options.label} (subscriber)`),
  ]);
  const opened = connecting.flatMap((attempt) => (attempt.status === 'fulfilled' ? [attempt.value] : []));
  const failed = connecting.find((attempt) => attempt.status === 'rejected');
  if (failed) {
    for (const connection of opened) connection.destroy();
    throw failed.reason;
  }
  const [client, subscriber] = opened as [AuthRedisClient, AuthRedisClient];
  return { client, subscriber };
}
