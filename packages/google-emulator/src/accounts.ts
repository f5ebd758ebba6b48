import { createHash } from 'node:crypto';
import type { Account } from './contracts.ts';

export const DEFAULT_ACCOUNTS = ['alice@example.com', 'bob@example.com'];

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
  return { sub, email: email.toLowerCase(), name: name || email };
}
