/**
 * The names this grant is known by (draft-ietf-oauth-identity-assertion-authz-grant: the
 * Identity Assertion JWT Authorization Grant, ID-JAG, presented with RFC 7523's JWT bearer grant).
 */
export const JWT_BEARER_GRANT_TYPE = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
/** RFC 8414 `authorization_grant_profiles_supported` value for the ID-JAG profile. */
export const ID_JAG_GRANT_PROFILE = 'urn:ietf:params:oauth:grant-profile:id-jag';
/** The JWT `typ` every ID-JAG carries (RFC 8725 §3.11 explicit typing). */
export const ID_JAG_TYP = 'oauth-id-jag+jwt';

/**
 * Why a JWT bearer request is refused, as RFC 6749 §5.2 names it:
 * - `invalid_request`: no `assertion` (RFC 7521 §4.1);
 * - `unauthorized_client`: the client may not use this grant at all (no operator lists it, or it
 *   has no credentials: the draft's §Security "only for confidential clients");
 * - `invalid_grant`: the assertion is not a valid ID-JAG for this server and client, or names no
 *   Sheetgate person (RFC 7521 §5.2, RFC 7523 §3.1; the extension's §7.6.2 for `aud`, `resource`
 *   and `scope`; the draft's processing rules for `typ`, `aud` and `client_id`);
 * - `invalid_scope`: the token request asks for more than the ID-JAG grants or the client may have.
 * `reason` is a stable word for the audit log; `description` goes to the client.
 */
export class IdJagRefusal extends Error {
  readonly error: 'invalid_request' | 'unauthorized_client' | 'invalid_grant' | 'invalid_scope';
  readonly reason: string;
  readonly description: string;
  constructor(error: IdJagRefusal['error'], reason: string, description: string) {
    super(description);
    this.name = 'IdJagRefusal';
    this.error = error;
    this.reason = reason;
    this.description = description;
  }
}

export const invalidGrant = (reason: string, description: string) =>
  new IdJagRefusal('invalid_grant', reason, description);
