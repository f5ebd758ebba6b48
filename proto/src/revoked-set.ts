import type { AccessTokenFacts } from '../gen/sheetgate/v1/token_broker.ts';
import type { LastingRevocation, Revocation } from './revocations.ts';

/** What the revocations are judged against: the verified access token's claims and header. */
export interface TokenFacts {
  /** The `grant_id` claim; absent in tokens issued before auth added it. */
  grantId: string | undefined;
  userId: string;
  /** `iat`, in unix seconds. */
  issuedAt: number;
  kid: string;
}

/** The most tokens one `CheckRevocations` call may carry (INVALID_ARGUMENT beyond). */
export const MAX_TOKENS_PER_REVOCATION_CHECK = 256;

/** The wire form of a token's facts (the MCP replica's side of `CheckRevocations`). */
export function toAccessTokenFacts(facts: TokenFacts): AccessTokenFacts {
  return { grantId: facts.grantId ?? '', userId: facts.userId, issuedAt: facts.issuedAt, keyId: facts.kid };
}

/** A token's facts from their wire form (auth's side). */
export function fromAccessTokenFacts(facts: AccessTokenFacts): TokenFacts {
  return {
    grantId: facts.grantId === '' ? undefined : facts.grantId,
    userId: facts.userId,
    issuedAt: facts.issuedAt,
    kid: facts.keyId,
  };
}

/**
 * What is revoked, and the one rule of which access tokens it refuses: grants, persons' grants up
 * to an instant, withdrawn signing keys, the provider's reset instant. An MCP replica keeps one as
 * the revocation stream tells it; auth judges `CheckRevocations` by one made of what it recorded,
 * so both refuse the same tokens. Each entry is dropped once every access token it could refuse has
 * expired (`coversUntil`), so the set stays as small as the revocations of the last access-token
 * lifetime.
 */
export function createRevokedSet() {
  const grants = new Map<string, number>();
  /** Person → the latest instant their grants were all revoked at, and until when it matters. */
  const persons = new Map<string, { revokedAt: number; coversUntil: number }>();
  const signingKeys = new Map<string, number>();
  let providerReset: { resetAt: number; coversUntil: number } | undefined;

  const later = (a: number | undefined, b: number) => (a === undefined || b > a ? b : a);

  function apply(revocation: Revocation): void {
    switch (revocation.kind) {
      case 'api_key':
        return; // Held keys are dropped by api-key-edge.ts, told through onEvent.
      case 'google_connection':
        return; // Not about access tokens: the Google token cache listens for it (edge-google-tokens.ts).
      case 'grant':
        grants.set(revocation.grantId, later(grants.get(revocation.grantId), revocation.coversUntil));
        return;
      case 'person': {
        const known = persons.get(revocation.userId);
        persons.set(revocation.userId, {
          revokedAt: later(known?.revokedAt, revocation.revokedAt),
          coversUntil: later(known?.coversUntil, revocation.coversUntil),
        });
        return;
      }
      case 'signing_key':
        signingKeys.set(revocation.keyId, later(signingKeys.get(revocation.keyId), revocation.coversUntil));
        return;
      case 'provider_reset':
        providerReset = {
          resetAt: later(providerReset?.resetAt, revocation.resetAt),
          coversUntil: later(providerReset?.coversUntil, revocation.coversUntil),
        };
    }
  }

  /** Drops what no unexpired access token is left for. */
  function prune(now: number): void {
    for (const [grantId, coversUntil] of grants) if (coversUntil <= now) grants.delete(grantId);
    for (const [userId, entry] of persons) if (entry.coversUntil <= now) persons.delete(userId);
    for (const [kid, coversUntil] of signingKeys) if (coversUntil <= now) signingKeys.delete(kid);
    if (providerReset && providerReset.coversUntil <= now) providerReset = undefined;
  }

  // `iat` has whole seconds: a token issued in the same second as the revocation, before or after
  // it, is refused (one issued after it is fetched again a second later).
  const issuedBy = (token: TokenFacts, instant: number) => token.issuedAt * 1000 <= instant;

  return {
    apply,
    /** Everything the snapshot says, instead of what was known. */
    replace(revocations: readonly LastingRevocation[]): void {
      grants.clear();
      persons.clear();
      signingKeys.clear();
      providerReset = undefined;
      for (const revocation of revocations) apply(revocation);
    },
    prune,
    /** Whether a revocation refuses this token (verified otherwise). */
    refuses(token: TokenFacts): boolean {
      if (token.grantId !== undefined && grants.has(token.grantId)) return true;
      if (signingKeys.has(token.kid)) return true;
      const person = persons.get(token.userId);
      if (person && issuedBy(token, person.revokedAt)) return true;
      return providerReset !== undefined && issuedBy(token, providerReset.resetAt);
    },
    get size() {
      return grants.size + persons.size + signingKeys.size + (providerReset ? 1 : 0);
    },
  };
}

export type RevokedSet = ReturnType<typeof createRevokedSet>;
