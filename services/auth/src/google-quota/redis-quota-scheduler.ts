import type { Logger } from '@sheetgate/service-runtime';
import { createAuthRedisClient } from '../cache/redis-client.ts';
import { StoreUnavailableError } from '../cache/store-unavailable.ts';
import {
  fairSharePollMs,
  GOOGLE_HOLD_WITHOUT_RETRY_AFTER_MS,
  type GoogleQuotas,
  MAX_PROJECT_WAIT_HINT_MS,
  newcomersReserve,
  QUOTA_BUCKETS,
  QUOTA_WINDOW_MS,
  type QuotaBucket,
} from './quota-rules.ts';
import type { GoogleQuotaScheduler, QuotaLimitName, QuotaTurn, SchedulerTimings } from './quota-scheduler.ts';

/**
 * One turn, atomically, by the rules of `quota-scheduler.ts` (the memory scheduler takes the same
 * steps). Every replica shares Redis's clock (TIME), not its own. Sorted sets hold the minute's
 * grants (score: when), who shares the minute (asked within it, or waiting: score until when) and
 * who is waiting below their share (score: until when); the holds Google asked for are keys that
 * expire.
 *   KEYS: project log, person's log, active people, waiting people, project hold, person's hold, sequence
 *   ARGV: person, per-project quota, per-user quota, window ms, fair-share poll ms, longest project
 *         wait hint ms, newcomers' reserve, turns requested (a lease: see `mayLease`, which this
 *         mirrors)
 * Returns {granted (0|1), retry after ms or (granted) the turns granted, limited by}.
 */
const TURN = `
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
local person = ARGV[1]
local perProject = tonumber(ARGV[2])
local perUser = tonumber(ARGV[3])
local window = tonumber(ARGV[4])
local poll = tonumber(ARGV[5])
local maxHint = tonumber(ARGV[6])
local reserve = tonumber(ARGV[7])
local requested = tonumber(ARGV[8])
local since = now - window
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', since)
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', since)
redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now)
redis.call('ZREMRANGEBYSCORE', KEYS[4], '-inf', now)
local held = math.max(redis.call('PTTL', KEYS[5]), redis.call('PTTL', KEYS[6]))
if held > 0 then return {0, held, 'google'} end
local own = redis.call('ZCARD', KEYS[2])
if own >= perUser then
  local oldest = redis.call('ZRANGE', KEYS[2], 0, 0, 'WITHSCORES')
  return {0, math.max(1, tonumber(oldest[2]) + window - now), 'person'}
end
redis.call('ZADD', KEYS[3], 'GT', now + window, person)
redis.call('PEXPIRE', KEYS[3], window + 2 * maxHint)
local active = redis.call('ZCARD', KEYS[3])
local underShare = own < math.ceil(perProject / active)
local projectCount = redis.call('ZCARD', KEYS[1])
if projectCount >= perProject then
  local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
  local wait = math.max(1, tonumber(oldest[2]) + window - now)
  if not underShare then return {0, wait, 'project'} end
  local hint = math.min(wait, maxHint)
  redis.call('ZADD', KEYS[4], now + hint + maxHint, person)
  redis.call('PEXPIRE', KEYS[4], window + 2 * maxHint)
  redis.call('ZADD', KEYS[3], 'GT', now + hint + maxHint, person)
  return {0, hint, 'project'}
end
if not underShare then
  local waiting = redis.call('ZCARD', KEYS[4])
  if redis.call('ZSCORE', KEYS[4], person) then waiting = waiting - 1 end
  if waiting > 0 then return {0, poll, 'fair_share'} end
end
if projectCount >= perProject - reserve and own >= math.ceil(perProject / (active + 1)) then
  local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
  return {0, math.max(1, tonumber(oldest[2]) + window - now), 'fair_share'}
end
local turns = 1
if requested > 1 and redis.call('ZCARD', KEYS[4]) == 0
  and own + requested <= math.floor(perUser / 2)
  and projectCount + requested <= math.floor((perProject - reserve) / 2) then
  turns = requested
end
local last = redis.call('INCRBY', KEYS[7], turns)
for i = 1, turns do
  local grant = now .. ':' .. (last - turns + i)
  redis.call('ZADD', KEYS[1], now, grant)
  redis.call('ZADD', KEYS[2], now, grant)
end
redis.call('PEXPIRE', KEYS[1], window)
redis.call('PEXPIRE', KEYS[2], window)
redis.call('ZREM', KEYS[4], person)
return {1, turns, ''}
`;

/**
 * Gives back up to ARGV[1] of the person's newest grants (KEYS: person's log, project log): the
 * person's log names them, and the same members leave the project's.
 */
const GIVE_BACK = `
local popped = redis.call('ZPOPMAX', KEYS[1], tonumber(ARGV[1]))
for i = 1, #popped, 2 do redis.call('ZREM', KEYS[2], popped[i]) end
return #popped / 2
`;

/** Holds a bucket closed for `ARGV[1]` ms unless a longer hold is already set. */
const HOLD = `
if redis.call('PTTL', KEYS[1]) < tonumber(ARGV[1]) then
  redis.call('SET', KEYS[1], '1', 'PX', ARGV[1])
end
return 1
`;

/**
 * The scheduler on Redis, shared by every auth replica (and so by every MCP replica). Keys live
 * under `{prefix}:gq:{bucket}:…`; the bucket in braces keeps one bucket's keys in one Redis
 * Cluster slot, as a script needs. Fails fast: while Redis is unreachable a turn rejects with a
 * StoreUnavailableError (gRPC UNAVAILABLE), and the MCP replica lets Google decide.
 */
export async function createRedisQuotaScheduler(
  options: {
    url: string;
    quotas: GoogleQuotas;
    keyPrefix: string;
    logger?: Logger | undefined;
  } & SchedulerTimings,
): Promise<GoogleQuotaScheduler> {
  const windowMs = options.windowMs ?? QUOTA_WINDOW_MS;
  const maxProjectWaitHintMs = options.maxProjectWaitHintMs ?? MAX_PROJECT_WAIT_HINT_MS;
  const client = await createAuthRedisClient(options.url, {
    label: 'google quota',
    logger: options.logger,
    failFast: true,
  });
  const keys = (bucket: string, person: string) => {
    const base = `${options.keyPrefix}:gq:{${bucket}}`;
    return {
      turn: [
        `${base}:project`,
        `${base}:person:${person}`,
        `${base}:active`,
        `${base}:waiting`,
        `${base}:hold:project`,
        `${base}:hold:person:${person}`,
        `${base}:sequence`,
      ],
      projectHold: `${base}:hold:project`,
      personHold: `${base}:hold:person:${person}`,
    };
  };
  const attempt = async <T>(work: () => Promise<T>): Promise<T> => {
    try {
      return await work();
    } catch (error) {
      throw new StoreUnavailableError('Redis (Google quota) is unavailable', error);
    }
  };
  return {
    acquire: (userId, bucket, requested = 1) =>
      attempt(async (): Promise<QuotaTurn> => {
        const quota = options.quotas[bucket];
        const [granted, retryAfterMs, limitedBy] = (await client.eval(TURN, {
          keys: keys(bucket, userId).turn,
          arguments: [
            userId,
            String(quota.perProject),
            String(quota.perUser),
            String(windowMs),
            String(fairSharePollMs(quota, windowMs)),
            String(maxProjectWaitHintMs),
            String(newcomersReserve(quota)),
            String(requested),
          ],
        })) as [number, number, string];
        return granted === 1
          ? { granted: true, turns: retryAfterMs }
          : {
              granted: false,
              retryAfterMs: Math.max(1, retryAfterMs),
              limitedBy: limitedBy as QuotaLimitName,
            };
      }),
    giveBack: (userId, bucket, count) =>
      attempt(async () => {
        const [project, person] = keys(bucket, userId).turn;
        await client.eval(GIVE_BACK, { keys: [person!, project!], arguments: [String(count)] });
      }),
    exhausted: (userId, bucket, perUser, retryAfterSeconds) =>
      attempt(async () => {
        const bucketKeys = keys(bucket, userId);
        const ms = retryAfterSeconds ? retryAfterSeconds * 1000 : GOOGLE_HOLD_WITHOUT_RETRY_AFTER_MS;
        await client.eval(HOLD, {
          keys: [perUser ? bucketKeys.personHold : bucketKeys.projectHold],
          arguments: [String(ms)],
        });
      }),
    people: () =>
      attempt(async () => {
        // Scores are until when someone counts; entries past it are pruned by the next turn.
        const now = String(Date.now());
        const counts = await Promise.all(
          QUOTA_BUCKETS.map(async (bucket) => {
            const [, , active, waiting] = keys(bucket, '').turn;
            return [
              bucket,
              {
                active: await client.zCount(active!, now, '+inf'),
                waiting: await client.zCount(waiting!, now, '+inf'),
              },
            ] as const;
          }),
        );
        return Object.fromEntries(counts) as Record<QuotaBucket, { active: number; waiting: number }>;
      }),
    async close() {
      await client.close();
    },
  };
}
