import {
  type CallOptions,
  type ChannelOptions,
  Client,
  credentials,
  Metadata,
  type MethodDefinition,
  type ServiceDefinition,
  type ServiceError,
} from '@grpc/grpc-js';
import { inSpan, markSpanFailed, outgoingTraceHeaders, tracingOn } from '@sheetgate/service-runtime';
import { AccountServiceService } from '../gen/sheetgate/v1/account_service.ts';
import { CallConsentServiceService } from '../gen/sheetgate/v1/call_consent.ts';
import { ChangeJournalServiceService } from '../gen/sheetgate/v1/change_journal.ts';
import { ChangeUndoServiceService } from '../gen/sheetgate/v1/change_undo.ts';
import { GoogleQuotaServiceService } from '../gen/sheetgate/v1/google_quota.ts';
import { RequestStateServiceService } from '../gen/sheetgate/v1/request_states.ts';
import { TokenBrokerServiceService } from '../gen/sheetgate/v1/token_broker.ts';
import { serviceCredentialInterceptor } from './service-credential.ts';

/** Every call gets this deadline unless the client or the call says otherwise. */
export const DEFAULT_DEADLINE_MS = 2_000;

/**
 * Methods that need longer by default (a deadline given to the client or the call still wins).
 * GetGoogleAccessToken may refresh at Google (5 s per attempt) or wait for another auth replica's
 * refresh (up to 10 s); auth answers a retryable UNAVAILABLE shortly before whatever deadline the
 * call carries. RevokeApiKey and DisconnectApp answer once every MCP replica has the revocation,
 * which may take the revocation stream's staleness bound (up to 4.5 s with auth's longest
 * REVOCATION_HEARTBEAT_MS).
 */
const METHOD_DEADLINES_MS: Readonly<Record<string, number>> = {
  [TokenBrokerServiceService.getGoogleAccessToken.path]: 12_000,
  [AccountServiceService.revokeApiKey.path]: 6_000,
  [AccountServiceService.disconnectApp.path]: 6_000,
  // An undo reads and writes Google (a few calls, each retried on quota and 5xx) and may wait its
  // turn at Google's quota (GOOGLE_QUOTA_MAX_WAIT_SECONDS, 20 s by default).
  [ChangeUndoServiceService.undoChange.path]: 60_000,
};

/**
 * grpc-js backs reconnection off up to 120 s: after auth was down a minute (a restart, a slow
 * start on a busy machine), its callers kept failing for up to two more minutes once it was back
 * (web's /readyz did, and the local stack gave up on it). Internal peers are near and cheap to
 * try (a refused connection costs next to nothing): again within a fifth of a second at most, so
 * that a caller started before auth (web, at `pnpm start`) is ready soon after auth is (0.1–0.2 s;
 * up to 1.6 s with a 2 s maximum, 0.2–0.35 s with 0.5 s).
 */
export const INTERNAL_CHANNEL_OPTIONS: ChannelOptions = {
  'grpc.initial_reconnect_backoff_ms': 100,
  'grpc.max_reconnect_backoff_ms': 200,
};

export interface ClientOptions {
  /** host:port of the gRPC listener (auth's; the MCP service's for ChangeUndoService). */
  address: string;
  /** INTERNAL_SERVICE_TOKEN, sent as `authorization: Bearer …` on every call. */
  serviceToken: string;
  /** Default deadline of each call, in milliseconds (2 s when unset). */
  deadlineMs?: number;
  /** Extra grpc-js channel options. */
  channelOptions?: ChannelOptions;
}

/** Per-call options of the promise clients. */
export interface CallSettings {
  /** This call's deadline in milliseconds, instead of the client's default. */
  deadlineMs?: number;
  /** Cancels the call (it rejects with CANCELLED). */
  signal?: AbortSignal;
}

/**
 * A promise-returning unary method: resolves with the response, rejects with the grpc-js
 * `ServiceError` (`code` is a `GrpcStatus`, e.g. UNAUTHENTICATED, DEADLINE_EXCEEDED, UNAVAILABLE).
 */
export type UnaryCall<Request, Response> = (request: Request, settings?: CallSettings) => Promise<Response>;

/** The promise client of a service definition: one method per RPC, plus `close()`. */
export type PromiseClient<Definition extends ServiceDefinition> = {
  readonly [Name in keyof Definition]: Definition[Name] extends MethodDefinition<
    infer Request,
    infer Response
  >
    ? UnaryCall<Request, Response>
    : never;
} & {
  /** Closes the channel; calls made afterwards fail. */
  close(): void;
};

function checked(options: ClientOptions) {
  if (!options.address) throw new TypeError('gRPC client: an address (host:port) is required');
  if (!options.serviceToken)
    throw new TypeError('gRPC client: the service token (INTERNAL_SERVICE_TOKEN) is empty');
  if (options.deadlineMs !== undefined && !(options.deadlineMs > 0))
    throw new TypeError('gRPC client: deadlineMs must be positive');
  return options;
}

/**
 * A promise client for any unary service definition: every call carries the service credential
 * (through an interceptor) and a deadline. The channel is plaintext: internal gRPC runs on the
 * cluster network only (docs/design.md §7.7).
 */
export function createPromiseClient<Definition extends ServiceDefinition>(
  definition: Definition,
  options: ClientOptions,
): PromiseClient<Definition> {
  const settings = checked(options);
  const client = new Client(settings.address, credentials.createInsecure(), {
    ...INTERNAL_CHANNEL_OPTIONS,
    ...settings.channelOptions,
    interceptors: [serviceCredentialInterceptor(settings.serviceToken)],
  });
  const methods: Record<string, unknown> = { close: () => client.close() };
  for (const [name, method] of Object.entries(definition)) {
    if (method.requestStream || method.responseStream) continue; // every Sheetgate RPC is unary
    const send = (request: unknown, call: CallSettings, metadata: Metadata) =>
      new Promise((resolve, reject) => {
        const callOptions: Partial<CallOptions> = {
          deadline:
            Date.now() +
            (call.deadlineMs ??
              settings.deadlineMs ??
              METHOD_DEADLINES_MS[method.path] ??
              DEFAULT_DEADLINE_MS),
        };
        const pending = client.makeUnaryRequest(
          method.path,
          method.requestSerialize,
          method.responseDeserialize,
          request,
          metadata,
          callOptions,
          (error: ServiceError | null, response?: unknown) => (error ? reject(error) : resolve(response)),
        );
        if (call.signal) {
          if (call.signal.aborted) pending.cancel();
          else call.signal.addEventListener('abort', () => pending.cancel(), { once: true });
        }
      });
    // With tracing on, each call is a client span whose context travels in the call's metadata.
    const rpc = method.path.slice(1);
    methods[name] = (request: unknown, call: CallSettings = {}) =>
      tracingOn()
        ? inSpan(rpc, { kind: 'client', attributes: { 'rpc.system': 'grpc', 'rpc.method': rpc } }, (span) => {
            const metadata = new Metadata();
            for (const [key, value] of Object.entries(outgoingTraceHeaders())) metadata.set(key, value);
            return send(request, call, metadata).catch((error: unknown) => {
              markSpanFailed(span, `grpc ${(error as ServiceError).code ?? 'error'}`);
              throw error;
            });
          })
        : send(request, call, new Metadata());
  }
  return methods as PromiseClient<Definition>;
}

/** The MCP service's view of the broker: `resolveApiKeys`, `getGoogleAccessToken`, `close`. */
export function createTokenBrokerClient(options: ClientOptions): TokenBrokerClient {
  return createPromiseClient(TokenBrokerServiceService, options);
}

/** The web service's view of auth: one promise method per AccountService RPC, and `close`. */
export function createAccountServiceClient(options: ClientOptions): AccountServiceClientApi {
  return createPromiseClient(AccountServiceService, options);
}

/** The MCP service's view of auth's Google-quota scheduler: a turn per Google request. */
export function createGoogleQuotaClient(options: ClientOptions): GoogleQuotaClient {
  return createPromiseClient(GoogleQuotaServiceService, options);
}

/** The MCP service's view of auth's change journal: record, list, get and mark undone. */
export function createChangeJournalClient(options: ClientOptions): ChangeJournalClient {
  return createPromiseClient(ChangeJournalServiceService, options);
}

/** The MCP service's view of auth's record of used `requestState`s: claim one once. */
export function createRequestStateClient(options: ClientOptions): RequestStateClient {
  return createPromiseClient(RequestStateServiceService, options);
}

/** The MCP service's view of the person's say: a credential's choices and call approvals. */
export function createCallConsentClient(options: ClientOptions): CallConsentClient {
  return createPromiseClient(CallConsentServiceService, options);
}

/** The web service's view of the MCP service: the dashboard's Undo. */
export function createChangeUndoClient(options: ClientOptions): ChangeUndoClient {
  return createPromiseClient(ChangeUndoServiceService, options);
}

export type CallConsentClient = PromiseClient<typeof CallConsentServiceService>;
export type ChangeJournalClient = PromiseClient<typeof ChangeJournalServiceService>;
export type ChangeUndoClient = PromiseClient<typeof ChangeUndoServiceService>;
export type RequestStateClient = PromiseClient<typeof RequestStateServiceService>;
export type TokenBrokerClient = PromiseClient<typeof TokenBrokerServiceService>;
export type GoogleQuotaClient = PromiseClient<typeof GoogleQuotaServiceService>;
export type AccountServiceClientApi = PromiseClient<typeof AccountServiceService>;

/** True for the error a promise client rejects with (a grpc-js ServiceError), optionally of one status. */
export function isServiceError(error: unknown, code?: number): error is ServiceError {
  if (typeof error !== 'object' || error === null) return false;
  const candidate = error as Partial<ServiceError>;
  return (
    typeof candidate.code === 'number' &&
    'details' in candidate &&
    (code === undefined || candidate.code === code)
  );
}
