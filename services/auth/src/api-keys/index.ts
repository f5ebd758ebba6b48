export { API_KEY_PATTERN } from './api-key-format.ts';
export { ApiKeyInputError, type ApiKeyScopes, requestedExpiry } from './api-key-input.ts';
export {
  type ApiKeyLibrary,
  type ApiKeyLibraryOptions,
  type ApiKeyResolution,
  type ApiKeyStatus,
  createApiKeyLibrary,
  type ImportedApiKeys,
} from './api-key-library.ts';
export type { ApiKeyRecord } from './api-key-queries.ts';
export { createKeyRevocations, type KeyRevocations } from './key-revocations.ts';
