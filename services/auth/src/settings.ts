import { setting } from '@sheetgate/service-runtime';
import { z } from 'zod';
import { KeyringError, parseKeyring } from './crypto/keyring.ts';
import { enterpriseIdpsSetting } from './enterprise-idps/enterprise-idps-setting.ts';
import { QUOTA_SETTING_NAMES, type QuotaSettingName } from './google-quota/quota-rules.ts';

/** RATE_LIMIT_KEY_PREFIX when unset; under it the revocation relay keeps its historical names. */
export const DEFAULT_REDIS_KEY_PREFIX = 'sheetgate:rl';

const rule = z.object({ points: z.number().int().positive(), durationSeconds: z.number().int().positive() });
/**
 * Key ring for secrets stored encrypted (Google tokens, signing keys): `id:base64key,…`, the first
 * encrypts. Checked here so a malformed ring stops auth with the settings' one line (naming key
 * ids, never key material). Generate a key with `openssl rand -base64 32`.
 */
export const encryptionKeysSetting = setting.secret(1).superRefine((value, ctx) => {
  try {
    parseKeyring(value);
  } catch (error) {
    if (!(error instanceof KeyringError)) throw error;
    ctx.addIssue({ code: 'custom', message: error.message });
  }
});

const googleQuotasSchema = z
  .object(
    Object.fromEntries(
      Object.keys(QUOTA_SETTING_NAMES).map((name) => [name, z.number().int().min(1).max(10_000_000)]),
    ) as Record<QuotaSettingName, z.ZodNumber>,
  )
  .partial()
  .strict();

const rateLimitOverridesSchema = z
  .object({ apiKey: rule, apiKeyFailures: rule, authIp: rule, register: rule, token: rule, signIn: rule })
  .partial()
  .strict();

/** Every setting of the auth service, as fields (`authSettingsSchema` also checks them together). */
const authSettingsFields = z.object({
  BASE_URL: setting.baseUrl().default('http://localhost:8080'),
  AUTH_HOST: z.string().default('127.0.0.1'),
  AUTH_PORT: setting.port(8081),
  /** Internal gRPC (TokenBroker, AccountService); never routed by the gateway or Ingress. */
  AUTH_GRPC_PORT: setting.port(8084),
  /**
   * Prometheus metrics (`GET /metrics`) on AUTH_HOST, on a port of their own that the gateway and
   * the Ingress never route (the NetworkPolicies open it to the scraper only).
   */
  AUTH_METRICS_PORT: setting.port(9081),
  DATABASE_URL: setting.url(['postgres', 'postgresql']),
  /** Optional: without it, an in-process cache stands in (one auth replica only). */
  REDIS_URL: setting.url(['redis', 'rediss']).optional(),
  /** Shared secret the mcp and web services present on every gRPC call. */
  INTERNAL_SERVICE_TOKEN: setting.secret(32),
  /** Key ring for secrets stored encrypted (see `encryptionKeysSetting`). */
  AUTH_ENCRYPTION_KEYS: encryptionKeysSetting,
  /** Secret mixed into API-key hashes (HMAC-SHA-256), so a database dump alone cannot verify keys. */
  API_KEY_PEPPER: setting.secret(32),
  /** Keys that sign cookies (provider and dashboard sessions), comma-separated, first signs. */
  AUTH_COOKIE_KEYS: setting.secret(32),
  /** A private JWKS (JSON) for access tokens; when unset, keys are generated once and stored. */
  AUTH_SIGNING_KEYS: z.string().optional(),
  GOOGLE_CLIENT_ID: z.string().min(1),
  GOOGLE_CLIENT_SECRET: z.string().min(1),
  /**
   * Which Google scopes Sheetgate asks for (docs/design.md §7.8): `standard`, the specification's
   * list (`spreadsheets`, `drive.readonly`, `drive.file`; `drive.readonly` is a restricted scope:
   * Google's verification plus a yearly security assessment), or `picked-files` (`drive.file`
   * only, non-sensitive: Sheetgate reaches the files it created and those the person chooses on
   * the dashboard with the Google Picker).
   */
  GOOGLE_SCOPE_MODE: z.enum(['standard', 'picked-files']).default('standard'),
  /** Where Google's OAuth and APIs are reached; the emulator's URL in development and tests. */
  GOOGLE_EMULATOR_URL: setting.url(['http', 'https']).optional(),
  /** Access-token lifetime in seconds (at most 15 minutes; tests shorten it). */
  ACCESS_TOKEN_TTL_SECONDS: z.coerce.number().int().min(10).max(900).default(900),
  /**
   * How often auth sends each MCP replica's revocation stream a heartbeat. A replica stops trusting
   * its revocations (and asks auth of every credential) REVOCATION_STALE_AFTER_MS after its last
   * answered probe, so a revocation waits at most that and half a second for a replica that does
   * not acknowledge it.
   */
  REVOCATION_HEARTBEAT_MS: z.coerce.number().int().min(50).max(1_000).default(250),
  /**
   * How long an MCP replica trusts what its revocation stream told it, counted from its newest
   * answered probe (auth tells it in the snapshot, docs/design.md §4.6), and so how long a
   * revocation waits for a replica that does not acknowledge it (this and half a second;
   * RevokeApiKey and DisconnectApp callers wait 6 s by default). Unset: 4 heartbeats (1 s, and
   * 1.5 s for a revocation, with the default heartbeat). At least 2 heartbeats. Tests that count
   * what a replica asks of auth set it far beyond any test, so that a heartbeat late on a loaded
   * machine cannot send a request down the slow path; beyond a few seconds a hung replica makes
   * revocations outlast their callers.
   */
  REVOCATION_STALE_AFTER_MS: z.coerce.number().int().min(100).max(3_600_000).optional(),
  /**
   * Who may say who the client is: X-Forwarded-For is believed only from these peers, and per-IP
   * limits and the audit trail use the last hop that is not one of them (an IPv6 client counts by
   * its /64). Comma-separated addresses, CIDR ranges, or `loopback`, `linklocal`, `uniquelocal`.
   * The default, `loopback,uniquelocal`, trusts the local gateway and any private address (where a
   * Kubernetes Ingress controller connects from); an operator should narrow it to the Ingress
   * controller's pod range (or the load balancer's addresses), because any client that reaches auth
   * from a trusted range can pick the address it is counted under. The MCP service takes the same.
   */
  TRUSTED_PROXIES: setting.trustedProxies(),
  /**
   * Namespace in Redis of rate-limit counters, Google quota turns and, when not the default, the
   * revocation relay between auth replicas and the API-key revocation version (tests give each
   * stack its own, so stacks sharing one Redis stay apart; every replica of one deployment must
   * have the same).
   */
  RATE_LIMIT_KEY_PREFIX: z.string().min(1).max(100).default(DEFAULT_REDIS_KEY_PREFIX),
  /**
   * Optional JSON overriding limits by name, e.g. {"register":{"points":100,"durationSeconds":3600}}
   * (names: apiKey, apiKeyFailures, authIp, register, token, signIn); services/auth/README.md lists
   * the defaults.
   */
  RATE_LIMIT_OVERRIDES: z
    .string()
    .optional()
    .transform((value, ctx) => {
      if (!value) return undefined;
      try {
        return rateLimitOverridesSchema.parse(JSON.parse(value));
      } catch {
        ctx.addIssue({
          code: 'custom',
          message: 'expected JSON like {"register":{"points":100,"durationSeconds":3600}}',
        });
        return z.NEVER;
      }
    }),
  /**
   * The per-minute quotas Google granted the project, as JSON overriding Google's documented
   * defaults (Sheets 300 reads and 300 writes per project, 60 of each per person; Drive 12,000
   * per project and per person), e.g. {"sheetsReadsPerMinutePerProject":1200}. Names:
   * sheetsReadsPerMinutePerProject, sheetsReadsPerMinutePerUser, sheetsWritesPerMinutePerProject,
   * sheetsWritesPerMinutePerUser, driveRequestsPerMinutePerProject, driveRequestsPerMinutePerUser.
   * Auth hands every Google request of every MCP replica a turn within them (deploy/README.md,
   * "Google's quota").
   */
  GOOGLE_QUOTAS: z
    .string()
    .optional()
    .transform((value, ctx) => {
      if (!value) return undefined;
      try {
        return googleQuotasSchema.parse(JSON.parse(value));
      } catch {
        ctx.addIssue({
          code: 'custom',
          message: `expected JSON like {"sheetsReadsPerMinutePerProject":1200} (names: ${Object.keys(QUOTA_SETTING_NAMES).join(', ')}; whole numbers from 1)`,
        });
        return z.NEVER;
      }
    }),
  /**
   * Days the change journal keeps each entry (what a write changed, with the contents it
   * replaced, for undo_change and the dashboard's Activity): older ones are purged by the sweep.
   */
  CHANGE_JOURNAL_RETENTION_DAYS: z.coerce.number().int().min(1).max(3_650).default(30),
  /**
   * Megabytes of replaced contents one person's change journal holds at most; a write past it is
   * still journaled, but without its before-images (its entry says undo is not available).
   */
  CHANGE_JOURNAL_MAX_MB_PER_PERSON: z.coerce.number().int().min(1).max(10_000).default(50),
  /**
   * Enterprise identity providers whose ID-JAGs (the MCP extension Enterprise-Managed
   * Authorization) the token endpoint takes, as JSON: each with its issuer, JWKS, the clients that
   * may present them (scopes, toolsets) and how its people map to Sheetgate people (docs/design.md
   * §4.7; deploy/README.md, "Trusting an enterprise identity provider"). Unset: none.
   */
  ENTERPRISE_IDPS: enterpriseIdpsSetting,
  LOG_LEVEL: setting.logLevel(),
});

/** Every setting of the auth service, read from the environment once at start. */
export const authSettingsSchema = authSettingsFields.superRefine((settings, ctx) => {
  // Below two heartbeats a replica would stop trusting itself between two answered probes.
  const stale = settings.REVOCATION_STALE_AFTER_MS;
  if (stale !== undefined && stale < settings.REVOCATION_HEARTBEAT_MS * 2)
    ctx.addIssue({
      code: 'custom',
      path: ['REVOCATION_STALE_AFTER_MS'],
      message: `must be at least 2 heartbeats (${settings.REVOCATION_HEARTBEAT_MS * 2} ms with REVOCATION_HEARTBEAT_MS ${settings.REVOCATION_HEARTBEAT_MS})`,
    });
});

export type AuthSettings = z.infer<typeof authSettingsSchema>;
