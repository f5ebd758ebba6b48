import {
  createRemoteJWKSet,
  decodeJwt,
  type JWTPayload,
  type JWTVerifyGetKey,
  errors as joseErrors,
  jwtVerify,
} from 'jose';
import { canonicalResource, mcpResource, RESOURCE_SCOPES } from '../oidc/resource.ts';
import type { ClientPolicy, TrustedIdp } from './enterprise-idps-setting.ts';
import { ID_JAG_TYP, invalidGrant } from './id-jag-refusal.ts';

/** As for access tokens at /api/mcp (docs/design.md §7.1): enough for any real assertion. */
export const MAX_ASSERTION_LENGTH = 8_192;
/** Asymmetric only, never `HS*` or `none` (the extension's §7.4.1 allow-list). */
const ALGORITHMS = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
  'Ed25519',
];
const CLOCK_TOLERANCE_SECONDS = 5;
/**
 * ID-JAGs are short-lived (the extension's §7.4.2; IdPs issue them for minutes): one issued more
 * than this long ago is refused (RFC 7523 §3 item 6), which also bounds how long a `jti` is kept.
 */
export const MAX_ASSERTION_AGE_SECONDS = 3_600;

/** An ID-JAG that passed every check of its own; the person and the `jti` are judged after. */
export interface VerifiedIdJag {
  idp: TrustedIdp;
  client: ClientPolicy;
  subject: string;
  email: string | undefined;
  jti: string;
  /** Seconds since the epoch. */
  expiresAt: number;
  scopes: string[];
}

/** The identity provider's keys could not be fetched: nothing is known about the assertion. */
export class IdpKeysUnavailable extends Error {
  constructor(issuer: string, cause: unknown) {
    super(`could not fetch the signing keys of ${issuer}`, { cause });
    this.name = 'IdpKeysUnavailable';
  }
}

/**
 * Checks an ID-JAG as the extension (§5.1, §7.4, §7.6) and the draft's processing rules say:
 * signature by a key in its issuer's JWKS under an allowed algorithm, `typ`, trusted `iss` (and
 * `tenant`), `aud` exactly this server's issuer, `client_id` the authenticated client, `resource`
 * the MCP endpoint when present, `scope` only this server's scopes, `exp`, `iat`, `jti`, `sub`.
 */
export function createIdJagVerifier(options: { baseUrl: string; idps: readonly TrustedIdp[] }) {
  const { baseUrl } = options;
  const keySets = new Map<TrustedIdp, JWTVerifyGetKey>(
    options.idps.map((idp) => [
      idp,
      createRemoteJWKSet(new URL(idp.jwksUri), { timeoutDuration: 3_000, cooldownDuration: 30_000 }),
    ]),
  );
  const clientIds = new Set(options.idps.flatMap((idp) => idp.clients.map((client) => client.clientId)));

  function trustedIdpOf(claims: JWTPayload): TrustedIdp {
    const idp = options.idps.find(
      (candidate) =>
        candidate.issuer === claims.iss &&
        (candidate.tenant === undefined || candidate.tenant === claims.tenant),
    );
    if (!idp) throw invalidGrant('unknown_issuer', 'the assertion’s issuer is not trusted by this server');
    return idp;
  }

  async function verifySignedClaims(assertion: string, idp: TrustedIdp): Promise<JWTPayload> {
    try {
      const { payload } = await jwtVerify(assertion, keySets.get(idp)!, {
        issuer: idp.issuer,
        audience: baseUrl,
        typ: ID_JAG_TYP,
        algorithms: ALGORITHMS,
        clockTolerance: CLOCK_TOLERANCE_SECONDS,
        maxTokenAge: MAX_ASSERTION_AGE_SECONDS,
        requiredClaims: ['exp', 'iat', 'jti', 'sub', 'client_id'],
      });
      return payload;
    } catch (error) {
      throw verificationRefusal(error, idp.issuer, baseUrl);
    }
  }

  return {
    /** Whether any trusted identity provider lists the client (else it may not use the grant). */
    trustsClient: (clientId: string) => clientIds.has(clientId),

    async verify(assertion: string, clientId: string): Promise<VerifiedIdJag> {
      if (assertion.length > MAX_ASSERTION_LENGTH)
        throw invalidGrant('malformed', `the assertion is longer than ${MAX_ASSERTION_LENGTH} characters`);
      let unverified: JWTPayload;
      try {
        unverified = decodeJwt(assertion);
      } catch {
        throw invalidGrant('malformed', 'the assertion is not a signed JWT (compact JWS)');
      }
      const idp = trustedIdpOf(unverified);
      const client = idp.clients.find((candidate) => candidate.clientId === clientId);
      if (!client)
        throw invalidGrant('client_not_trusted', 'this client may not present assertions of this issuer');
      const claims = await verifySignedClaims(assertion, idp);
      // The draft: an array `aud` must hold exactly one element, this server's issuer.
      if (Array.isArray(claims.aud) && claims.aud.length !== 1)
        throw invalidGrant('wrong_audience', `the assertion’s audience must be ${baseUrl} alone`);
      if (claims.client_id !== clientId)
        throw invalidGrant('another_client', 'the assertion was issued to another client');
      if (claims.cnf !== undefined)
        throw invalidGrant('key_bound', 'assertions bound to a key (cnf) are not accepted here');
      checkResource(claims.resource, baseUrl);
      return {
        idp,
        client,
        subject: boundedString(claims.sub, 'sub'),
        email: typeof claims.email === 'string' ? claims.email : undefined,
        jti: boundedString(claims.jti, 'jti'),
        expiresAt: claims.exp!,
        scopes: grantedScopes(claims.scope),
      };
    },
  };
}

export type IdJagVerifier = ReturnType<typeof createIdJagVerifier>;

function boundedString(value: unknown, claim: string): string {
  if (typeof value !== 'string' || value.length === 0 || value.length > 256)
    throw invalidGrant('malformed', `the assertion’s ${claim} must be a string of 1 to 256 characters`);
  return value;
}

/** The extension's §7.6.2: a `resource` must name the MCP endpoint (§3's spellings of it). */
function checkResource(resource: unknown, baseUrl: string): void {
  if (resource === undefined) return;
  const values = Array.isArray(resource) ? resource : [resource];
  const ours = values.every(
    (value) => typeof value === 'string' && canonicalResource(value, baseUrl) === mcpResource(baseUrl),
  );
  if (!ours || values.length === 0)
    throw invalidGrant(
      'wrong_resource',
      `the assertion is for another resource: this server serves ${mcpResource(baseUrl)}`,
    );
}

/** The extension's §7.6.2: `scope` holds only this server's scopes; without one nothing is granted. */
function grantedScopes(scope: unknown): string[] {
  if (typeof scope !== 'string')
    throw invalidGrant('no_scope', 'the assertion grants no scope (it has no scope claim)');
  const scopes = [...new Set(scope.split(' ').filter(Boolean))];
  const known = new Set<string>(RESOURCE_SCOPES);
  const unknown = scopes.filter((value) => !known.has(value));
  if (scopes.length === 0 || unknown.length > 0)
    throw invalidGrant('unknown_scope', `the assertion’s scope must be among ${RESOURCE_SCOPES.join(', ')}`);
  return scopes;
}

/** What a failed `jwtVerify` means for the client; a key set that could not be fetched is no verdict. */
function verificationRefusal(error: unknown, issuer: string, baseUrl: string): Error {
  if (error instanceof joseErrors.JWTExpired) return invalidGrant('expired', 'the assertion has expired');
  if (error instanceof joseErrors.JWTClaimValidationFailed) {
    if (error.claim === 'aud')
      return invalidGrant('wrong_audience', `the assertion is for another audience: it must be ${baseUrl}`);
    if (error.claim === 'typ')
      return invalidGrant('wrong_type', `the assertion is not an ID-JAG (its typ must be ${ID_JAG_TYP})`);
    if (error.claim === 'iat')
      return invalidGrant('wrong_time', 'the assertion was issued in the future or more than an hour ago');
    if (error.reason === 'missing')
      return invalidGrant('malformed', `the assertion lacks the ${error.claim} claim`);
    return invalidGrant('malformed', `the assertion’s ${error.claim} claim is not valid`);
  }
  if (
    error instanceof joseErrors.JWSSignatureVerificationFailed ||
    error instanceof joseErrors.JWKSNoMatchingKey ||
    error instanceof joseErrors.JOSEAlgNotAllowed ||
    error instanceof joseErrors.JOSENotSupported
  )
    return invalidGrant('bad_signature', 'the assertion is not signed by a key of its issuer');
  if (error instanceof joseErrors.JWSInvalid || error instanceof joseErrors.JWTInvalid)
    return invalidGrant('malformed', 'the assertion is not a valid signed JWT');
  return new IdpKeysUnavailable(issuer, error);
}
