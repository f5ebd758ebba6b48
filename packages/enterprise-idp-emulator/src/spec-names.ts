/** The names the specifications give things, in one place (README.md cites each). */
export const TOKEN_EXCHANGE_GRANT_TYPE = 'urn:ietf:params:oauth:grant-type:token-exchange'; // RFC 8693 §2.1
export const ID_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:id_token'; // RFC 8693 §3
/** draft-ietf-oauth-identity-assertion-authz-grant §Token Exchange, §IANA OAuth URI. */
export const ID_JAG_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:id-jag';
/** The ID-JAG's JWT `typ` (the draft's §ID-JAG Claims; RFC 8725 §3.11). */
export const ID_JAG_TYP = 'oauth-id-jag+jwt';
export const JWT_BEARER_GRANT_TYPE = 'urn:ietf:params:oauth:grant-type:jwt-bearer'; // RFC 7523 §2.1
export const ID_JAG_GRANT_PROFILE = 'urn:ietf:params:oauth:grant-profile:id-jag';
