import { createHash, timingSafeEqual } from 'node:crypto';
import type { Context } from 'koa';
import type { IdpClient } from './directory.ts';
import { single } from './form-body.ts';
import { OAuthError } from './oauth-error.ts';

/**
 * RFC 6749 §2.3.1: `client_secret_basic` or `client_secret_post`. Every token request of this IdP
 * authenticates its client (the extension's §7.7: token exchange without it would let anyone
 * holding an ID token obtain ID-JAGs).
 */
export function authenticateClient(
  ctx: Context,
  form: URLSearchParams,
  clients: Map<string, IdpClient>,
): IdpClient {
  let clientId = single(form, 'client_id');
  let secret = single(form, 'client_secret');
  const header = ctx.get('authorization');
  if (/^basic /i.test(header)) {
    const decoded = Buffer.from(header.slice(6).trim(), 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon < 0) throw new OAuthError('invalid_client', 'malformed Basic authorization', 401);
    clientId = decodeURIComponent(decoded.slice(0, colon));
    secret = decodeURIComponent(decoded.slice(colon + 1));
  }
  const client = clients.get(clientId ?? '');
  if (!client || secret === undefined || !sameSecret(secret, client.clientSecret))
    throw new OAuthError('invalid_client', 'client authentication failed', 401);
  return client;
}

function sameSecret(given: string, expected: string): boolean {
  const digest = (value: string) => createHash('sha256').update(value).digest();
  return timingSafeEqual(digest(given), digest(expected));
}
