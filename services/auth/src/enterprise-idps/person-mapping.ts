import type { Queryable } from '../db/pool.ts';
import type { VerifiedIdJag } from './id-jag-verifier.ts';
import { createEnterprisePersonQueries } from './person-queries.ts';

/**
 * The Sheetgate person an ID-JAG is for, by the operator's mapping of its issuer (docs/design.md
 * §4.7), or undefined:
 * - `subjects`: the IdP's `sub` (unique per issuer, and per tenant for a multi-tenant one) names
 *   the e-mail of the person's Google account at Sheetgate;
 * - `emailDomains`: the ID-JAG's `email`, at a listed domain, names the person whose Google
 *   account has that address and belongs to that domain's Workspace organisation — so an address
 *   at the domain held as a personal Google account (which anyone with the mailbox can create)
 *   never matches.
 * An e-mail held by two people matches nobody. People exist once they have signed in with Google;
 * the mapping creates nobody.
 */
export function createPersonMapping(pool: Queryable) {
  const queries = createEnterprisePersonQueries(pool);
  const one = (ids: string[]) => (ids.length === 1 ? ids[0] : undefined);

  return {
    async personOf(idJag: VerifiedIdJag): Promise<string | undefined> {
      const mappedEmail = idJag.idp.subjects?.[idJag.subject];
      if (mappedEmail) return one(await queries.idsByEmail(mappedEmail));
      const email = idJag.email?.toLowerCase();
      const domain = email?.slice(email.lastIndexOf('@') + 1);
      if (!email || !domain || !idJag.idp.emailDomains?.includes(domain)) return undefined;
      return one(await queries.idsByWorkspaceEmail(email, domain));
    },
  };
}

export type PersonMapping = ReturnType<typeof createPersonMapping>;
