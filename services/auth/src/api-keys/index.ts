export { API_KEY_PATTERN } from './api-key-format.ts';
export { ApiKeyInputError, type ApiKeyScopes, requestedExpiry } from './api-key-input.ts';
export { API_KEY_LEASE_SHARE, apiKeyLeaseSize, MAX_SCALED_API_KEY_LEASE } from './api-key-lease.ts';
export {
  type ApiKeyLibrary,
  type ApiKeyLibraryOptions,
  type ApiKeyResolution,
  type ApiKeyStatus,
  createApiKeyLibrary,
} from './api-key-library.ts';
export type { ApiKeyCredential, ApiKeyRecord } from './api-key-queries.ts';
export type { ImportedApiKeys } from './api-key-resolver.ts';
export { createKeyRevocations, type KeyRevocations } from './key-revocations.ts';
