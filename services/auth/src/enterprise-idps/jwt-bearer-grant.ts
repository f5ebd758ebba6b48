import type { Logger } from '@sheetgate/service-runtime';
import type Provider from 'oidc-provider';
import { errors, type KoaContextWithOIDC, type ResourceServer } from 'oidc-provider';
import type { AuditLog } from '../audit/index.ts';
import type { AppToolsets } from '../connected-apps/app-toolsets.ts';
import type { Queryable } from '../db/pool.ts';
import { createOidcModelQueries } from '../oidc/oidc-model-queries.ts';
import { mcpResource } from '../oidc/resource.ts';
import type { AssertionReplays } from './assertion-replays.ts';
import { proofOfPossession } from './dpop-binding.ts';
import { IdJagRefusal, invalidGrant, JWT_BEARER_GRANT_TYPE } from './id-jag-refusal.ts';
import { type IdJagVerifier, IdpKeysUnavailable, type VerifiedIdJag } from './id-jag-verifier.ts';
import type { PersonMapping } from './person-mapping.ts';
import { accessTokenScopes } from './token-scopes.ts';

export interface JwtBearerGrantDeps {
  baseUrl: string;
  pool: Queryable;
  verifier: IdJagVerifier;
  people: PersonMapping;
  replays: AssertionReplays;
  /** The operator's toolsets for the client are kept as the app's choice: its tokens carry them. */
  appToolsets: Pick<AppToolsets, 'choose'>;
  audit: AuditLog;
  logger: Logger;
  resourceServerInfo: ResourceServer;
}

/** A 503 the client retries: the IdP's keys could not be fetched, so the assertion is not judged. */
class IdpUnreachable extends errors.TemporarilyUnavailable {
  constructor() {
    super('the identity provider’s signing keys could not be fetched; try again shortly');
    this.status = 503;
    this.statusCode = 503;
    this.expose = true;
  }
}

function providerError(refusal: IdJagRefusal): Error {
  switch (refusal.error) {
    case 'invalid_request':
      return new errors.InvalidRequest(refusal.description);
    case 'unauthorized_client':
      return new errors.UnauthorizedClient(refusal.description);
    case 'invalid_scope':
      return new errors.InvalidScope(refusal.description, '');
    default:
      return new errors.InvalidGrant(refusal.description);
  }
}

/**
 * RFC 7523's JWT bearer grant at the token endpoint, for ID-JAGs (the MCP extension
 * Enterprise-Managed Authorization, §5; docs/design.md §4.7), through oidc-provider's extension
 * point for grants. The client authenticates as for any grant (the provider has done so when this
 * runs); the assertion is verified, the scopes worked out, the person found and the `jti` claimed,
 * in that order, so a refusal never spends the assertion. What it issues is the access token of the
 * code flow — a JWT bound to the MCP resource under a grant of the person to the app (listed under
 * Connected apps, revoked by Disconnect), with the toolsets the operator gave the client — and no
 * refresh token (the draft's §Refresh Token: the client presents a new ID-JAG instead). A request
 * with a DPoP proof gets that token bound to the proof's key (`cnf.jkt`, `token_type: DPoP`), as
 * the code flow does (RFC 9449 §5); its proof is judged first, so a bad one spends no ID-JAG.
 */
export function registerJwtBearerGrant(provider: Provider, deps: JwtBearerGrantDeps): void {
  const models = createOidcModelQueries(deps.pool);
  const resource = mcpResource(deps.baseUrl);

  async function judge(
    ctx: KoaContextWithOIDC,
  ): Promise<{ idJag: VerifiedIdJag; personId: string; scopes: string[] }> {
    const client = ctx.oidc.client!;
    const { assertion, scope } = ctx.oidc.params as { assertion?: string; scope?: string };
    if (!assertion)
      throw new IdJagRefusal('invalid_request', 'no_assertion', 'the assertion parameter is missing');
    if (!deps.verifier.trustsClient(client.clientId))
      throw new IdJagRefusal(
        'unauthorized_client',
        'client_not_listed',
        'this client may not use this grant',
      );
    if (client.clientAuthMethod === 'none')
      throw new IdJagRefusal(
        'unauthorized_client',
        'public_client',
        'this grant is for clients that authenticate (a client secret)',
      );
    const idJag = await deps.verifier.verify(assertion, client.clientId);
    const scopes = accessTokenScopes({
      granted: idJag.scopes,
      allowed: idJag.client.scopes,
      requested: scope,
    });
    const personId = await deps.people.personOf(idJag);
    if (!personId)
      throw invalidGrant(
        'person_unmapped',
        `the assertion names nobody known here; the person signs in once at ${deps.baseUrl}/dashboard`,
      );
    if (!(await deps.replays.claim(idJag.idp.issuer, idJag.jti, idJag.expiresAt)))
      throw invalidGrant('replayed', 'the assertion has already been used');
    return { idJag, personId, scopes };
  }

  /** The person's grant to the app (their newest, or a new one) now holds exactly these scopes. */
  async function grantFor(personId: string, clientId: string, scopes: string[]) {
    const newest = await models.newestGrantId(personId, clientId);
    const grant =
      (newest ? await provider.Grant.find(newest) : undefined) ??
      new provider.Grant({ accountId: personId, clientId });
    grant.resources = { ...grant.resources, [resource]: scopes.join(' ') };
    await grant.save();
    return grant;
  }

  async function jwtBearerGrant(ctx: KoaContextWithOIDC): Promise<void> {
    const client = ctx.oidc.client!;
    let proof: Awaited<ReturnType<typeof proofOfPossession>>;
    try {
      proof = await proofOfPossession(provider, ctx);
    } catch (error) {
      await deps.audit.record('enterprise_grant.refused', {
        details: { clientId: client.clientId, reason: 'dpop_proof' },
      });
      throw error;
    }
    let judged: Awaited<ReturnType<typeof judge>>;
    try {
      judged = await judge(ctx);
    } catch (error) {
      if (error instanceof IdpKeysUnavailable) {
        deps.logger.warn({ err: error }, 'an enterprise identity provider’s keys could not be fetched');
        throw new IdpUnreachable();
      }
      if (!(error instanceof IdJagRefusal)) throw error;
      await deps.audit.record('enterprise_grant.refused', {
        details: { clientId: client.clientId, reason: error.reason },
      });
      throw providerError(error);
    }
    const { idJag, personId, scopes } = judged;
    const grant = await grantFor(personId, client.clientId, scopes);
    await deps.appToolsets.choose(personId, client.clientId, idJag.client.toolsets);
    const token = new provider.AccessToken({
      accountId: personId,
      client,
      grantId: grant.jti,
      gty: JWT_BEARER_GRANT_TYPE,
      scope: scopes.join(' '),
    });
    token.resourceServer = new provider.ResourceServer(resource, deps.resourceServerInfo);
    if (proof) token.setThumbprint('jkt', proof.thumbprint);
    ctx.oidc.entity('Grant', grant);
    ctx.oidc.entity('AccessToken', token);
    const accessToken = await token.save();
    await deps.audit.record('enterprise_grant.issued', {
      userId: personId,
      details: { clientId: client.clientId, issuer: idJag.idp.issuer, grantId: grant.jti, scopes },
    });
    ctx.body = {
      access_token: accessToken,
      token_type: token.tokenType,
      expires_in: token.expiration,
      scope: scopes.join(' '),
    };
  }

  provider.registerGrantType(
    JWT_BEARER_GRANT_TYPE,
    jwtBearerGrant,
    ['assertion', 'scope', 'resource'],
    ['resource'],
  );
  provider.use(unlistedClientStatus());
}

/**
 * RFC 6749 §5.2: a client that may not use the grant is `unauthorized_client`. oidc-provider
 * answers a grant type absent from the client's `grant_types` with `invalid_request`; for this
 * grant, the client's metadata holds it exactly when the operator lists the client.
 */
function unlistedClientStatus() {
  return async (ctx: KoaContextWithOIDC, next: () => Promise<void>) => {
    await next();
    const client = ctx.oidc?.client;
    const body = ctx.body as { error?: unknown } | undefined;
    if (
      ctx.status === 400 &&
      body?.error === 'invalid_request' &&
      ctx.oidc?.params?.grant_type === JWT_BEARER_GRANT_TYPE &&
      client &&
      !client.grantTypeAllowed(JWT_BEARER_GRANT_TYPE)
    )
      body.error = 'unauthorized_client';
  };
}
