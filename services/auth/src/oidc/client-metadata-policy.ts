import { type Configuration, errors } from 'oidc-provider';
import { applyClientPolicy, ClientPolicyError } from './redirect-policy.ts';

// RFC 7591 §2 metadata that real clients send (mcp-remote) and oidc-provider does not know.
// Declaring them is also what makes the provider run `validator` on every client it builds:
// registered, loaded from storage, or read from a Client ID Metadata Document.
const DECLARED_PROPERTIES = ['software_id', 'software_version'];

/**
 * oidc-provider's `extraClientMetadata` carrying Sheetgate's client policy (redirect-policy.ts), so
 * the policy holds for dynamic registration and Client ID Metadata Documents alike. The provider
 * calls the validator once per declared property, before its own checks, with the whole metadata
 * (which it may change): the policy runs on the first call.
 */
export function clientMetadataPolicy(
  knownScopes: ReadonlySet<string>,
): NonNullable<Configuration['extraClientMetadata']> {
  return {
    properties: DECLARED_PROPERTIES,
    validator(_ctx, key, value, metadata) {
      if (value !== undefined && typeof value !== 'string')
        throw new errors.InvalidClientMetadata(`${key} must be a string`);
      if (key !== DECLARED_PROPERTIES[0]) return;
      try {
        applyClientPolicy(metadata as Record<string, unknown>, knownScopes);
      } catch (error) {
        if (!(error instanceof ClientPolicyError)) throw error;
        throw error.error === 'invalid_redirect_uri'
          ? new errors.InvalidRedirectUri(error.message)
          : new errors.InvalidClientMetadata(error.message);
      }
    },
  };
}
