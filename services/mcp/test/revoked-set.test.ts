import { createRevokedSet, type TokenFacts } from '@sheetgate/proto';
import { describe, expect, it } from 'vitest';
import { createStreamFreshness } from '../src/auth/stream-freshness.ts';

const token = (facts: Partial<TokenFacts> = {}): TokenFacts => ({
  grantId: 'grant-1',
  userId: 'user-1',
  issuedAt: 1_000,
  kid: 'kid-1',
  ...facts,
});

describe('the revoked set', () => {
  it('refuses a revoked grant’s tokens, and no other grant’s or a token without a grant id', () => {
    const revoked = createRevokedSet();
    expect(revoked.refuses(token())).toBe(false);
    revoked.apply({ kind: 'grant', grantId: 'grant-1', coversUntil: 2_000_000 });
    expect(revoked.refuses(token())).toBe(true);
    expect(revoked.refuses(token({ grantId: 'grant-2' }))).toBe(false);
    expect(revoked.refuses(token({ grantId: undefined }))).toBe(false);
  });

  it('refuses a person’s tokens issued up to the instant their grants were revoked, not after', () => {
    const revoked = createRevokedSet();
    revoked.apply({ kind: 'person', userId: 'user-1', revokedAt: 1_000_500, coversUntil: 2_000_000 });
    expect(revoked.refuses(token({ issuedAt: 999, grantId: undefined }))).toBe(true);
    // Same second as the revocation: `iat` cannot tell before from after, so refused.
    expect(revoked.refuses(token({ issuedAt: 1_000 }))).toBe(true);
    expect(revoked.refuses(token({ issuedAt: 1_001 }))).toBe(false);
    expect(revoked.refuses(token({ userId: 'user-2', issuedAt: 999 }))).toBe(false);
    // An earlier instant announced late does not shorten the later one.
    revoked.apply({ kind: 'person', userId: 'user-1', revokedAt: 10_000, coversUntil: 20_000 });
    expect(revoked.refuses(token({ issuedAt: 1_000 }))).toBe(true);
  });

  it('refuses tokens signed by a withdrawn key, and everything issued up to the provider reset', () => {
    const revoked = createRevokedSet();
    revoked.apply({ kind: 'signing_key', keyId: 'kid-1', coversUntil: 2_000_000 });
    expect(revoked.refuses(token({ grantId: undefined }))).toBe(true);
    expect(revoked.refuses(token({ kid: 'kid-2' }))).toBe(false);
    revoked.apply({ kind: 'provider_reset', resetAt: 1_500_000, coversUntil: 2_000_000 });
    expect(revoked.refuses(token({ kid: 'kid-2', userId: 'user-9', issuedAt: 1_500 }))).toBe(true);
    expect(revoked.refuses(token({ kid: 'kid-2', userId: 'user-9', issuedAt: 1_501 }))).toBe(false);
  });

  it('ignores API keys (resolved by auth on every request)', () => {
    const revoked = createRevokedSet();
    revoked.apply({ kind: 'api_key', keyId: 'key-1' });
    expect(revoked.size).toBe(0);
  });

  it('drops each entry once every token it could refuse has expired, so the set stays small', () => {
    const revoked = createRevokedSet();
    revoked.apply({ kind: 'grant', grantId: 'grant-1', coversUntil: 5_000 });
    revoked.apply({ kind: 'grant', grantId: 'grant-2', coversUntil: 9_000 });
    revoked.apply({ kind: 'person', userId: 'user-1', revokedAt: 1, coversUntil: 5_000 });
    revoked.apply({ kind: 'provider_reset', resetAt: 1, coversUntil: 5_000 });
    revoked.apply({ kind: 'signing_key', keyId: 'kid-9', coversUntil: 5_000 });
    expect(revoked.size).toBe(5);
    revoked.prune(4_999);
    expect(revoked.size).toBe(5);
    revoked.prune(5_000);
    expect(revoked.size).toBe(1);
    expect(revoked.refuses(token({ grantId: 'grant-2' }))).toBe(true);
    expect(revoked.refuses(token())).toBe(false);
    revoked.prune(9_000);
    expect(revoked.size).toBe(0);
  });

  it('a snapshot replaces what was known', () => {
    const revoked = createRevokedSet();
    revoked.apply({ kind: 'grant', grantId: 'grant-1', coversUntil: 5_000 });
    revoked.replace([{ kind: 'grant', grantId: 'grant-2', coversUntil: 5_000 }]);
    expect(revoked.refuses(token())).toBe(false);
    expect(revoked.refuses(token({ grantId: 'grant-2' }))).toBe(true);
  });
});

describe('the staleness rule', () => {
  it('is current until staleAfter past the sending of the newest echoed probe', () => {
    const freshness = createStreamFreshness();
    const first = freshness.probe(0);
    expect(freshness.isCurrent(0)).toBe(false); // no snapshot yet
    freshness.echoed(first, 1_000); // the snapshot, echoing the opening probe
    expect(freshness.isCurrent(999)).toBe(true);
    expect(freshness.isCurrent(1_000)).toBe(false);
    const second = freshness.probe(600);
    freshness.echoed(second);
    expect(freshness.isCurrent(1_599)).toBe(true);
    expect(freshness.remainingMs(1_100)).toBe(500);
  });

  it('counts from the sending, not the arrival: an echo held up on the way buys nothing past it', () => {
    const freshness = createStreamFreshness();
    freshness.echoed(freshness.probe(0), 1_000);
    const held = freshness.probe(250);
    // The connection froze; the echo of the probe sent at 250 arrives at 5 000.
    freshness.echoed(held);
    expect(freshness.isCurrent(5_000)).toBe(false);
  });

  it('ignores echoes of unknown or superseded probes', () => {
    const freshness = createStreamFreshness();
    const first = freshness.probe(0);
    const second = freshness.probe(100);
    freshness.echoed(second, 1_000);
    freshness.echoed(first);
    freshness.echoed(99);
    expect(freshness.isCurrent(1_099)).toBe(true);
    expect(freshness.isCurrent(1_100)).toBe(false);
  });

  it('trusts nothing once the stream is lost, until a new snapshot', () => {
    const freshness = createStreamFreshness();
    freshness.echoed(freshness.probe(0), 1_000);
    freshness.lost();
    expect(freshness.isCurrent(1)).toBe(false);
    const reopened = freshness.probe(2);
    freshness.echoed(reopened, 1_000);
    expect(freshness.isCurrent(3)).toBe(true);
  });
});
