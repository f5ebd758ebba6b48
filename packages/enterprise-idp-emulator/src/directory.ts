/** A person the IdP signs in. */
export interface Person {
  /** The IdP's subject identifier (opaque, unique at this issuer). */
  sub: string;
  email: string;
  name?: string;
}

/**
 * What the IdP's administrator lets a client obtain for a Resource Authorization Server: the
 * IdP's policy evaluated at token exchange (the draft's §Token Exchange, Processing Rules).
 */
export interface ExchangePolicy {
  /** The Resource Authorization Server's issuer, the ID-JAG's `aud`. */
  audience: string;
  /** The protected resource (RFC 8707); the ID-JAG's `resource` when set. */
  resource?: string;
  /** The most it grants; a request gets the intersection with what it asks for. */
  scopes: string[];
  /** The client's id at that server, the ID-JAG's `client_id` (the draft's §Cross-Domain Client ID Handling). */
  clientIdAtAudience: string;
  /** Only these people (their `sub`); everyone when left out. */
  people?: string[];
}

/** A client of the IdP: it signs people in (OpenID Connect) and exchanges their ID tokens. */
export interface IdpClient {
  clientId: string;
  clientSecret: string;
  /** Exact redirect URIs; any http(s) URI when left out. */
  redirectUris?: string[];
  exchanges?: ExchangePolicy[];
}

export const DEFAULT_PEOPLE: Person[] = [
  { sub: '00u-alice', email: 'alice@example.com', name: 'Alice Example' },
  { sub: '00u-bob', email: 'bob@example.com', name: 'Bob Example' },
];
