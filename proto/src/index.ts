/**
 * @sheetgate/proto: the internal gRPC contracts (generated from sheetgate/v1/*.proto by ts-proto)
 * and the helpers every service uses with them. See proto/README.md.
 */
export { status as GrpcStatus } from '@grpc/grpc-js';
export * from '../gen/sheetgate/v1/account_service.ts';
export * from '../gen/sheetgate/v1/call_consent.ts';
export * from '../gen/sheetgate/v1/change_journal.ts';
export * from '../gen/sheetgate/v1/change_undo.ts';
export * from '../gen/sheetgate/v1/google_quota.ts';
export * from '../gen/sheetgate/v1/request_states.ts';
export * from '../gen/sheetgate/v1/revocations.ts';
export * from '../gen/sheetgate/v1/token_broker.ts';
export {
  API_KEY_NAMESPACE,
  API_KEY_PREFIX,
  type ApiKeyResolution,
  fromResolveApiKeyResponse,
  ISSUED_API_KEY,
  MAX_API_KEY_LEASE,
  MAX_API_KEYS_PER_BATCH,
  mayBeApiKey,
  toResolveApiKeyResponse,
} from './api-key-resolution.ts';
export { approvalIdOfLink, approvalLinkPath } from './approval-link.ts';
export { changeRanges, describeChange, OUTBOUND_SUMMARY_PREFIX, outboundMark } from './change-words.ts';
export {
  type AccountServiceClientApi,
  type CallConsentClient,
  type CallSettings,
  type ChangeJournalClient,
  type ChangeUndoClient,
  type ClientOptions,
  createAccountServiceClient,
  createCallConsentClient,
  createChangeJournalClient,
  createChangeUndoClient,
  createGoogleQuotaClient,
  createPromiseClient,
  createRequestStateClient,
  createTokenBrokerClient,
  DEFAULT_DEADLINE_MS,
  type GoogleQuotaClient,
  isServiceError,
  type PromiseClient,
  type RequestStateClient,
  type TokenBrokerClient,
  type UnaryCall,
} from './clients.ts';
export { DEFAULT_CREDENTIAL_CHOICES } from './credential-choices.ts';
export { DPOP_SIGNING_ALGORITHMS } from './dpop.ts';
export { GRPC_STATUS_OF_KIND, kindOfCallError } from './error-kinds.ts';
export {
  fromGetGoogleAccessTokenResponse,
  type GoogleAccessTokenResult,
  type GoogleTokenRefusalReason,
  toGetGoogleAccessTokenResponse,
} from './google-access-token.ts';
export {
  fromGoogleQuotaBucket,
  fromGoogleQuotaLimit,
  GOOGLE_QUOTA_BUCKET_NAMES,
  type GoogleQuotaBucketName,
  type GoogleQuotaLimitName,
  toGoogleQuotaBucket,
  toGoogleQuotaLimit,
} from './google-quota.ts';
export { grpcCallMetrics } from './grpc-call-metrics.ts';
export {
  accountService,
  callConsentService,
  changeJournalService,
  changeUndoService,
  type GrpcServerOptions,
  type GrpcServiceBinding,
  googleQuotaService,
  type RunningGrpcServer,
  requestStateService,
  revocationService,
  startGrpcServer,
  tokenBrokerService,
} from './grpc-server.ts';
export { type OutboundCeilingSettings, outboundCeilingSettings } from './outbound-ceiling-settings.ts';
export {
  createRevocationServiceClient,
  fromRevocationEvent,
  fromRevocationSnapshot,
  isLasting,
  type LastingRevocation,
  type Revocation,
  type RevocationSnapshotContent,
  toRevocationEvent,
  toRevocationSnapshot,
} from './revocations.ts';
export {
  createRevokedSet,
  fromAccessTokenFacts,
  MAX_TOKENS_PER_REVOCATION_CHECK,
  type RevokedSet,
  type TokenFacts,
  toAccessTokenFacts,
} from './revoked-set.ts';
export {
  hasServiceCredential,
  requireServiceCredential,
  SERVICE_CREDENTIAL_HEADER,
  serviceCredentialInterceptor,
  serviceCredentialMetadata,
} from './service-credential.ts';
export {
  canonicalToolsets,
  DEFAULT_TOOLSETS,
  isToolsetName,
  knownToolsets,
  TOOLSET_NAMES,
  TOOLSETS,
  type ToolsetName,
  toolset,
} from './toolsets.ts';
