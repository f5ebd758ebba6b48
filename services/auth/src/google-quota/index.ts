export { createMemoryQuotaScheduler } from './memory-quota-scheduler.ts';
export {
  GOOGLE_DEFAULT_QUOTAS,
  type GoogleQuotas,
  googleQuotas,
  LEASE_VALID_MS,
  MAX_LEASE_TURNS,
  QUOTA_BUCKETS,
  QUOTA_SETTING_NAMES,
  type QuotaBucket,
  type QuotaSettingName,
} from './quota-rules.ts';
export type { GoogleQuotaScheduler, QuotaLimitName, QuotaTurn, SchedulerTimings } from './quota-scheduler.ts';
export { createRedisQuotaScheduler } from './redis-quota-scheduler.ts';
