import {
  changeUndoService,
  createAccountServiceClient,
  createCallConsentClient,
  createChangeJournalClient,
  createGoogleQuotaClient,
  createRequestStateClient,
  createTokenBrokerClient,
} from '@sheetgate/proto';
import { clientAddressResolver, type Logger } from '@sheetgate/service-runtime';
// The two APIs the tools use, from their own modules: googleapis' entry point loads all of its
// hundreds of APIs, which every replica would hold in memory for nothing.
import { drive } from 'googleapis/build/src/apis/drive/index.js';
import { sheets } from 'googleapis/build/src/apis/sheets/index.js';
import { createMcpApp } from './app.ts';
import { appOnlyTools } from './apps/app-only-tools.ts';
import { SHEETGATE_VIEWS } from './apps/views.ts';
import { createAccessTokenVerifier } from './auth/access-token-verifier.ts';
import { edgeApiKeyResolver } from './auth/api-key-edge.ts';
import { createRequestAuthenticator } from './auth/authenticate-request.ts';
import { brokerApiKeyResolver, brokerGoogleAccessTokens } from './auth/broker-clients.ts';
import { createDpopProofVerifier } from './auth/dpop-proof.ts';
import { grpcDpopProofReplays } from './auth/dpop-proof-replays.ts';
import { createJwksCache } from './auth/jwks-cache.ts';
import { revocationCheck } from './auth/revocation-check.ts';
import { watchRevocations } from './auth/revocation-watch.ts';
import { createContractChecks } from './errors/contract-violation.ts';
import { createGoogleCaller } from './google/call-google.ts';
import { edgeGoogleAccessTokens } from './google/edge-google-tokens.ts';
import { createGoogleFetch } from './google/google-fetch.ts';
import { googlePersons } from './google/google-person.ts';
import { withQuotaTurns } from './google/quota-adapter.ts';
import { createQuotaGate, grpcGoogleQuota } from './google/quota-gate.ts';
import { withTraceSpans } from './google/trace-adapter.ts';
import { createChangeJournal } from './journal/change-journal.ts';
import { changeUndoHandlers } from './journal/change-undo-service.ts';
import { markingOutbound } from './journal/outbound-marks.ts';
import { createChangeUndo } from './journal/undo-change.ts';
import { createMcpMetrics, type McpMetrics } from './metrics/mcp-metrics.ts';
import { mcpResource, protectedResourceMetadataUrl, RESOURCE_SCOPES } from './protected-resource.ts';
import { grpcCallConsents } from './protocol/call-consents.ts';
import { createMcpServer } from './protocol/mcp-server.ts';
import { createRequestStateCodec } from './protocol/request-state.ts';
import { grpcRequestStateClaims } from './protocol/request-state-claims.ts';
import type { McpSettings } from './settings.ts';
import { outboundCeiling } from './tools/guards/outbound-ceiling.ts';
import { guardOutbound, type OutboundPolicy } from './tools/guards/outbound-guard.ts';
import { spreadsheetOwnership } from './tools/guards/spreadsheet-owners.ts';
import { describeWritesOutside } from './tools/guards/written-outside.ts';
import { journalWrites } from './tools/kit/journal-writes.ts';
import { sheetgateTools } from './tools/registry.ts';

/**
 * The broker channel carries every API-key request. grpc-js's transparent retries keep a copy of
 * each outgoing message per call in case it must be resent; every Sheetgate RPC is answered or
 * failed by the caller's own logic, so that bookkeeping is only cost.
 */
const BROKER_CHANNEL_OPTIONS = { 'grpc.enable_retries': 0 };

/**
 * The MCP service assembled from its settings: the JWKS cache and verifier, the broker client, the
 * Google caller and tools, the one SDK server and the HTTP app. `main.ts` runs it; tests that must
 * look inside (the transport's in-flight table) assemble the same thing in-process.
 */
export async function createMcpService(
  settings: McpSettings,
  logger: Logger,
  metrics: McpMetrics = createMcpMetrics(),
) {
  // A bug that breaks one of the service's own promises fails its call outside production.
  const contracts = createContractChecks({
    mode: settings.MCP_CONTRACT_VIOLATIONS,
    logger,
    onViolation: metrics.contractViolated,
  });
  const jwks = createJwksCache({
    url: `${settings.AUTH_INTERNAL_URL}/api/auth/jwks`,
    refreshIntervalMs: settings.JWKS_REFRESH_SECONDS * 1000,
    unknownKidCooldownMs: settings.JWKS_COOLDOWN_SECONDS * 1000,
  });
  // Auth's revocation stream: a revoked grant's access tokens are refused here at once, and a
  // replica that cannot vouch for what it knows asks auth instead of trusting it.
  const revocations = watchRevocations({
    address: settings.AUTH_GRPC_ADDRESS,
    serviceToken: settings.INTERNAL_SERVICE_TOKEN,
    logger,
  });
  metrics.watchRevocationStream({ current: revocations.isCurrent, entries: revocations.entries });
  // Its own connection, not the stream's (their channel options differ): one hung connection
  // does not take both.
  const broker = metrics.countBrokerCalls(
    createTokenBrokerClient({
      address: settings.AUTH_GRPC_ADDRESS,
      serviceToken: settings.INTERNAL_SERVICE_TOKEN,
      channelOptions: BROKER_CHANNEL_OPTIONS,
    }),
  );
  const verifier = createAccessTokenVerifier({
    issuer: settings.BASE_URL,
    resource: mcpResource(settings.BASE_URL),
    jwks,
    revocations: revocationCheck({ stream: revocations, broker }),
    onOutcome: metrics.countVerification,
  });

  // One googleapis client per API for the whole process; the user's token travels per call.
  const rootUrl = settings.GOOGLE_EMULATOR_URL ? `${settings.GOOGLE_EMULATOR_URL}/` : undefined;
  // People's Google access tokens kept here until shortly before they expire, and forgotten when
  // the revocation stream says their Google connection changed (or reopens); auth refreshes them.
  const googleTokens = edgeGoogleAccessTokens({
    broker: brokerGoogleAccessTokens(broker),
    stream: revocations,
    onLookup: metrics.googleTokenLookedUp,
  });
  const callGoogle = createGoogleCaller({
    tokens: googleTokens,
    ...(rootUrl ? { rootUrl } : {}),
    dashboardUrl: `${settings.BASE_URL}/dashboard`,
    onRetry: metrics.googleRetried,
  });
  // Every Google request waits for its turn at Google's per-minute quotas, which auth hands out
  // fleet-wide and fairly among the people asking.
  const googleQuota = createGoogleQuotaClient({
    address: settings.AUTH_GRPC_ADDRESS,
    serviceToken: settings.INTERNAL_SERVICE_TOKEN,
    // A connection of its own: grpc-js shares one per address otherwise, and a quota call (a
    // lease given back on a timer) that fails while auth restarts would leave the broker's in
    // reconnect back-off, failing the next tool call's token request at once.
    channelOptions: { ...BROKER_CHANNEL_OPTIONS, 'grpc.use_local_subchannel_pool': 1 },
  });
  const quotaGate = createQuotaGate({
    authority: grpcGoogleQuota(googleQuota),
    maxWaitMs: settings.GOOGLE_QUOTA_MAX_WAIT_SECONDS * 1000,
    logger,
    onTurn: metrics.googleQuotaTurn,
    onWaiting: metrics.googleQuotaWaiting,
  });
  // The adapter sees every HTTP attempt to Google: its quota turn, then the metrics' method,
  // status and latency.
  // The HTTP itself by undici's `request` (google-fetch.ts says why), not gaxios's default
  // node-fetch 3: node-fetch destroys the request body of an aborted call with nobody listening for
  // the error, so a client that disconnected while its write was on the way to Google crashed the
  // process (node-fetch/node-fetch#1801).
  const google = {
    adapter: withQuotaTurns(quotaGate, withTraceSpans(metrics.googleAdapter), contracts),
    fetchImplementation: createGoogleFetch(),
    ...(rootUrl ? { rootUrl } : {}),
  };
  // What each write changed goes to auth's change journal, batched a few milliseconds at a time
  // on a connection of its own; a lost entry is counted, never the write's failure.
  const journal =
    settings.CHANGE_JOURNAL === 'on'
      ? createChangeJournal({
          client: createChangeJournalClient({
            address: settings.AUTH_GRPC_ADDRESS,
            serviceToken: settings.INTERNAL_SERVICE_TOKEN,
            channelOptions: { ...BROKER_CHANNEL_OPTIONS, 'grpc.use_local_subchannel_pool': 1 },
          }),
          logger,
          onLost: metrics.changesLost,
          onRecorded: metrics.changesRecorded,
        })
      : undefined;
  // Outbound actions (issue 37): held to the operator's ceiling before Google, and marked in the
  // journal. Who the person is reaches the tools from the token broker (their Google identity).
  const personOf = googlePersons(googleTokens);
  const outbound: OutboundPolicy = {
    ceiling: outboundCeiling(settings),
    personOf: (auth) => personOf(auth.userId),
  };
  const toolDeps = {
    sheets: sheets({ version: 'v4', ...google }),
    drive: drive({ version: 'v3', ...google }),
    callGoogle,
    journal: journal && markingOutbound(journal),
    dashboardUrl: `${settings.BASE_URL}/dashboard`,
    googleWriteRequestBytes: settings.GOOGLE_WRITE_REQUEST_BYTES,
    outbound,
  };
  // A write into a spreadsheet owned outside the person's account is outbound too: its owners
  // are read from Drive (once a minute per person and file) before the consent step decides.
  const written = describeWritesOutside(journalWrites(sheetgateTools(toolDeps), toolDeps.journal), {
    ownershipOf: spreadsheetOwnership(
      { ...toolDeps, tokens: googleTokens, dashboardUrl: `${settings.BASE_URL}/dashboard` },
      { keptMs: settings.SPREADSHEET_OWNERS_KEPT_SECONDS * 1000 },
    ),
    personOf: outbound.personOf,
  });
  const tools = guardOutbound(written, outbound);
  // The dashboard's Undo (web → mcp, ChangeUndoService): undo_change's engine, for the person auth
  // says the session cookie belongs to. main.ts serves it on MCP_GRPC_PORT.
  const accounts = createAccountServiceClient({
    address: settings.AUTH_GRPC_ADDRESS,
    serviceToken: settings.INTERNAL_SERVICE_TOKEN,
  });
  const changeUndo = changeUndoService(
    changeUndoHandlers({
      accounts,
      undo: journal ? createChangeUndo({ ...toolDeps, journal }) : undefined,
      logger,
      timeoutMs: settings.MCP_REQUEST_TIMEOUT_SECONDS * 1000,
    }),
  );
  // A confirmed retry claims its requestState from auth once, whichever replica it reaches.
  const requestStates = createRequestStateClient({
    address: settings.AUTH_GRPC_ADDRESS,
    serviceToken: settings.INTERNAL_SERVICE_TOKEN,
    channelOptions: BROKER_CHANNEL_OPTIONS,
  });
  // The person's say on a call (issue 37): their choices for the credential, read from auth when a
  // call needs them, and the call approvals a URL-mode client's person answers on web's page.
  const callConsent = createCallConsentClient({
    address: settings.AUTH_GRPC_ADDRESS,
    serviceToken: settings.INTERNAL_SERVICE_TOKEN,
    channelOptions: BROKER_CHANNEL_OPTIONS,
  });
  const mcp = createMcpServer({
    // The views' own tools (apps/app-only-tools.ts) are listed to no model.
    tools: [...tools, ...appOnlyTools(toolDeps)],
    logger,
    baseUrl: settings.BASE_URL,
    states: createRequestStateCodec(settings.INTERNAL_SERVICE_TOKEN, {
      claims: grpcRequestStateClaims(requestStates),
    }),
    consents: grpcCallConsents(callConsent, {
      baseUrl: settings.BASE_URL,
      serviceToken: settings.INTERNAL_SERVICE_TOKEN,
    }),
    requestTimeoutMs: settings.MCP_REQUEST_TIMEOUT_SECONDS * 1000,
    views: SHEETGATE_VIEWS,
    onToolCall: metrics.toolCalled,
    contracts,
  });
  const authenticate = createRequestAuthenticator({
    verifier,
    // A DPoP-bound token's proof is for the public URL clients address (never this replica's own),
    // and single use fleet-wide by the record auth keeps of used requestStates.
    dpopProofs: createDpopProofVerifier({
      url: mcpResource(settings.BASE_URL),
      replays: grpcDpopProofReplays(requestStates),
    }),
    // What auth said of a key is kept here until the revocation stream drops it; its rate limit
    // is spent from leases.
    apiKeys: edgeApiKeyResolver({
      resolver: brokerApiKeyResolver(broker),
      broker,
      revocations,
      leaseSize: settings.API_KEY_LEASE_SIZE,
      logger,
      onServed: metrics.apiKeyServed,
    }),
    clientAddress: clientAddressResolver(settings.TRUSTED_PROXIES),
    resourceMetadataUrl: protectedResourceMetadataUrl(settings.BASE_URL),
    scopes: RESOURCE_SCOPES,
  });
  return {
    handler: createMcpApp({
      logger,
      baseUrl: settings.BASE_URL,
      mcp,
      authenticate,
      maxRequestBytes: settings.MCP_MAX_REQUEST_BYTES,
    }),
    mcp,
    changeUndo,
    async close() {
      await journal?.close();
      accounts.close();
      broker.close();
      googleQuota.close();
      requestStates.close();
      callConsent.close();
      jwks.close();
      revocations.close();
    },
  };
}
