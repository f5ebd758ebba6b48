import { createServiceMetrics } from '@sheetgate/service-runtime';
import {
  type GoogleQuotaScheduler,
  QUOTA_BUCKETS,
  type QuotaBucket,
  type QuotaTurn,
} from '../google-quota/index.ts';
import { SIGN_OUT_PATH } from '../interactions/sign-out-route.ts';
import { AS_METADATA_PATH, OIDC_ROUTES, OPENID_DISCOVERY_PATH } from '../oidc/routes.ts';
import type { RateLimiter, RateLimitName, RateLimits } from '../rate-limits/index.ts';
import { rateLimitNames } from '../rate-limits/index.ts';

/**
 * The route templates of auth's HTTP port: every provider endpoint (and what it serves below
 * itself: /authorize/<uid>, registration management), interactions, Google sign-in, sign-out and
 * discovery. Anything else counts as `unmatched`, so a scanner cannot add label values.
 */
export const AUTH_HTTP_ROUTES = [
  ...Object.values(OIDC_ROUTES).flatMap((route) => [route, `${route}/*`]),
  '/api/auth/interaction/*',
  '/api/auth/google/*',
  SIGN_OUT_PATH,
  ...[OPENID_DISCOVERY_PATH, AS_METADATA_PATH].flatMap((path) => [path, `${path}/*`]),
];

/** How a Google refresh-token grant ended (`sheetgate_auth_google_token_refreshes_total`). */
export type GoogleRefreshOutcome = 'ok' | 'invalid_grant' | 'unavailable' | 'refused';

/**
 * auth's Prometheus series: the HTTP series every service has, rate-limit refusals by limit, and
 * Google token refreshes by outcome (its gRPC calls: `startGrpcServer`'s `callMetrics`, @sheetgate/proto).
 */
export function createAuthMetrics() {
  const metrics = createServiceMetrics('auth', { routes: AUTH_HTTP_ROUTES });
  const rateLimitRefusals = metrics.counter({
    name: 'sheetgate_auth_rate_limit_refusals_total',
    help: 'Requests refused by a rate limit (answered 429 or RATE_LIMITED), by limit.',
    labelNames: ['limit'] as const,
  });
  const apiKeyLookups = metrics.counter({
    name: 'sheetgate_auth_api_key_lookups_total',
    help: 'PostgreSQL reads of presented API keys (one per ResolveApiKeys batch holding keys the verified-key cache could not vouch for).',
  });
  const googleRefreshes = metrics.counter({
    name: 'sheetgate_auth_google_token_refreshes_total',
    help: 'Google refresh-token grants, by outcome: ok, invalid_grant (the person must reconnect), unavailable (Google down or slow; retried), refused (any other refusal).',
    labelNames: ['outcome'] as const,
  });
  const googleQuotaTurns = metrics.counter({
    name: 'sheetgate_auth_google_quota_turns_total',
    help: "Turns at Google's per-minute quotas asked by MCP replicas (one per Google request, and one per retry while it waits), by bucket (sheets_read, sheets_write, drive) and outcome: granted, or what held it back (person, project, fair_share, google).",
    labelNames: ['bucket', 'outcome'] as const,
  });
  const journalEntries = metrics.counter({
    name: 'sheetgate_auth_change_journal_entries_total',
    help: "Change journal entries the MCP service sent, by outcome: recorded, without_undo (stored without before-images: the person's journal was full), refused (a malformed batch).",
    labelNames: ['outcome'] as const,
  });
  for (const outcome of ['recorded', 'without_undo', 'refused'] as const) journalEntries.inc({ outcome }, 0);
  // Read when scraped (`watchGoogleQuota`).
  let googleQuotaPeople: GoogleQuotaScheduler['people'] | undefined;
  metrics.gauge({
    name: 'sheetgate_auth_google_quota_people',
    help: "People sharing each Google quota bucket's minute now, by state: active (asked within the minute, or wait), waiting (below their fair share, for the project's minute to have room).",
    labelNames: ['bucket', 'state'] as const,
    async collect() {
      if (!googleQuotaPeople) return;
      try {
        for (const [bucket, counts] of Object.entries(await googleQuotaPeople())) {
          this.set({ bucket, state: 'active' }, counts.active);
          this.set({ bucket, state: 'waiting' }, counts.waiting);
        }
      } catch {
        // The store is down: the series keep their last values (auth's readiness says why).
      }
    },
  });
  // Zero-valued series from the start, so alerts on rates see every label before its first event.
  for (const bucket of QUOTA_BUCKETS)
    for (const outcome of ['granted', 'person', 'project', 'fair_share', 'google'] as const)
      googleQuotaTurns.inc({ bucket, outcome }, 0);
  for (const limit of rateLimitNames) rateLimitRefusals.inc({ limit }, 0);
  for (const outcome of ['ok', 'invalid_grant', 'unavailable', 'refused'] as const)
    googleRefreshes.inc({ outcome }, 0);

  // Read when scraped (`countRevocationStreams`).
  let revocationStreams = () => 0;
  metrics.gauge({
    name: 'sheetgate_auth_revocation_streams',
    help: 'MCP replicas holding their revocation stream open to this auth replica.',
    collect() {
      this.set(revocationStreams());
    },
  });

  return {
    collector: metrics,

    /** The same limits, with every refused request counted by limit name. */
    countRateLimitRefusals(limits: RateLimits): RateLimits {
      const counted = (limiter: RateLimiter): RateLimiter => ({
        ...limiter,
        async consume(key) {
          const decision = await limiter.consume(key);
          if (!decision.allowed) rateLimitRefusals.inc({ limit: limiter.name });
          return decision;
        },
        async consumeMany(keys) {
          const decisions = await limiter.consumeMany(keys);
          const refused = decisions.filter((decision) => !decision.allowed).length;
          if (refused > 0) rateLimitRefusals.inc({ limit: limiter.name }, refused);
          return decisions;
        },
        // A lease granting nothing is one request the replica answers 429 (those it refuses
        // from a spent lease later are not seen here).
        async lease(key, requested) {
          const lease = await limiter.lease(key, requested);
          if (lease.granted === 0) rateLimitRefusals.inc({ limit: limiter.name });
          return lease;
        },
      });
      const wrapped = { ...limits };
      for (const name of rateLimitNames)
        (wrapped as Record<RateLimitName, RateLimiter>)[name] = counted(limits[name]);
      return wrapped;
    },

    /** Where the revocation-stream gauge reads from. */
    countRevocationStreams(connected: () => number): void {
      revocationStreams = connected;
    },

    apiKeyLookedUp(): void {
      apiKeyLookups.inc();
    },

    /** Keys refused without a lookup because their address is past `apiKeyFailures`. */
    apiKeysThrottledUnread(keys: number): void {
      rateLimitRefusals.inc({ limit: 'apiKeyFailures' }, keys);
    },

    /** Where the quota-people gauge reads from. */
    watchGoogleQuota(scheduler: Pick<GoogleQuotaScheduler, 'people'>): void {
      googleQuotaPeople = () => scheduler.people();
    },

    /** Counts one turn at Google's quota (google-quota-service.ts's `onTurn`). */
    googleQuotaTurn(bucket: QuotaBucket, turn: QuotaTurn): void {
      googleQuotaTurns.inc({ bucket, outcome: turn.granted ? 'granted' : turn.limitedBy });
    },

    /** Counts change journal entries (change-journal-service.ts's `onRecorded`). */
    changesRecorded(outcome: 'recorded' | 'without_undo' | 'refused', count: number): void {
      if (count > 0) journalEntries.inc({ outcome }, count);
    },

    googleTokenRefreshed(outcome: GoogleRefreshOutcome): void {
      googleRefreshes.inc({ outcome });
    },
  };
}

export type AuthMetrics = ReturnType<typeof createAuthMetrics>;
