import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';

/**
 * The approval page's link (URL-mode elicitation, docs/design.md §11.10): the MCP service makes
 * it, web reads it. It carries the approval's random id and an HMAC of it under a key derived from
 * INTERNAL_SERVICE_TOKEN (which both hold), so an altered link is refused before anything is
 * looked up. It is not a credential: the page answers only the signed-in person the call was made
 * for, and nothing about the person or the call is in it.
 */
const ID = /^[A-Za-z0-9_-]{22}$/;

function signature(secret: string, approvalId: string): string {
  const key = new Uint8Array(hkdfSync('sha256', secret, 'sheetgate', 'sheetgate approval link v1', 32));
  return createHmac('sha256', key).update(approvalId).digest('base64url').slice(0, 32);
}

/** The link's path (`/approve/<id>.<signature>`), to put after the public base URL. */
export function approvalLinkPath(secret: string, approvalId: string): string {
  if (!ID.test(approvalId)) throw new Error('approval id: 22 base64url characters expected');
  return `/approve/${approvalId}.${signature(secret, approvalId)}`;
}

/** The approval id of a link's last segment (`<id>.<signature>`), or undefined when altered. */
export function approvalIdOfLink(secret: string, segment: string): string | undefined {
  const [id, given, ...rest] = segment.split('.');
  if (rest.length > 0 || !id || !given || !ID.test(id)) return undefined;
  const expected = Buffer.from(signature(secret, id));
  const presented = Buffer.from(given);
  if (presented.length !== expected.length || !timingSafeEqual(presented, expected)) return undefined;
  return id;
}
