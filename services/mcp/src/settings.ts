import { outboundCeilingSettings } from '@sheetgate/proto';
import { setting } from '@sheetgate/service-runtime';
import { z } from 'zod';
import { defaultContractMode } from './errors/contract-violation.ts';

/** MCP_MAX_REQUEST_BYTES when unset: 4 MiB. */
export const DEFAULT_MAX_REQUEST_BYTES = 4 * 1024 * 1024;

/** GOOGLE_WRITE_REQUEST_BYTES when unset: Google's recommended 2 MB. */
export const DEFAULT_GOOGLE_WRITE_REQUEST_BYTES = 2_000_000;

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
  /**
   * The most one MCP request may carry, in bytes of its body: a call within it and within
   * MAX_WRITE_CELLS never fails below the tool layer (docs/design.md §11.9). A body past it, up to
   * requestBodyCeiling, is read without being kept and answered with a tool error saying how many
   * rows fit. The local gateway, compose's nginx and the Ingress pass bodies up to that ceiling
   * (deploy/test holds them to this default): change them with it. At most 8 MiB, below the 10 MiB
   * Google takes in one request, which a write the service cannot split is sent as.
   */
  MCP_MAX_REQUEST_BYTES: z.coerce
    .number()
    .int()
    .min(1024 * 1024)
    .max(8 * 1024 * 1024)
    .default(DEFAULT_MAX_REQUEST_BYTES),
  /**
   * The most a value write sends Google in one request, in bytes of its values as JSON; a larger
   * write is split by rows into ordered requests (each its own quota turn), journaled as one
   * change. Google recommends at most 2 MB a request (developers.google.com/workspace/sheets/api/limits).
   */
  GOOGLE_WRITE_REQUEST_BYTES: z.coerce
    .number()
    .int()
    .min(1_000)
    .max(8 * 1024 * 1024)
    .default(2_000_000),
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
  /**
   * The operator's ceiling on outbound actions (issue 37, docs/design.md §11.10):
   * OUTBOUND_SHARING_DOMAINS, OUTBOUND_LINK_SHARING, OUTBOUND_FETCH_FORMULAS, shared with web's
   * settings (which shows it on the dashboard) in @sheetgate/proto.
   */
  ...outboundCeilingSettings,
  /**
   * How long a spreadsheet's owners, read before a write into it (docs/design.md §11.10), stand for
   * the person's next writes into it on this replica. 0 keeps none across calls (every write reads
   * them; calls asking while a read is under way still share it): tests that count Google requests
   * set it, so no count depends on how long a test took.
   */
  SPREADSHEET_OWNERS_KEPT_SECONDS: z.coerce.number().int().min(0).max(3_600).default(60),
  LOG_LEVEL: setting.logLevel(),
});

export type McpSettings = z.infer<typeof mcpSettingsSchema>;

/**
 * The most cells one write call may carry (write_range, append_rows, write_ranges in all,
 * create_spreadsheet). Not a setting: it is in those tools' input schemas, which clients read
 * from tools/list and the tool surface pins.
 */
export const MAX_WRITE_CELLS = 100_000;

/**
 * The largest body read at all, for a request body limit of `maxRequestBytes`: between the two a
 * body is read without being kept, so the refusal can say how much fits; past this it is refused
 * with 413 unread. Every hop in front of mcp passes bodies up to this ceiling.
 */
export function requestBodyCeiling(maxRequestBytes: number): number {
  return 2 * maxRequestBytes;
}
