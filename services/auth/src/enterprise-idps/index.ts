import type { Cache } from '../cache/cache.ts';
import type { Queryable } from '../db/pool.ts';
import { createAssertionReplays } from './assertion-replays.ts';
import type { TrustedIdp } from './enterprise-idps-setting.ts';
import { createIdJagVerifier } from './id-jag-verifier.ts';
import type { JwtBearerGrantDeps } from './jwt-bearer-grant.ts';
import { createPersonMapping } from './person-mapping.ts';

/**
 * What the provider needs to take ID-JAGs of the trusted enterprise identity providers
 * (docs/design.md §4.7), or undefined when the operator trusts none (ENTERPRISE_IDPS unset): then
 * the token endpoint neither takes nor advertises the JWT bearer grant.
 */
export function createEnterpriseGrant(options: {
  baseUrl: string;
  idps: readonly TrustedIdp[];
  pool: Queryable;
  cache: Cache;
}): Pick<JwtBearerGrantDeps, 'verifier' | 'people' | 'replays'> | undefined {
  if (options.idps.length === 0) return undefined;
  return {
    verifier: createIdJagVerifier({ baseUrl: options.baseUrl, idps: options.idps }),
    people: createPersonMapping(options.pool),
    replays: createAssertionReplays(options.cache),
  };
}
