/**
 * The JWS algorithms a DPoP proof (RFC 9449) may be signed with at the MCP endpoint (docs/design.md
 * §7.1): asymmetric only, and the list auth's token endpoint takes (oidc-provider's default
 * `enabledJWA.dPoPSigningAlgValues`, which auth advertises as `dpop_signing_alg_values_supported`),
 * so that any key a client may bind a token to at auth is a key the MCP service takes proofs of.
 * services/mcp/test/dpop.test.ts holds the two metadata documents to the same list.
 */
export const DPOP_SIGNING_ALGORITHMS = ['ES256', 'Ed25519', 'EdDSA'] as const;
