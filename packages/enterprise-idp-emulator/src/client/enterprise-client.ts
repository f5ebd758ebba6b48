import { createHash, randomBytes } from 'node:crypto';
import {
  ID_JAG_GRANT_PROFILE,
  ID_JAG_TOKEN_TYPE,
  ID_TOKEN_TYPE,
  JWT_BEARER_GRANT_TYPE,
  TOKEN_EXCHANGE_GRANT_TYPE,
} from '../spec-names.ts';

/**
 * An MCP client's side of Enterprise-Managed Authorization, written from the extension's text
 * (io.modelcontextprotocol/enterprise-managed-authorization, stable) and the drafts it cites:
 * 1. single sign-on at the enterprise IdP (OpenID Connect, authorization code with PKCE): §3;
 * 2. token exchange (RFC 8693) of the ID token for an ID-JAG at the IdP, with `audience` the
 *    Resource Authorization Server's issuer and `resource` the MCP server: §4;
 * 3. the ID-JAG presented as a JWT authorization grant (RFC 7523) at that server's token
 *    endpoint, the client authenticating with its own credentials there: §5;
 * found by discovery: the MCP server's protected-resource metadata (RFC 9728) names its
 * authorization server, whose metadata (RFC 8414) lists the jwt-bearer grant and the ID-JAG
 * profile: §6. Answers are returned as they came, so tests can read refusals.
 */

export interface ClientCredentials {
  clientId: string;
  clientSecret: string;
}

export interface OAuthAnswer {
  status: number;
  body: Record<string, unknown>;
}

async function post(
  url: string,
  form: Record<string, string | undefined>,
  client: ClientCredentials,
  headers: Record<string, string> = {},
) {
  const body = new URLSearchParams();
  for (const [name, value] of Object.entries(form)) if (value !== undefined) body.set(name, value);
  const basic = Buffer.from(
    `${encodeURIComponent(client.clientId)}:${encodeURIComponent(client.clientSecret)}`,
  );
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: `Basic ${basic.toString('base64')}`,
      ...headers,
    },
    body,
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

async function getJson(url: string): Promise<Record<string, unknown>> {
  const response = await fetch(url, { headers: { accept: 'application/json' } });
  if (!response.ok) throw new Error(`GET ${url}: ${response.status}`);
  return (await response.json()) as Record<string, unknown>;
}

/** The IdP's endpoints, from its OpenID Connect discovery document. */
export async function idpEndpoints(issuer: string) {
  const metadata = await getJson(`${issuer}/.well-known/openid-configuration`);
  return {
    authorizationEndpoint: String(metadata.authorization_endpoint),
    tokenEndpoint: String(metadata.token_endpoint),
    issuesIdJags: ((metadata.identity_chaining_requested_token_types_supported as string[]) ?? []).includes(
      ID_JAG_TOKEN_TYPE,
    ),
  };
}

/**
 * §6: the MCP server's authorization server and whether it takes ID-JAGs — its metadata lists the
 * profile and the grant type. `audience` is that server's issuer, `resource` the MCP server's id.
 */
export async function resourceAuthorizationServer(mcpUrl: string) {
  const url = new URL(mcpUrl);
  const protectedResource = await getJson(
    `${url.origin}/.well-known/oauth-protected-resource${url.pathname}`,
  );
  const issuer = String((protectedResource.authorization_servers as string[])[0]);
  const issuerUrl = new URL(issuer);
  const metadata = await getJson(
    `${issuerUrl.origin}/.well-known/oauth-authorization-server${issuerUrl.pathname.replace(/\/$/, '')}`,
  );
  const profiles = (metadata.authorization_grant_profiles_supported as string[] | undefined) ?? [];
  const grantTypes = (metadata.grant_types_supported as string[] | undefined) ?? [];
  return {
    resource: String(protectedResource.resource),
    audience: String(metadata.issuer),
    tokenEndpoint: String(metadata.token_endpoint),
    takesIdJags: profiles.includes(ID_JAG_GRANT_PROFILE) && grantTypes.includes(JWT_BEARER_GRANT_TYPE),
  };
}

/** Step 1's authorization request (OpenID Connect, PKCE S256, state, nonce). */
export function signInRequest(authorizationEndpoint: string, clientId: string, redirectUri: string) {
  const verifier = randomBytes(32).toString('base64url');
  const state = randomBytes(12).toString('base64url');
  const url = new URL(authorizationEndpoint);
  url.search = new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: redirectUri,
    scope: 'openid email',
    state,
    nonce: randomBytes(12).toString('base64url'),
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
  }).toString();
  return { url: url.href, state, verifier };
}

/** Step 1's code exchange: the person's ID token. */
export async function redeemSignIn(
  tokenEndpoint: string,
  client: ClientCredentials,
  options: { code: string; redirectUri: string; verifier: string },
): Promise<string> {
  const { status, body } = await post(
    tokenEndpoint,
    {
      grant_type: 'authorization_code',
      code: options.code,
      redirect_uri: options.redirectUri,
      code_verifier: options.verifier,
    },
    client,
  );
  if (status !== 200 || typeof body.id_token !== 'string')
    throw new Error(`sign-in failed: ${JSON.stringify(body)}`);
  return body.id_token;
}

/** Step 2 (§4): RFC 8693 token exchange of the ID token for an ID-JAG. */
export function requestIdJag(
  tokenEndpoint: string,
  client: ClientCredentials,
  options: { idToken: string; audience: string; resource?: string; scope?: string },
): Promise<OAuthAnswer> {
  return post(
    tokenEndpoint,
    {
      grant_type: TOKEN_EXCHANGE_GRANT_TYPE,
      requested_token_type: ID_JAG_TOKEN_TYPE,
      audience: options.audience,
      resource: options.resource,
      scope: options.scope,
      subject_token: options.idToken,
      subject_token_type: ID_TOKEN_TYPE,
    },
    client,
  );
}

/**
 * Step 3 (§5): the ID-JAG as an RFC 7523 JWT authorization grant, for an access token; with `dpop`,
 * a DPoP proof for the token endpoint (RFC 9449 §5), for a token bound to the proof's key.
 */
export function requestAccessToken(
  tokenEndpoint: string,
  client: ClientCredentials,
  options: { assertion: string; scope?: string; dpop?: string },
): Promise<OAuthAnswer> {
  return post(
    tokenEndpoint,
    { grant_type: JWT_BEARER_GRANT_TYPE, assertion: options.assertion, scope: options.scope },
    client,
    options.dpop ? { dpop: options.dpop } : {},
  );
}
