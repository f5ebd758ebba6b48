/**
 * Whether an address is outside the person's own account, the reading of "outside" that decides
 * whether a share or a notification is an outbound action (issue 37).
 *
 * - A Google Workspace person (the ID token carried `hd`) is inside their domain: a recipient is
 *   outside when the domain after its last `@` is not exactly `hostedDomain`. A subdomain is
 *   outside (`sub.example.com` is not `example.com`): a Workspace organisation's other domains and
 *   subdomains are not named in the token, and a guard that asks once too often is safer than one
 *   that lets a look-alike through. The same holds for a secondary domain of the organisation.
 * - A consumer person (no `hd`, e.g. a gmail.com account) has no domain of their own: every address
 *   but their own is outside. Gmail's dots and `+tags` are not folded: `a.b@gmail.com` is read as
 *   another person than `ab@gmail.com`, again the side that asks.
 *
 * Addresses and domains are compared trimmed and case-insensitively; anything that is not an
 * address with a domain (no `@`, nothing after it) is outside.
 */
export interface Person {
  /** The person's Google e-mail address. */
  email: string;
  /** The Workspace domain from the ID token's `hd` claim; absent or empty for a consumer account. */
  hostedDomain?: string;
}

export function isOutside(person: Person, recipientEmail: string): boolean {
  const recipient = normalised(recipientEmail);
  const at = recipient.lastIndexOf('@');
  if (at <= 0 || at === recipient.length - 1) return true;
  const hostedDomain = normalised(person.hostedDomain ?? '');
  if (hostedDomain !== '') return recipient.slice(at + 1) !== hostedDomain;
  return recipient !== normalised(person.email);
}

function normalised(text: string): string {
  return text.trim().toLowerCase();
}
