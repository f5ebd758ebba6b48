export { type CachedAccessToken, createAccessTokenCache } from './access-token-cache.ts';
export {
  createGoogleConnectionLibrary,
  type GoogleConnection,
  type GoogleConnectionLibrary,
} from './google-connections.ts';
export { type GoogleEndpoints, googleEndpoints } from './google-endpoints.ts';
export { GoogleUnavailableError } from './google-errors.ts';
export {
  GOOGLE_API_SCOPES,
  GOOGLE_REQUESTED_SCOPES,
  type GoogleScopeMode,
  googleRequestedScopes,
} from './google-scopes.ts';
export { type GoogleSettings, googleRedirectUri } from './google-settings.ts';
export { createGoogleSignIn } from './sign-in-routes.ts';
export {
  createGoogleTokenBroker,
  type GoogleTokenBroker,
} from './token-broker.ts';
