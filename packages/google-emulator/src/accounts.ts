import { createHash } from 'node:crypto';
import type { Account } from './contracts.ts';

export const DEFAULT_ACCOUNTS = ['alice@example.com', 'bob@example.com'];

/**
 * Google's own consumer mail domains: an account there is a personal Google account, belonging to
 * no Workspace or Cloud organisation, so its ID tokens carry no `hd`. Every other domain is taken
 * as a Workspace domain (README, "Known differences").
 */
const CONSUMER_DOMAINS = new Set(['gmail.com', 'googlemail.com']);

/**
 * An emulated Google account for `email`. The subject is 21 digits derived from the email, so it is
 * stable across restarts (as Google's `sub` is stable for a person) and looks like Google's.
 */
export function accountFor(email: string): Account {
  const digest = createHash('sha256').update(email.toLowerCase()).digest();
  let sub = '1';
  for (let i = 0; sub.length < 21; i += 1) sub += String(digest[i % digest.length]! % 10);
  const local = email.split('@')[0] ?? email;
  const name = local
    .split(/[._-]+/)
    .filter(Boolean)
    .map((part) => part[0]!.toUpperCase() + part.slice(1))
    .join(' ');
  const domain = email.slice(email.lastIndexOf('@') + 1).toLowerCase();
  return {
    sub,
    email: email.toLowerCase(),
    name: name || email,
    ...(CONSUMER_DOMAINS.has(domain) ? {} : { hostedDomain: domain }),
  };
}
