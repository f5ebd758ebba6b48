export { status as GrpcStatus } from '@grpc/grpc-js';
export * from '../gen/sheetgate/v1/account_service.ts';
export * from '../gen/sheetgate/v1/token_broker.ts';
export {
  type AccountServiceClientApi,
  type ClientOptions,
  createAccountServiceClient,
  createTokenBrokerClient,
  type TokenBrokerClient,
} from './clients.ts';
export { type GrpcServiceBinding, type RunningGrpcServer, startGrpcServer } from './grpc-server.ts';
export {
  hasServiceCredential,
  requireServiceCredential,
  serviceCredentialMetadata,
} from './service-credential.ts';
