import type { Logger } from '@sheetgate/service-runtime';
import {
  type RateLimiterAbstract,
  RateLimiterMemory,
  RateLimiterPostgres,
  RateLimiterRedis,
} from 'rate-limiter-flexible';
import { createAuthRedisClient } from '../cache/redis-client.ts';
import { namedStatementsWhereSafe } from '../db/named-statements.ts';
import type { DatabasePool } from '../db/pool.ts';
import { createRateLimitQueries } from './rate-limit-queries.ts';
import {
  defaultRateLimitRules,
  type RateLimitName,
  type RateLimitRule,
  rateLimitNames,
} from './rate-limit-rules.ts';
import { type RateLimiter, wrapLimiter } from './rate-limiter.ts';

export interface RateLimitsOptions {
  /** Counters on Redis when set (shared by every replica), else in PostgreSQL's `rate_limits`. */
  redisUrl?: string;
  pool: DatabasePool;
  /** Overrides of the default limits (tests use tiny ones). */
  rules?: Partial<Record<RateLimitName, RateLimitRule>>;
  /** Namespace of the counters' keys; lets tests share one Redis or database without colliding. */
  keyPrefix?: string;
  logger?: Logger;
}

export type RateLimits = Record<RateLimitName, RateLimiter> & {
  readonly backend: 'redis' | 'postgres';
  close(): Promise<void>;
};

const SWEEP_INTERVAL_MS = 5 * 60_000;

/**
 * The named rate limiters (`apiKey`, `apiKeyFailures`, `authIp`, `register`, `token`, `signIn`) on Redis, or on
 * PostgreSQL when no Redis is configured. Each store limiter is backed by an in-memory one
 * (rate-limiter-flexible's `insuranceLimiter`) that answers per replica while the store is
 * unreachable, so an outage of Redis neither opens the gates completely nor fails every request.
 */
export async function createRateLimits(options: RateLimitsOptions): Promise<RateLimits> {
  const prefix = options.keyPrefix ?? 'sheetgate:rl';
  const rules = { ...defaultRateLimitRules, ...options.rules };
  const closers: Array<() => Promise<void>> = [];
  let makeStoreLimiter: (name: RateLimitName, rule: RateLimitRule) => RateLimiterAbstract;

  if (options.redisUrl) {
    const client = await createAuthRedisClient(options.redisUrl, {
      label: 'rate limits',
      logger: options.logger,
      // A Redis that holds the connection open but never answers must not hold every rate-limited
      // request with it: after the command timeout the insurance limiter answers instead.
      failFast: true,
    });
    closers.push(async () => void (await client.close()));
    makeStoreLimiter = (name, rule) =>
      new RateLimiterRedis({
        storeClient: client,
        // node-redis v4+ (here v6): camel-case commands and eval(script, { keys, arguments }).
        useRedisPackage: true,
        // While disconnected, answer from the insurance limiter instead of queueing commands
        // behind node-redis's offline queue (which would stall every request until reconnection).
        rejectIfRedisNotReady: true,
        keyPrefix: `${prefix}:${name}`,
        points: rule.points,
        duration: rule.durationSeconds,
        insuranceLimiter: new RateLimiterMemory({ points: rule.points, duration: rule.durationSeconds }),
      });
  } else {
    const queries = createRateLimitQueries(options.pool);
    const sweep = setInterval(() => {
      queries
        .deleteExpired(Date.now())
        .catch((error: unknown) => options.logger?.warn({ err: error }, 'rate-limit sweep failed'));
    }, SWEEP_INTERVAL_MS);
    sweep.unref();
    closers.push(async () => clearInterval(sweep));
    // The library names its statements; the embedded PGlite cannot take that from a pool.
    const storeClient = namedStatementsWhereSafe(options.pool);
    makeStoreLimiter = (name, rule) =>
      new RateLimiterPostgres({
        storeClient,
        storeType: 'pool',
        tableName: 'rate_limits',
        // The table comes from our migration; the library must not run DDL at start-up.
        tableCreated: true,
        // One sweep above for every limiter instead of one timer per limiter that cannot be stopped.
        clearExpiredByTimeout: false,
        keyPrefix: `${prefix}:${name}`,
        points: rule.points,
        duration: rule.durationSeconds,
        insuranceLimiter: new RateLimiterMemory({ points: rule.points, duration: rule.durationSeconds }),
      });
  }

  const limiters = Object.fromEntries(
    rateLimitNames.map((name) => [name, wrapLimiter(name, rules[name], makeStoreLimiter(name, rules[name]))]),
  ) as Record<RateLimitName, RateLimiter>;

  return {
    ...limiters,
    backend: options.redisUrl ? 'redis' : 'postgres',
    async close() {
      for (const close of closers) await close();
    },
  };
}
