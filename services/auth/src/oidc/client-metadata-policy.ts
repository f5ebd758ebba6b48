import { type Configuration, errors } from 'oidc-provider';
import { JWT_BEARER_GRANT_TYPE } from '../enterprise-idps/id-jag-refusal.ts';
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
 *
 * A client the operator lets present ID-JAGs (`presentsIdJags`, docs/design.md §4.7) may use the
 * JWT bearer grant whatever grant types it registered, and no other client may: the operator's
 * list is the authority (an enterprise client's registration or metadata document rarely names it).
 */
export function clientMetadataPolicy(
  knownScopes: ReadonlySet<string>,
  presentsIdJags: (clientId: string) => boolean = () => false,
): NonNullable<Configuration['extraClientMetadata']> {
  return {
    properties: DECLARED_PROPERTIES,
    validator(_ctx, key, value, metadata) {
      if (value !== undefined && typeof value !== 'string')
        throw new errors.InvalidClientMetadata(`${key} must be a string`);
      if (key !== DECLARED_PROPERTIES[0]) return;
      try {
        applyClientPolicy(metadata as Record<string, unknown>, knownScopes);
        allowJwtBearerGrant(metadata as Record<string, unknown>, presentsIdJags);
      } catch (error) {
        if (!(error instanceof ClientPolicyError)) throw error;
        throw error.error === 'invalid_redirect_uri'
          ? new errors.InvalidRedirectUri(error.message)
          : new errors.InvalidClientMetadata(error.message);
      }
    },
  };
}

/**
 * The JWT bearer grant in a client's `grant_types` exactly when the operator lists the client: it
 * is added on every load (never needed in a registration), and taken out otherwise, so metadata
 * stored while a client was listed still loads once the operator no longer trusts any IdP (the
 * provider refuses a grant type it does not support).
 */
function allowJwtBearerGrant(
  metadata: Record<string, unknown>,
  presentsIdJags: (clientId: string) => boolean,
) {
  const listed = typeof metadata.client_id === 'string' && presentsIdJags(metadata.client_id);
  // No grant_types: the provider's defaults (clientDefaults in provider.ts), plus the grant.
  if (metadata.grant_types === undefined && listed)
    metadata.grant_types = ['authorization_code', 'refresh_token', JWT_BEARER_GRANT_TYPE];
  if (!Array.isArray(metadata.grant_types)) return;
  const others = metadata.grant_types.filter((grantType) => grantType !== JWT_BEARER_GRANT_TYPE);
  metadata.grant_types = listed ? [...others, JWT_BEARER_GRANT_TYPE] : others;
}
