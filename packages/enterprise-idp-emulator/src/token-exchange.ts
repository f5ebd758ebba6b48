import { randomBytes } from 'node:crypto';
import { type JWTVerifyGetKey, errors as joseErrors, jwtVerify } from 'jose';
import type { IdpClient, Person } from './directory.ts';
import { single } from './form-body.ts';
import { OAuthError } from './oauth-error.ts';
import type { SigningKey } from './signing-key.ts';
import { ID_JAG_TOKEN_TYPE, ID_JAG_TYP, ID_TOKEN_TYPE } from './spec-names.ts';

export interface TokenExchangeDeps {
  issuer: string;
  people: Person[];
  signingKey: SigningKey;
  /** This IdP's own key set, to verify the ID tokens it issued. */
  ownKeys: JWTVerifyGetKey;
  idJagTtlSeconds: number;
}

/**
 * RFC 8693 token exchange issuing an ID-JAG (draft-ietf-oauth-identity-assertion-authz-grant,
 * §Token Exchange and its Processing Rules; the extension's §4): the subject token is an ID token
 * of this IdP whose `aud` is the authenticated client; the client's policy must allow the
 * `audience` (and `resource`); the scopes granted are those asked for within the policy (all of
 * the policy's when none are asked for). The ID-JAG carries `iss`, `sub`, `aud`, `client_id` (the
 * client's id at the audience), `jti`, `exp`, `iat`, `resource`, `scope`, `email` and `auth_time`.
 */
export async function exchangeForIdJag(form: URLSearchParams, client: IdpClient, deps: TokenExchangeDeps) {
  if (single(form, 'requested_token_type') !== ID_JAG_TOKEN_TYPE)
    throw new OAuthError('invalid_request', `requested_token_type must be ${ID_JAG_TOKEN_TYPE}`);
  if (single(form, 'subject_token_type') !== ID_TOKEN_TYPE)
    throw new OAuthError('invalid_request', `subject_token_type must be ${ID_TOKEN_TYPE}`);
  const subjectToken = single(form, 'subject_token');
  const audience = single(form, 'audience');
  if (!subjectToken || !audience)
    throw new OAuthError('invalid_request', 'subject_token and audience are required');
  if (form.has('actor_token')) throw new OAuthError('invalid_request', 'actor_token is not used here');

  const person = await subjectOf(subjectToken, client, deps);
  const resource = single(form, 'resource');
  const policy = client.exchanges?.find(
    (candidate) =>
      candidate.audience === audience && (resource === undefined || candidate.resource === resource),
  );
  if (!policy)
    throw new OAuthError('invalid_target', 'this client may not obtain grants for that audience or resource');
  if (policy.people && !policy.people.includes(person.sub))
    throw new OAuthError('invalid_grant', 'policy does not let this person use that application');
  const asked = single(form, 'scope')?.split(' ').filter(Boolean);
  const scopes = asked ? asked.filter((scope) => policy.scopes.includes(scope)) : policy.scopes;
  if (scopes.length === 0)
    throw new OAuthError('invalid_scope', 'policy grants none of the scopes asked for');

  const iat = Math.floor(Date.now() / 1000);
  const idJag = await deps.signingKey.sign(
    {
      iss: deps.issuer,
      sub: person.sub,
      aud: policy.audience,
      client_id: policy.clientIdAtAudience,
      jti: randomBytes(16).toString('base64url'),
      iat,
      exp: iat + deps.idJagTtlSeconds,
      ...((resource ?? policy.resource) ? { resource: resource ?? policy.resource } : {}),
      scope: scopes.join(' '),
      email: person.email,
    },
    { typ: ID_JAG_TYP },
  );
  return {
    issued_token_type: ID_JAG_TOKEN_TYPE,
    access_token: idJag,
    token_type: 'N_A',
    scope: scopes.join(' '),
    expires_in: deps.idJagTtlSeconds,
  };
}

/** The person of an ID token this IdP issued to `client` (the draft: its `aud` is the client). */
async function subjectOf(idToken: string, client: IdpClient, deps: TokenExchangeDeps): Promise<Person> {
  try {
    const { payload } = await jwtVerify(idToken, deps.ownKeys, {
      issuer: deps.issuer,
      audience: client.clientId,
      typ: 'JWT',
    });
    const person = deps.people.find((candidate) => candidate.sub === payload.sub);
    if (person) return person;
  } catch (error) {
    if (error instanceof joseErrors.JWTExpired)
      throw new OAuthError('invalid_grant', 'the ID token has expired');
    throw new OAuthError(
      'invalid_grant',
      'the subject token is not an ID token this IdP issued to this client',
    );
  }
  throw new OAuthError('invalid_grant', 'the subject is not known here');
}
