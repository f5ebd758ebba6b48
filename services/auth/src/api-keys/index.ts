export { API_KEY_PATTERN } from './api-key-format.ts';
export { ApiKeyInputError, type ApiKeyScopes, requestedExpiry } from './api-key-input.ts';
export {
  API_KEY_LEASE_SHARE,
  type ApiKeyLibrary,
  type ApiKeyLibraryOptions,
  type ApiKeyResolution,
  type ApiKeyStatus,
  apiKeyLeaseSize,
  createApiKeyLibrary,
  type ImportedApiKeys,
  MAX_SCALED_API_KEY_LEASE,
} from './api-key-library.ts';
export type { ApiKeyRecord } from './api-key-queries.ts';
export { createKeyRevocations, type KeyRevocations } from './key-revocations.ts';
