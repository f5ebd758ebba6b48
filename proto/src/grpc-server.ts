import {
  Server,
  ServerCredentials,
  type ServerOptions,
  type ServiceDefinition,
  type UntypedServiceImplementation,
} from '@grpc/grpc-js';
import type { ServiceMetrics } from '@sheetgate/service-runtime';
import { type AccountServiceServer, AccountServiceService } from '../gen/sheetgate/v1/account_service.ts';
import {
  type CallConsentServiceServer,
  CallConsentServiceService,
} from '../gen/sheetgate/v1/call_consent.ts';
import {
  type ChangeJournalServiceServer,
  ChangeJournalServiceService,
} from '../gen/sheetgate/v1/change_journal.ts';
import { type ChangeUndoServiceServer, ChangeUndoServiceService } from '../gen/sheetgate/v1/change_undo.ts';
import {
  type GoogleQuotaServiceServer,
  GoogleQuotaServiceService,
} from '../gen/sheetgate/v1/google_quota.ts';
import {
  type RequestStateServiceServer,
  RequestStateServiceService,
} from '../gen/sheetgate/v1/request_states.ts';
import { type RevocationServiceServer, RevocationServiceService } from '../gen/sheetgate/v1/revocations.ts';
import {
  type TokenBrokerServiceServer,
  TokenBrokerServiceService,
} from '../gen/sheetgate/v1/token_broker.ts';
import { grpcCallMetrics } from './grpc-call-metrics.ts';
import { requireServiceCredential } from './service-credential.ts';

/** A service definition and the handlers that implement it (missing ones answer UNIMPLEMENTED). */
export interface GrpcServiceBinding {
  definition: ServiceDefinition;
  handlers: UntypedServiceImplementation;
}

/** Typed binding of TokenBrokerService; methods left out answer UNIMPLEMENTED. */
export function tokenBrokerService(handlers: Partial<TokenBrokerServiceServer>): GrpcServiceBinding {
  return { definition: TokenBrokerServiceService, handlers: handlers as UntypedServiceImplementation };
}

/** Typed binding of AccountService; methods left out answer UNIMPLEMENTED. */
export function accountService(handlers: Partial<AccountServiceServer>): GrpcServiceBinding {
  return { definition: AccountServiceService, handlers: handlers as UntypedServiceImplementation };
}

/** Typed binding of RevocationService (auth streams revocations to every MCP replica). */
export function revocationService(handlers: Partial<RevocationServiceServer>): GrpcServiceBinding {
  return { definition: RevocationServiceService, handlers: handlers as UntypedServiceImplementation };
}

/** Typed binding of GoogleQuotaService (a turn at Google's quota per Google request). */
export function googleQuotaService(handlers: Partial<GoogleQuotaServiceServer>): GrpcServiceBinding {
  return { definition: GoogleQuotaServiceService, handlers: handlers as UntypedServiceImplementation };
}

/** Typed binding of ChangeJournalService (what each write changed, and its undo). */
export function changeJournalService(handlers: Partial<ChangeJournalServiceServer>): GrpcServiceBinding {
  return { definition: ChangeJournalServiceService, handlers: handlers as UntypedServiceImplementation };
}

/** Typed binding of RequestStateService (each MCP `requestState` used once, fleet-wide). */
export function requestStateService(handlers: Partial<RequestStateServiceServer>): GrpcServiceBinding {
  return { definition: RequestStateServiceService, handlers: handlers as UntypedServiceImplementation };
}

/** Typed binding of CallConsentService (a credential's choices, and calls approved on a page). */
export function callConsentService(handlers: Partial<CallConsentServiceServer>): GrpcServiceBinding {
  return { definition: CallConsentServiceService, handlers: handlers as UntypedServiceImplementation };
}

/** Typed binding of ChangeUndoService (the MCP service's: the dashboard's Undo, web → mcp). */
export function changeUndoService(handlers: Partial<ChangeUndoServiceServer>): GrpcServiceBinding {
  return { definition: ChangeUndoServiceService, handlers: handlers as UntypedServiceImplementation };
}

export interface GrpcServerOptions {
  /** Interface to listen on, e.g. "0.0.0.0" in a container, "127.0.0.1" in tests. */
  host: string;
  /** 0 picks a free port (see RunningGrpcServer.port). */
  port: number;
  /** INTERNAL_SERVICE_TOKEN: calls without `authorization: Bearer <it>` get UNAUTHENTICATED. */
  serviceToken: string;
  services: GrpcServiceBinding[];
  /** Largest request accepted, in bytes (1 MiB when unset). */
  maxReceiveMessageBytes?: number;
  /**
   * Counts and times every call of the bound services, also those the credential check refuses
   * (`sheetgate_<service>_grpc_calls_total`, grpc-call-metrics.ts).
   */
  callMetrics?: { metrics: ServiceMetrics; service: string };
}

export interface RunningGrpcServer {
  /** The port actually bound (useful with port 0). */
  port: number;
  /** The grpc-js server, for anything not covered here. */
  server: Server;
  /** Graceful stop: no new calls; resolves once the calls in flight have finished. */
  tryShutdown(): Promise<void>;
  /** Immediate stop: calls in flight end with UNAVAILABLE/CANCELLED. */
  forceShutdown(): void;
  /** `tryShutdown`, forced after `graceMs` (5 s when unset). */
  close(graceMs?: number): Promise<void>;
}

/** Shortest service token accepted: the services' settings ask for 32 random bytes. */
const MIN_SERVICE_TOKEN_LENGTH = 16;

/**
 * An internal gRPC server (auth's, and the MCP service's ChangeUndoService): plaintext on the cluster network (NetworkPolicies limit who may
 * connect, docs/design.md §7.7), every handler behind the service credential.
 */
export async function startGrpcServer(options: GrpcServerOptions): Promise<RunningGrpcServer> {
  if (options.serviceToken.length < MIN_SERVICE_TOKEN_LENGTH) {
    throw new Error(
      `gRPC server: the service token must have at least ${MIN_SERVICE_TOKEN_LENGTH} characters`,
    );
  }
  const serverOptions: ServerOptions = {
    'grpc.max_receive_message_length': options.maxReceiveMessageBytes ?? 1024 * 1024,
    ...(options.callMetrics
      ? {
          interceptors: [
            grpcCallMetrics(
              options.callMetrics.metrics,
              options.callMetrics.service,
              options.services.map((binding) => binding.definition),
            ),
          ],
        }
      : {}),
  };
  const server = new Server(serverOptions);
  for (const service of options.services) {
    server.addService(
      service.definition,
      requireServiceCredential(service.handlers, options.serviceToken, service.definition),
    );
  }
  const host =
    options.host.includes(':') && !options.host.startsWith('[') ? `[${options.host}]` : options.host;
  const port = await new Promise<number>((resolve, reject) => {
    server.bindAsync(`${host}:${options.port}`, ServerCredentials.createInsecure(), (error, boundPort) =>
      error ? reject(error) : resolve(boundPort),
    );
  });

  const tryShutdown = () =>
    new Promise<void>((resolve, reject) =>
      server.tryShutdown((error) => (error ? reject(error) : resolve())),
    );
  return {
    port,
    server,
    tryShutdown,
    forceShutdown: () => server.forceShutdown(),
    close(graceMs = 5_000) {
      return new Promise((resolve) => {
        const force = setTimeout(() => {
          server.forceShutdown();
          resolve();
        }, graceMs);
        force.unref();
        tryShutdown().then(
          () => {
            clearTimeout(force);
            resolve();
          },
          () => {
            clearTimeout(force);
            server.forceShutdown();
            resolve();
          },
        );
      });
    },
  };
}
