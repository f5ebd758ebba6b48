import { type CallOptions, type Client, credentials, type Metadata, type ServiceError } from '@grpc/grpc-js';
import {
  AccountServiceClient,
  type CreateApiKeyRequest,
  type CreateApiKeyResponse,
  type DisconnectAppRequest,
  type DisconnectAppResponse,
  type GetGoogleConnectionRequest,
  type GetGoogleConnectionResponse,
  type GetInteractionRequest,
  type GetInteractionResponse,
  type GetSessionRequest,
  type GetSessionResponse,
  type ListApiKeysRequest,
  type ListApiKeysResponse,
  type ListConnectedAppsRequest,
  type ListConnectedAppsResponse,
  type RevokeApiKeyRequest,
  type RevokeApiKeyResponse,
} from '../gen/sheetgate/v1/account_service.ts';
import {
  type GetGoogleAccessTokenRequest,
  type GetGoogleAccessTokenResponse,
  type ResolveApiKeyRequest,
  type ResolveApiKeyResponse,
  TokenBrokerServiceClient,
} from '../gen/sheetgate/v1/token_broker.ts';
import { serviceCredentialMetadata } from './service-credential.ts';

const DEFAULT_DEADLINE_MS = 2_000;

type UnaryMethod<Request, Response> = (
  request: Request,
  metadata: Metadata,
  options: Partial<CallOptions>,
  callback: (error: ServiceError | null, response: Response) => void,
) => unknown;

/** Promise form of a generated unary method, with the service credential and a deadline. */
function unary<Request, Response>(
  client: Client,
  method: UnaryMethod<Request, Response>,
  token: string,
  deadlineMs: number,
) {
  const metadata = serviceCredentialMetadata(token);
  return (request: Request): Promise<Response> =>
    new Promise((resolve, reject) => {
      method.call(client, request, metadata, { deadline: Date.now() + deadlineMs }, (error, response) =>
        error ? reject(error) : resolve(response),
      );
    });
}

export interface ClientOptions {
  /** host:port of auth's gRPC listener. */
  address: string;
  serviceToken: string;
  deadlineMs?: number;
}

/** The MCP service's view of the broker. */
export function createTokenBrokerClient(options: ClientOptions) {
  const client = new TokenBrokerServiceClient(options.address, credentials.createInsecure());
  const deadline = options.deadlineMs ?? DEFAULT_DEADLINE_MS;
  return {
    resolveApiKey: unary<ResolveApiKeyRequest, ResolveApiKeyResponse>(
      client,
      client.resolveApiKey,
      options.serviceToken,
      deadline,
    ),
    getGoogleAccessToken: unary<GetGoogleAccessTokenRequest, GetGoogleAccessTokenResponse>(
      client,
      client.getGoogleAccessToken,
      options.serviceToken,
      deadline,
    ),
    close: () => client.close(),
  };
}

/** The web service's view of auth. */
export function createAccountServiceClient(options: ClientOptions) {
  const client = new AccountServiceClient(options.address, credentials.createInsecure());
  const deadline = options.deadlineMs ?? DEFAULT_DEADLINE_MS;
  const call = <Request, Response>(method: UnaryMethod<Request, Response>) =>
    unary<Request, Response>(client, method, options.serviceToken, deadline);
  return {
    getSession: call<GetSessionRequest, GetSessionResponse>(client.getSession),
    listApiKeys: call<ListApiKeysRequest, ListApiKeysResponse>(client.listApiKeys),
    createApiKey: call<CreateApiKeyRequest, CreateApiKeyResponse>(client.createApiKey),
    revokeApiKey: call<RevokeApiKeyRequest, RevokeApiKeyResponse>(client.revokeApiKey),
    getGoogleConnection: call<GetGoogleConnectionRequest, GetGoogleConnectionResponse>(
      client.getGoogleConnection,
    ),
    listConnectedApps: call<ListConnectedAppsRequest, ListConnectedAppsResponse>(client.listConnectedApps),
    disconnectApp: call<DisconnectAppRequest, DisconnectAppResponse>(client.disconnectApp),
    getInteraction: call<GetInteractionRequest, GetInteractionResponse>(client.getInteraction),
    close: () => client.close(),
  };
}

export type TokenBrokerClient = ReturnType<typeof createTokenBrokerClient>;
export type AccountServiceClientApi = ReturnType<typeof createAccountServiceClient>;
