import { setting } from '@sheetgate/service-runtime';
import { z } from 'zod';
import { defaultContractMode } from './errors/contract-violation.ts';

/** Every setting of the MCP service, read from the environment once at start. */
export const mcpSettingsSchema = z.object({
  BASE_URL: setting.baseUrl().default('http://localhost:8080'),
  MCP_HOST: z.string().default('127.0.0.1'),
  MCP_PORT: setting.port(8082),
  /**
   * Prometheus metrics (`GET /metrics`) on MCP_HOST, on a port of their own that the gateway and
   * the Ingress never route (the NetworkPolicies open it to the scraper only).
   */
  MCP_METRICS_PORT: setting.port(9082),
  /**
   * Internal gRPC (ChangeUndoService, the dashboard's Undo: web → mcp) on MCP_HOST, behind the
   * service credential; never routed by the gateway or the Ingress (the NetworkPolicies open it to
   * web only).
   */
  MCP_GRPC_PORT: setting.port(8085),
  /** Where the auth service answers inside the cluster (JWKS is fetched from here). */
  AUTH_INTERNAL_URL: setting.url(['http', 'https']).default('http://127.0.0.1:8081'),
  /** host:port of auth's internal gRPC (TokenBroker). */
  AUTH_GRPC_ADDRESS: z.string().default('127.0.0.1:8084'),
  INTERNAL_SERVICE_TOKEN: setting.secret(32),
  /**
   * Who may say who the client is through X-Forwarded-For: the address sent to auth with each API
   * key, which limits unknown keys per address. The same rule and default as auth's TRUSTED_PROXIES
   * (`loopback,uniquelocal`: the local gateway and the private ranges an Ingress controller
   * connects from); set both services alike, narrowed to the Ingress controller's range.
   */
  TRUSTED_PROXIES: setting.trustedProxies(),
  /**
   * The fewest requests of an API key's rate limit this replica asks auth for at a time
   * (LeaseApiKeyAllowance) and serves without asking again; for a key with a large limit auth
   * grants 1% of the limit (at most 10,000) when that is more. A key's limit across the fleet
   * overshoots by at most one lease per replica (max(API_KEY_LEASE_SIZE, 1% of the limit, capped
   * at 10,000)); a larger lease asks auth less often.
   */
  API_KEY_LEASE_SIZE: z.coerce.number().int().min(1).max(1_000).default(50),
  /** How often auth's JWKS is fetched again, so a removed signing key stops its tokens. */
  JWKS_REFRESH_SECONDS: z.coerce.number().int().min(1).max(3_600).default(300),
  /** The shortest time between two JWKS fetches triggered by an unknown `kid` (or a failed refresh). */
  JWKS_COOLDOWN_SECONDS: z.coerce.number().int().min(1).max(3_600).default(30),
  /** How long one MCP request may run (a tool call waiting on Google) before it is answered with an error. */
  MCP_REQUEST_TIMEOUT_SECONDS: z.coerce.number().int().min(1).max(600).default(120),
  /**
   * How long a Google request may wait for its turn at Google's per-minute quotas (auth schedules
   * the turns fleet-wide, GOOGLE_QUOTAS) before the tool answers when to try again instead.
   */
  GOOGLE_QUOTA_MAX_WAIT_SECONDS: z.coerce.number().int().min(0).max(300).default(20),
  /** Where Google's APIs are reached: unset for Google itself, the emulator's URL otherwise. */
  GOOGLE_EMULATOR_URL: setting.url(['http', 'https']).optional(),
  /**
   * The change journal (docs/design.md §11.8): every write is recorded in auth with what it
   * replaced, for list_changes, undo_change and the dashboard's Activity. `off` records nothing
   * (and writes read nothing more for it); the two tools then say the journal is off.
   */
  CHANGE_JOURNAL: z.enum(['on', 'off']).default('on'),
  /**
   * What a bug that breaks one of the service's own promises does — a tool answer its
   * `outputSchema` refuses, a Google request made outside a person's context (no quota turn):
   * `fail` answers the call with an internal error naming it (every test that reaches it fails);
   * `log` logs it at error, counts it (`sheetgate_mcp_contract_violations_total`) and lets the call
   * go on. `log` when NODE_ENV is production, `fail` otherwise.
   */
  MCP_CONTRACT_VIOLATIONS: z.enum(['fail', 'log']).default(defaultContractMode),
  LOG_LEVEL: setting.logLevel(),
});

export type McpSettings = z.infer<typeof mcpSettingsSchema>;
