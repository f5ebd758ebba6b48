export { type AuthRouteLimitOptions, rateLimitAuthRoutes } from './auth-route-limits.ts';
export {
  defaultRateLimitRules,
  type RateLimitName,
  type RateLimitRule,
  rateLimitNames,
} from './rate-limit-rules.ts';
export type { RateLimitDecision, RateLimiter, RateLimitLease } from './rate-limiter.ts';
export { createRateLimits, type RateLimits, type RateLimitsOptions } from './rate-limits.ts';
