import {
  GOOGLE_QUOTA_BUCKET_NAMES,
  type GoogleQuotaBucketName,
  GrpcStatus,
  isServiceError,
  type TokenBrokerClient,
  TokenBrokerServiceService,
  type ToolsetName,
} from '@sheetgate/proto';
import { createServiceMetrics } from '@sheetgate/service-runtime';
import type { VerificationOutcome } from '../auth/access-token-verifier.ts';
import type { ApiKeyServed } from '../auth/api-key-edge.ts';
import { CONTRACT_KINDS, type ContractKind } from '../errors/contract-violation.ts';
import type { GoogleTokenLookup } from '../google/edge-google-tokens.ts';
import type { GoogleFailureKind } from '../google/google-errors.ts';
import type { GoogleHttpAdapter } from '../google/http-adapter.ts';
import type { QuotaTurnOutcome } from '../google/quota-gate.ts';
import { toolOfThisCall } from '../google/tool-attribution.ts';
import type { ToolCallOutcome } from '../protocol/mcp-server.ts';
import { googleApiMethod } from './google-api-methods.ts';

/** The route templates of mcp's HTTP port. */
const MCP_HTTP_ROUTES = [
  '/api/mcp',
  '/.well-known/oauth-protected-resource',
  '/.well-known/oauth-protected-resource/*',
];

const grpcOutcome = (error: unknown) =>
  isServiceError(error) ? (GrpcStatus[error.code]?.toLowerCase() ?? 'unknown') : 'error';

/**
 * mcp's Prometheus series: the HTTP series every service has; access-token verifications by
 * outcome (cache_hit, verified, refused by reason); broker RPCs by method and outcome, timed;
 * Google API requests by method and status, timed, and by tool and method; Google retries by why; and the revocation
 * stream's state.
 */
export function createMcpMetrics() {
  const metrics = createServiceMetrics('mcp', { routes: MCP_HTTP_ROUTES });
  // Cache hits come with nearly every bearer request: counted in a plain number and handed to
  // the counter when it is scraped, not through prom-client's label lookup per request.
  let cacheHits = 0;
  const verifications = metrics.counter({
    name: 'sheetgate_mcp_token_verifications_total',
    help: 'Bearer access tokens checked: cache_hit (verified before, still valid), verified (signature checked now), refused (with a reason).',
    labelNames: ['outcome', 'reason'] as const,
    collect() {
      this.inc({ outcome: 'cache_hit' }, cacheHits);
      cacheHits = 0;
    },
  });
  // Requests served from a lease come with nearly every API-key request: counted like cache hits.
  let servedFromLease = 0;
  const apiKeyRequests = metrics.counter({
    name: 'sheetgate_mcp_api_key_requests_total',
    help: "API-key requests by how this replica served them: lease (a key it holds, from its lease of the key's rate limit), auth (a key it does not hold: auth resolved it), limited (429 from a lease auth said is spent).",
    labelNames: ['served'] as const,
    collect() {
      this.inc({ served: 'lease' }, servedFromLease);
      servedFromLease = 0;
    },
  });
  for (const served of ['lease', 'auth', 'limited']) apiKeyRequests.inc({ served }, 0);
  const toolCalls = metrics.counter({
    name: 'sheetgate_mcp_tool_calls_total',
    help: "Tool calls by tool, its toolset and how the call ended: ok, tool_error (the tool said why not), invalid_arguments, not_enabled (the toolset is not the credential's), failed (a bug, logged), cancelled.",
    labelNames: ['tool', 'toolset', 'outcome'] as const,
  });
  const brokerCalls = metrics.counter({
    name: 'sheetgate_mcp_broker_calls_total',
    help: "Calls to auth's TokenBroker, by method and outcome (ok, or the gRPC status name).",
    labelNames: ['method', 'outcome'] as const,
  });
  const brokerDuration = metrics.histogram({
    name: 'sheetgate_mcp_broker_call_duration_seconds',
    help: "Time of a call to auth's TokenBroker, by method.",
    labelNames: ['method'] as const,
  });
  const googleRequests = metrics.counter({
    name: 'sheetgate_mcp_google_requests_total',
    help: 'HTTP requests to Google APIs (each attempt), by API method and HTTP status (network_error when none came back).',
    labelNames: ['method', 'status'] as const,
  });
  const toolGoogleRequests = metrics.counter({
    name: 'sheetgate_mcp_tool_google_requests_total',
    help: "HTTP requests to Google APIs (each attempt), by the tool whose call made them and API method: what each tool spends of the Google project's quota.",
    labelNames: ['tool', 'method'] as const,
  });
  const googleDuration = metrics.histogram({
    name: 'sheetgate_mcp_google_request_duration_seconds',
    help: 'Time of an HTTP request to a Google API until its response headers, by API method.',
    labelNames: ['method'] as const,
    buckets: [0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
  });
  const googleRetries = metrics.counter({
    name: 'sheetgate_mcp_google_retries_total',
    help: 'Google API calls retried, by why: quota (429 or a rate-limit 403), unavailable (5xx or no answer), unauthenticated (the token was refused; retried once with a fresh one).',
    labelNames: ['reason'] as const,
  });
  for (const reason of ['quota', 'unavailable', 'unauthenticated']) googleRetries.inc({ reason }, 0);
  const googleTokenLookups = metrics.counter({
    name: 'sheetgate_mcp_google_token_lookups_total',
    help: "Google access tokens tool calls needed, by how they were got: kept (this replica's own, no broker call), joined (another call's broker call under way), asked (a broker call: none kept, near expiry, forgotten, or the revocation stream not current), forced (Google answered 401; the broker was asked to refresh).",
    labelNames: ['outcome'] as const,
  });
  for (const outcome of ['kept', 'joined', 'asked', 'forced']) googleTokenLookups.inc({ outcome }, 0);
  const quotaTurns = metrics.counter({
    name: 'sheetgate_mcp_google_quota_turns_total',
    help: "Google requests by how they got their turn at Google's per-minute quota: at_once, after_wait, gave_up (the tool answered when to try again, nothing was sent), unscheduled (auth could not be asked; sent anyway), by bucket (sheets_read, sheets_write, drive).",
    labelNames: ['bucket', 'outcome'] as const,
  });
  const quotaWait = metrics.histogram({
    name: 'sheetgate_mcp_google_quota_wait_seconds',
    help: "How long Google requests that waited for their turn at Google's per-minute quota waited (granted or not), by bucket.",
    labelNames: ['bucket'] as const,
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 20, 30, 60],
  });
  const quotaWaiting = metrics.gauge({
    name: 'sheetgate_mcp_google_quota_waiting',
    help: "Google requests waiting for their turn at Google's per-minute quota on this replica now (the queue's length), by bucket.",
    labelNames: ['bucket'] as const,
  });
  for (const bucket of GOOGLE_QUOTA_BUCKET_NAMES) {
    quotaWaiting.set({ bucket }, 0);
    quotaWait.zero({ bucket });
    for (const outcome of ['at_once', 'after_wait', 'gave_up', 'unscheduled'])
      quotaTurns.inc({ bucket, outcome }, 0);
  }
  const journalEntries = metrics.counter({
    name: 'sheetgate_mcp_change_journal_recorded_total',
    help: 'Change journal entries auth took (what each write changed, for undo).',
  });
  const journalLost = metrics.counter({
    name: 'sheetgate_mcp_change_journal_lost_total',
    help: 'Change journal entries lost: auth could not be reached or refused the batch (the writes themselves succeeded; they cannot be listed or undone).',
  });
  journalEntries.inc(0);
  journalLost.inc(0);
  const contractViolations = metrics.counter({
    name: 'sheetgate_mcp_contract_violations_total',
    help: "Bugs that broke one of the service's own promises, by kind and tool: tool_output (an answer its outputSchema refuses), google_without_person (a Google request made outside a person's context, so without a quota turn). Each is logged; MCP_CONTRACT_VIOLATIONS says whether the call failed.",
    labelNames: ['kind', 'tool'] as const,
  });
  // Exported from the start (`tool` "none": outside any tool call), so a scrape and an alert find
  // the series before the first violation.
  for (const kind of CONTRACT_KINDS) contractViolations.inc({ kind, tool: 'none' }, 0);
  // What the revocation stream says, read when scraped (`watchRevocationStream`).
  let revocationStream = { current: () => false, entries: () => 0 };
  metrics.gauge({
    name: 'sheetgate_mcp_revocations_current',
    help: 'Whether this replica can vouch for what auth revoked (1), or asks auth of every access token and API key until its revocation stream is current again (0).',
    collect() {
      this.set(revocationStream.current() ? 1 : 0);
    },
  });
  metrics.gauge({
    name: 'sheetgate_mcp_revoked_entries',
    help: 'Revocations this replica holds (grants, persons, signing keys, provider reset), each until the tokens it covers expire.',
    collect() {
      this.set(revocationStream.entries());
    },
  });

  /**
   * A gaxios `adapter` for the googleapis clients: it sees every HTTP attempt (the callers'
   * retries included) with its URL and status, which is where method, status and latency are.
   */
  const googleAdapter: GoogleHttpAdapter = async (options, defaultAdapter) => {
    const method = googleApiMethod(options.method ?? 'GET', options.url);
    const started = performance.now();
    let status = 'network_error';
    try {
      const response = await defaultAdapter(options);
      status = String(response.status);
      return response;
    } finally {
      googleRequests.inc({ method, status });
      toolGoogleRequests.inc({ tool: toolOfThisCall(), method });
      googleDuration.observe({ method }, (performance.now() - started) / 1000);
    }
  };

  return {
    collector: metrics,

    /** Counts one access-token verification (the verifier's `onOutcome`). */
    countVerification(result: VerificationOutcome): void {
      if (result.outcome === 'cache_hit') cacheHits++;
      else verifications.inc(result.outcome === 'refused' ? result : { outcome: result.outcome });
    },

    /** Counts how an API-key request was served (api-key-edge.ts's `onServed`). */
    apiKeyServed(served: ApiKeyServed): void {
      if (served === 'lease') servedFromLease++;
      else apiKeyRequests.inc({ served });
    },

    /** Counts how a tool call ended (mcp-server.ts's `onToolCall`). */
    toolCalled(tool: string, toolset: ToolsetName, outcome: ToolCallOutcome): void {
      toolCalls.inc({ tool, toolset, outcome });
    },

    /** The same broker client, with every call counted and timed. */
    countBrokerCalls(broker: TokenBrokerClient): TokenBrokerClient {
      const counted: Record<string, unknown> = { ...broker };
      for (const [name, definition] of Object.entries(TokenBrokerServiceService)) {
        const call = broker[name as keyof typeof TokenBrokerServiceService] as (
          ...args: unknown[]
        ) => Promise<unknown>;
        const method = definition.path.slice(definition.path.lastIndexOf('/') + 1);
        counted[name] = async (...args: unknown[]) => {
          const started = performance.now();
          let outcome = 'ok';
          try {
            return await call(...args);
          } catch (error) {
            outcome = grpcOutcome(error);
            throw error;
          } finally {
            brokerCalls.inc({ method, outcome });
            brokerDuration.observe({ method }, (performance.now() - started) / 1000);
          }
        };
      }
      return counted as TokenBrokerClient;
    },

    googleAdapter,

    /** Where the revocation gauges read from. */
    watchRevocationStream(source: { current: () => boolean; entries: () => number }): void {
      revocationStream = source;
    },

    /** Change journal entries auth took (change-journal.ts's `onRecorded`). */
    changesRecorded(entries: number): void {
      journalEntries.inc(entries);
    },

    /** Change journal entries lost (change-journal.ts's `onLost`). */
    changesLost(entries: number): void {
      journalLost.inc(entries);
    },

    googleRetried(kind: GoogleFailureKind): void {
      googleRetries.inc({ reason: kind });
    },

    /** Counts how a Google request got its quota turn, and times a wait (quota-gate.ts's `onTurn`). */
    googleQuotaTurn(bucket: GoogleQuotaBucketName, outcome: QuotaTurnOutcome, waitedMs: number): void {
      quotaTurns.inc({ bucket, outcome });
      if (outcome === 'after_wait' || outcome === 'gave_up') quotaWait.observe({ bucket }, waitedMs / 1000);
    },

    /** The quota queue's length (quota-gate.ts's `onWaiting`). */
    googleQuotaWaiting(bucket: GoogleQuotaBucketName, change: 1 | -1): void {
      quotaWaiting.inc({ bucket }, change);
    },

    /** Counts a broken promise of the service's own (contract-violation.ts's `onViolation`). */
    contractViolated(kind: ContractKind, tool: string): void {
      contractViolations.inc({ kind, tool });
    },

    /** Counts how a tool call got its Google access token (edge-google-tokens.ts's `onLookup`). */
    googleTokenLookedUp(outcome: GoogleTokenLookup): void {
      googleTokenLookups.inc({ outcome });
    },
  };
}

export type McpMetrics = ReturnType<typeof createMcpMetrics>;
